"""Builds report.html from a saved campaign directory (never from memory):
per scenario a table of metrics (mean +/- 95% CI over repetitions), the
ranking with ties, a recommendation, and a few plots embedded as base64 PNG.
The page loads no external resource.
"""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path
from string import Template

import numpy as np
import pandas as pd

from ccbench import plots, stats
from ccbench.compare import load_campaign
from ccbench.run_files import atomic_write_bytes, json_bytes
from ccbench.run_files import load as load_run

ALPHA = 0.05
#: (column of the runs table, header, scale for display, decimals)
METRICS = [
    ("goodput_bps", "Goodput (Mbit/s)", 1e-6, 2),
    ("utilization", "Utilization (%)", 100.0, 1),
    ("rtt_mean_ms", "RTT mean (ms)", 1.0, 1),
    ("rtt_p95_ms", "RTT p95 (ms)", 1.0, 1),
    ("retrans_pct", "Retrans. (%)", 1.0, 2),
    ("timeouts_per_100s", "Timeouts /100 s", 1.0, 2),
    ("jain", "Jain index", 1.0, 3),
]
#: How many algorithms the rate-over-time plot shows at most.
TIME_PLOT_MAX = 6


def _img(png: bytes, alt: str) -> str:
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{base64.b64encode(png).decode()}">'


