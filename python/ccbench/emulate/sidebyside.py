"""Simulator and kernel side by side: the same scenario run in both modes,
and per algorithm the differences in goodput, mean RTT, retransmissions and
the distance between the cwnd traces, with overlaid cwnd plots.

The cwnd distance is the mean absolute difference of the two traces
(resampled on a common 100 ms grid over the flow's active time) divided by
the simulator's mean cwnd: 0 for identical traces, 1 for an error as large
as the window itself.

Each repetition runs both sides with the same seed, so the differences are
paired: the difference of goodput and of mean RTT is given with the 95%
confidence interval of the per-repetition differences, and judged against
AGREEMENT_PCT: "agrees" when the whole interval lies within it, "differs"
when the difference itself lies outside, "undecided" otherwise (one
repetition, or an interval too wide to tell).
"""

from __future__ import annotations

import copy
import html
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ccbench import stats
from ccbench.emulate import kernel
from ccbench.emulate.kernel import KernelModeError
from ccbench.emulate.runner import emulate
from ccbench.emulate.tables import Result
from ccbench.scenario import ScenarioFileError, load

GRID_S = 0.1
#: How close the two sides must be, in % of the simulator's value (issue 56's bar).
AGREEMENT_PCT = 5.0


def cwnd_distance(sim: pd.DataFrame, kern: pd.DataFrame, start_s: float, end_s: float) -> float:
    """Normalized L1 distance of two cwnd traces (series rows of one flow each)."""
    if sim.empty or kern.empty or end_s <= start_s:
        return float("nan")
    grid = np.arange(start_s, end_s, GRID_S)
    a = np.interp(grid, sim["t"].to_numpy(float), sim["cwnd"].to_numpy(float))
    b = np.interp(grid, kern["t"].to_numpy(float), kern["cwnd"].to_numpy(float))
    scale = float(np.mean(a))
    return float(np.mean(np.abs(a - b)) / scale) if scale > 0 else float("nan")


def per_algorithm(r: Result) -> pd.DataFrame:
    f = r.flows
    return f.groupby("cc").agg(
        goodput_bps=("goodput_bps", "mean"), rtt_mean_ms=("rtt_mean_ms", "mean"), retrans_pct=("retrans_pct", "mean")
    )


def with_algorithm(scenario: dict, cc: str) -> dict:
    s = copy.deepcopy(scenario)
    for f in s["flows"]:
        f["cc"] = cc
    return s


def _pct(a: float, b: float) -> float:
    return 100.0 * (b - a) / a if a else float("nan")


def verdict(diff_pct: float, ci95: float, bar: float = AGREEMENT_PCT) -> str:
    """ "agrees" when the difference's whole 95% interval lies within +/- bar,
    "differs" when the difference itself lies outside, else "undecided"."""
    if not np.isfinite(diff_pct):
        return "undecided"
    if abs(diff_pct) > bar:
        return "differs"
    if np.isfinite(ci95) and abs(diff_pct) + ci95 <= bar:
        return "agrees"
    return "undecided"


def compare(scenario, reps: int = 1, algorithms: list[str] | None = None, seed: int | None = None):
    """Runs each (scenario, algorithm) `reps` times in both modes. Returns
    (table, pairs): one row per algorithm with both modes' means and the
    differences (kernel minus simulator: % for goodput and RTT, with the 95%
    CI of the paired per-repetition differences and a verdict; percentage
    points for retransmissions), and the (sim, kernel) Results of the first rep."""
    from ccbench.api import run

    base = load(scenario, seed=seed)
    if base.get("record", {}).get("pcap"):
        raise KernelModeError(
            "record.pcap",
            "a side-by-side comparison makes many runs of each side: capture one run with "
            "`ccbench emulate FILE` (the kernel) and `ccbench run FILE` (the simulator)",
        )
    variants = {cc: with_algorithm(base, cc) for cc in algorithms} if algorithms else {None: base}
    # Every variant is checked before the first runs: an algorithm the kernel lacks (or
    # that its flows' settings do not allow) is refused before minutes of other runs.
    available = kernel.available_algorithms()
    for cc, s in variants.items():
        try:
            variants[cc] = load(s)
        except ScenarioFileError as e:
            raise KernelModeError(f"--cc {cc}", f"{e.path}: {e.detail}" if e.path else e.detail) from None
        kernel.check(variants[cc], available)
    rows, pairs = [], {}
    for key, s in variants.items():
        sims, kerns, dists = [], [], []
        for rep in range(reps):
            sc = {**s, "seed": s["seed"] + rep}
            rs, rk = run(sc), emulate(sc)
            if rep == 0:
                pairs[key] = (rs, rk)
            sims.append(per_algorithm(rs))
            kerns.append(per_algorithm(rk))
            for fid, fl in rs.flows.set_index("flow").iterrows():
                d = cwnd_distance(
                    rs.series[rs.series["flow"] == fid],
                    rk.series[rk.series["flow"] == fid],
                    fl["start_s"],
                    fl["end_s"],
                )
                dists.append((fl["cc"], d))
        rows.extend(algorithm_rows(sims, kerns, dists))
    return pd.DataFrame(rows), pairs


def algorithm_rows(sims: list[pd.DataFrame], kerns: list[pd.DataFrame], dists: list[tuple]) -> list[dict]:
    """One row per algorithm from the per-repetition tables of both sides
    (per_algorithm), paired by repetition."""
    sim = pd.concat(sims).groupby(level=0).mean()
    kern = pd.concat(kerns).groupby(level=0).mean()
    dist = pd.DataFrame(dists, columns=["cc", "d"]).groupby("cc")["d"].mean()
    rows = []
    for cc in sim.index:
        a, b = sim.loc[cc], kern.loc[cc]
        row = {
            "cc": cc,
            "reps": len(sims),
            "sim_goodput_mbps": a["goodput_bps"] / 1e6,
            "kernel_goodput_mbps": b["goodput_bps"] / 1e6,
            "goodput_diff_pct": _pct(a["goodput_bps"], b["goodput_bps"]),
            "sim_rtt_mean_ms": a["rtt_mean_ms"],
            "kernel_rtt_mean_ms": b["rtt_mean_ms"],
            "rtt_diff_pct": _pct(a["rtt_mean_ms"], b["rtt_mean_ms"]),
            "sim_retrans_pct": a["retrans_pct"],
            "kernel_retrans_pct": b["retrans_pct"],
            "retrans_diff_pp": b["retrans_pct"] - a["retrans_pct"],
            "cwnd_distance": float(dist.get(cc, float("nan"))),
        }
        for metric, column in (("goodput", "goodput_bps"), ("rtt", "rtt_mean_ms")):
            paired = [_pct(s.loc[cc, column], k.loc[cc, column]) for s, k in zip(sims, kerns)]
            ci = stats.summarize(paired).ci95
            row[f"{metric}_diff_ci95_pct"] = ci
            row[f"{metric}_verdict"] = verdict(row[f"{metric}_diff_pct"], ci)
        rows.append(row)
    return rows


#: Up to this many flows the overlay's legend names each flow; beyond, a legend of
#: 2 x flows entries outgrows the plot (64 flows: 128 entries), so it names the two line styles.
LEGEND_FLOWS_MAX = 8


def overlay_figure(sim: Result, kern: Result, title: str):
    """cwnd of every flow, simulator (solid) and kernel (dashed), on one plot."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    fig, ax = plt.subplots(figsize=(8, 3.2), layout="constrained")
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (segments)")
    ax.grid(True, alpha=0.3)
    flows = list(sim.flows["flow"])
    for fid in flows:
        for r, style, mode in ((sim, "-", "sim"), (kern, "--", "kernel")):
            s = r.series[r.series["flow"] == fid]
            ax.plot(s["t"], s["cwnd"], style, linewidth=0.9, label=f"flow {fid} {mode}")
    if len(flows) <= LEGEND_FLOWS_MAX:
        ax.legend(loc="upper right", fontsize=7)
    else:
        styles = [Line2D([], [], color="0.3", linestyle=st, linewidth=0.9) for st in ("-", "--")]
        ax.legend(styles, [f"simulator ({len(flows)} flows)", "kernel"], loc="upper right", fontsize=7)
    return fig


#: The page's columns: (heading with unit, column, format); "±" columns follow their difference.
PAGE_COLUMNS = [
    ("algorithm", "cc", "{}"),
    ("repetitions", "reps", "{:d}"),
    ("goodput, simulator (Mbit/s)", "sim_goodput_mbps", "{:.2f}"),
    ("goodput, kernel (Mbit/s)", "kernel_goodput_mbps", "{:.2f}"),
    ("goodput difference (%)", "goodput_diff_pct", "{:+.1f}"),
    ("goodput", "goodput_verdict", "{}"),
    ("mean RTT, simulator (ms)", "sim_rtt_mean_ms", "{:.1f}"),
    ("mean RTT, kernel (ms)", "kernel_rtt_mean_ms", "{:.1f}"),
    ("mean RTT difference (%)", "rtt_diff_pct", "{:+.1f}"),
    ("mean RTT", "rtt_verdict", "{}"),
    ("retransmitted, simulator (%)", "sim_retrans_pct", "{:.2f}"),
    ("retransmitted, kernel (%)", "kernel_retrans_pct", "{:.2f}"),
    ("cwnd distance", "cwnd_distance", "{:.2f}"),
]

DEFINITIONS = [
    ("goodput", "application bytes delivered to the receiver per second of the flow's active time"),
    ("mean RTT", "the mean of the flow's per-ACK RTT samples (each side measures its own the same way)"),
    ("retransmitted", "segments sent again, in % of the segments sent"),
    (
        "difference",
        "kernel minus simulator, in % of the simulator's value, with the 95% confidence interval of the "
        "differences of the repetitions (each repetition runs both sides with the same seed)",
    ),
    (
        "agrees / differs / undecided",
        f"agrees: the whole interval lies within +/-{AGREEMENT_PCT:g}%; differs: the difference lies outside it; "
        "undecided: one repetition, or an interval too wide to tell (add repetitions with --reps)",
    ),
    (
        "cwnd distance",
        "mean absolute difference of the two cwnd traces on a 100 ms grid over the flow's active time, divided by "
        "the simulator's mean cwnd: 0 for identical traces, 1 for an error as large as the window",
    ),
]


def _report_style() -> str:
    """The campaign report's stylesheet (report/template.html), so both pages look alike."""
    template = (Path(__file__).resolve().parents[1] / "report" / "template.html").read_text(encoding="utf-8")
    found = re.search(r"<style>.*?</style>", template, re.S)
    return found.group(0) if found else ""