def summaries(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per algorithm: for each metric its mean, std and CI half-width."""
    rows = []
    for alg, g in runs.groupby("algorithm", sort=False):
        row = {"algorithm": alg, "n": len(g)}
        for col, *_ in METRICS:
            s = stats.summarize(g[col])
            row[col], row[f"{col}_std"], row[f"{col}_ci"] = s.mean, s.std, s.ci95
        rows.append(row)
    return pd.DataFrame(rows)


def ranking(runs: pd.DataFrame) -> pd.DataFrame:
    samples = {alg: g["goodput_bps"].to_numpy() for alg, g in runs.groupby("algorithm", sort=False)}
    return stats.rank(samples, higher_is_better=True, alpha=ALPHA)


def recommend(table: pd.DataFrame) -> tuple[str, list[str]]:
    """The pick (the goodput leader: `table` is sorted by rank, then mean
    goodput) and the algorithms statistically tied with it (its rank-1 group)."""
    top = table[table["rank"] == 1]
    pick = top.iloc[0]["algorithm"]
    return pick, [a for a in top["algorithm"] if a != pick]


def lowest_delay(table: pd.DataFrame, names: list[str]) -> str:
    """Among `names`, the algorithm with the lowest mean RTT."""
    rows = table[table["algorithm"].isin(names)]
    return rows.sort_values("rtt_mean_ms", kind="stable").iloc[0]["algorithm"]


def _fmt(v: float, scale: float, decimals: int) -> str:
    return "–" if not np.isfinite(v) else f"{v * scale:.{decimals}f}"


def metrics_table(table: pd.DataFrame, several_flows: bool) -> str:
    cols = [m for m in METRICS if several_flows or m[0] != "jain"]
    head = "".join(f"<th>{h}</th>" for _, h, _, _ in cols)
    body = []
    for _, r in table.iterrows():
        cells = []
        for col, _, scale, dec in cols:
            ci = r[f"{col}_ci"]
            pm = f' <span class="pm">± {_fmt(ci, scale, dec)}</span>' if np.isfinite(ci) else ""
            cells.append(f"<td>{_fmt(r[col], scale, dec)}{pm}</td>")
        cls = ' class="rank1"' if r["rank"] == 1 else ""
        body.append(
            f"<tr{cls}><td>{int(r['rank']) if np.isfinite(r['rank']) else '–'}</td>"
            f'<td class="name">{html.escape(r["algorithm"])}</td>{"".join(cells)}</tr>'
        )
    return (
        f'<table><thead><tr><th>Rank</th><th class="name">Algorithm</th>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def recommendation_text(scenario_title: str, table: pd.DataFrame, pick: str, tied: list[str], n: int) -> str:
    r = table.set_index("algorithm").loc[pick]
    facts = f"goodput {r['goodput_bps'] / 1e6:.2f} Mbit/s, mean RTT {r['rtt_mean_ms']:.0f} ms"
    conditions = html.escape(scenario_title[0].lower() + scenario_title[1:])
    text = f"Under these conditions ({conditions}) pick <b>{html.escape(pick)}</b> ({facts})."
    if tied:
        names = ", ".join(f"<b>{html.escape(t)}</b>" for t in tied)
        verb = "is" if len(tied) == 1 else "are"
        text += f" {names} {verb} statistically tied with it on goodput ({n} repetitions)."
        calm = lowest_delay(table, [pick] + tied)
        if calm != pick:
            rtt = table.set_index("algorithm").loc[calm, "rtt_mean_ms"]
            text += f" Among these, <b>{html.escape(calm)}</b> keeps the lowest mean RTT ({rtt:.0f} ms)."
    else:
        text += f" No other algorithm is statistically tied with it on goodput ({n} repetitions)."
    return text


def time_plot_names(table: pd.DataFrame, pick: str) -> list[str]:
    """The pick, the rest of rank 1, the worst, and reno/cubic as baselines (at most TIME_PLOT_MAX)."""
    wanted = [pick] + [a for a in table[table["rank"] == 1]["algorithm"] if a != pick][:2]
    wanted += [a for a in ("cubic", "reno") if a in set(table["algorithm"])]
    wanted.append(table.iloc[-1]["algorithm"])
    out = []
    for a in wanted:
        if a not in out:
            out.append(a)
    return out[:TIME_PLOT_MAX]


def scenario_section(out: Path, sc: dict, runs: pd.DataFrame, flows: pd.DataFrame) -> tuple[str, dict]:
    """The HTML section of one scenario and its recommendation."""
    table = summaries(runs).merge(ranking(runs)[["name", "rank"]], left_on="algorithm", right_on="name")
    table = table.sort_values(["rank", "goodput_bps"], ascending=[True, False], kind="stable").reset_index(drop=True)
    table["goodput_mbps"], table["goodput_mbps_ci"] = table["goodput_bps"] / 1e6, table["goodput_bps_ci"] / 1e6
    pick, tied = recommend(table)
    n = int(runs.groupby("algorithm").size().min())
    several = bool((runs["flows"] > 1).any())
    rank1 = set(table[table["rank"] == 1]["algorithm"])
    figs = [
        _img(
            plots.png_bytes(
                plots.bars(
                    table,
                    "algorithm",
                    "goodput_mbps",
                    "goodput_mbps_ci",
                    "goodput (Mbit/s), mean ± 95% CI",
                    "Goodput per algorithm (blue: rank 1)",
                    highlight=rank1,
                )
            ),
            "goodput bars",
        ),
        _img(
            plots.png_bytes(
                plots.tradeoff(
                    table,
                    "algorithm",
                    "rtt_mean_ms",
                    "goodput_mbps",
                    "mean RTT (ms)",
                    "goodput (Mbit/s)",
                    "Goodput against delay",
                    highlight=rank1,
                )
            ),
            "goodput vs RTT",
        ),
    ]
    names = time_plot_names(table, pick)
    series = {a: load_run(out / "runs" / sc["key"] / a / "rep0").series for a in names}
    figs.append(
        _img(
            plots.png_bytes(plots.runs_rate_over_time(series, 0.5, "Goodput over time (repetition 0, all flows)")),
            "goodput over time",
        )
    )
    per_flow = {a: flows.loc[flows["algorithm"] == a, "goodput_bps"].to_numpy() / 1e6 for a in names}
    figs.append(
        _img(
            plots.png_bytes(
                plots.cdf(per_flow, "goodput per flow (Mbit/s)", "CDF of flow goodput over all repetitions")
            ),
            "goodput CDF",
        )
    )
    text = recommendation_text(sc["title"], table, pick, tied, n)
    section = (
        f'<h2 id="{sc["key"]}">{html.escape(sc["title"])}</h2>'
        f'<p class="note">{html.escape(sc["description"])}; {n} repetitions with distinct seeds '
        f"(each also draws 0-2 ms of access delay per flow).</p>"
        f'<div class="pick">{text}</div>'
        f"{metrics_table(table, several)}"
        f'<div class="figs">{"".join(figs)}</div>'
    )
    return section, {"scenario": sc["key"], "title": sc["title"], "pick": pick, "tied": tied}


def summary_row(rec: dict) -> str:
    return (
        f'<tr><td class="name"><a href="#{rec["scenario"]}">{html.escape(rec["title"])}</a></td>'
        f'<td class="name">{html.escape(rec["pick"])}</td>'
        f'<td class="wrap">{html.escape(", ".join(rec["tied"])) or "–"}</td></tr>'
    )


def recommendations(out: str | Path) -> list[tuple[str, str, str, list[str]]]:
    """(scenario, title, pick, tied) per scenario, from the saved recommendations.json."""
    recs = json.loads((Path(out) / "recommendations.json").read_text(encoding="utf-8"))
    return [(r["scenario"], r["title"], r["pick"], r["tied"]) for r in recs]


METHOD = """<p class="note">Each cell is the mean over repetitions ± the half-width of its 95% confidence
interval (Student's t). Goodput: unique payload bytes delivered in order over the flow's active time,
averaged over the flows of a run; utilization: sum of the flows' goodputs over the link's payload
capacity (nominal rate × payload share of a full segment); RTT from every per-ACK sample; retransmission
percentage: retransmitted / sent segments; Jain's index (Σx)²/(N·Σx²) over the flows' goodputs.
Ranking: Welch's t-test between every pair of algorithms on goodput, Holm-corrected over all pairs
(α = 0.05); the best algorithm and every one not significantly different from it share rank 1, then
the same for the rest. So an algorithm whose results vary widely can share rank 1 while a steadier one
with a slightly higher mean does not: the data cannot tell the first from the leader, but can the
second. The pick is the algorithm with the highest mean goodput; in the delay plot, labels that would
overlap are left out.
Simulated with ccsim $version; every run's tables are in <code>runs/</code>, the tidy tables in
<code>flows.parquet</code> and <code>runs.parquet</code>.</p>"""


def build(out: str | Path) -> Path:
    """Writes out/report.html (and recommendations.json) from the campaign saved
    in `out`; returns the report's path."""
    out = Path(out)
    info, flows, runs = load_campaign(out)
    sections, recs = [], []
    for sc in info["scenarios"]:
        section, rec = scenario_section(
            out, sc, runs[runs["scenario"] == sc["key"]], flows[flows["scenario"] == sc["key"]]
        )
        sections.append(section)
        recs.append(rec)
    rows = [summary_row(r) for r in recs]
    summary = (
        '<table><thead><tr><th class="name">Conditions</th><th class="name">Pick</th>'
        f'<th class="name">Statistically tied on goodput</th></tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )
    page = Template((Path(__file__).parent / "template.html").read_text(encoding="utf-8")).substitute(
        title="ccbench: which congestion control should I pick?",
        subtitle=html.escape(
            f"{len(info['algorithms'])} algorithms × {len(info['scenarios'])} network conditions × "
            f"{info['reps']} repetitions (seeds {', '.join(map(str, info['seeds']))})"
            + (" — quick mode: short runs" if info.get("quick") else "")
        ),
        summary=summary,
        sections="\n".join(sections),
        method=Template(METHOD).substitute(version=html.escape(info["ccbench_version"])),
    )
    atomic_write_bytes(out / "recommendations.json", json_bytes(recs))
    path = out / "report.html"
    atomic_write_bytes(path, page.encode("utf-8"))
    return path