def _cell(row, column: str, fmt: str) -> str:
    value = row[column]
    if isinstance(value, float) and not np.isfinite(value):
        return "&ndash;"
    text = html.escape(fmt.format(value))
    ci = f"{column[: -len('_pct')]}_ci95_pct" if column.endswith("_diff_pct") else None
    if ci and ci in row and np.isfinite(row[ci]):
        text += f' <span class="pm">&plusmn; {row[ci]:.1f}</span>'
    if column.endswith("_verdict"):
        css = {"agrees": "tied", "differs": "worse", "undecided": "undecided"}[value]
        return f'<td class="{css}">{text}</td>'
    return f'<td class="name">{text}</td>' if column == "cc" else f"<td>{text}</td>"


def page_html(table: pd.DataFrame, images: list[str], title: str) -> str:
    """The comparison as a page in the report's look: the table with units and
    the differences' intervals, the definitions, the overlaid cwnd plots."""
    head = "".join(
        f'<th class="name">{html.escape(h)}</th>' if c == "cc" else f"<th>{html.escape(h)}</th>"
        for h, c, _ in PAGE_COLUMNS
    )
    body = "".join(
        "<tr>" + "".join(_cell(row, c, f) for _, c, f in PAGE_COLUMNS) + "</tr>" for _, row in table.iterrows()
    )
    differs = table[(table["goodput_verdict"] == "differs") | (table["rtt_verdict"] == "differs")]["cc"].tolist()
    summary = (
        f'<p class="partial">Outside {AGREEMENT_PCT:g}% in goodput or mean RTT: '
        f"{html.escape(', '.join(map(str, differs)))}.</p>"
        if differs
        else f'<p class="pick">No algorithm differs by more than {AGREEMENT_PCT:g}% in goodput or mean RTT.</p>'
    )
    terms = "".join(f"<li><b>{html.escape(t)}</b>: {html.escape(d)}</li>" for t, d in DEFINITIONS)
    figs = "".join(f'<img src="{html.escape(n)}" alt="{html.escape(n)}">' for n in images)
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"{_report_style()}</head><body><h1>{html.escape(title)}</h1>"
        '<p class="sub">The same scenario and seeds in the simulator and through the Linux kernel\'s TCP '
        "(kernel mode); differences are kernel minus simulator.</p>"
        f'{summary}<h2>Per algorithm</h2><div class="wide"><table><tr>{head}</tr>{body}</table></div>'
        f'<h2>Definitions</h2><ul class="note">{terms}</ul>'
        f'<h2>cwnd over time</h2><p class="note">Solid: simulator; dashed: kernel; the first repetition.</p>'
        f'<div class="figs">{figs}</div></body></html>'
    )


def write_report(table: pd.DataFrame, pairs: dict, out: Path, title: str = "Simulator vs Linux kernel") -> Path:
    """compare-sim.csv, one overlaid cwnd PNG per variant, and compare-sim.html showing both."""
    from ccbench import plots

    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "compare-sim.csv", index=False, float_format="%.6g")
    images = []
    for key, (rs, rk) in pairs.items():
        name = f"cwnd-sim-vs-kernel-{key or 'scenario'}.png"
        plots.save_png(overlay_figure(rs, rk, f"cwnd: simulator vs kernel ({key or 'scenario'})"), out / name)
        images.append(name)
    (out / "compare-sim.html").write_text(page_html(table, images, title), encoding="utf-8")
    return out / "compare-sim.html"
