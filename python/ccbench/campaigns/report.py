"""report.html of a campaign directory, built from its saved results only:
the design, per condition the recommendation with its confidence, a table
sorted by the objective, figures (also written to plots/: PNG, and SVG on request), the
method, and the campaign file itself (how to reproduce). Self-contained:
images are embedded, nothing is fetched.

Of an unfinished campaign (interrupted, or still running in another
process) the report is partial: built from the finished runs only, it says
so at its top with the command that finishes the campaign, and lists the
conditions and candidates with no finished run yet.
"""

from __future__ import annotations

import html
import json
import os
import shlex
import sqlite3
from collections.abc import Callable
from pathlib import Path
from string import Template

import numpy as np
import pandas as pd

from ccbench.campaigns import analysis, figures, integrity, repeats, storage
from ccbench.campaigns.analysis import METRICS, OBJECTIVES, ConditionResult, check_fairness, fmt
from ccbench.campaigns.spec import QUICK_NOTE
from ccbench.campaigns.storage import CampaignData, tables_dir
from ccbench.campaigns.storage import load as load_campaign
from ccbench.flow_limits import group_notes

TEMPLATE = Path(__file__).resolve().parents[1] / "report" / "template.html"
TABLE_METRICS = ("goodput_bps", "rtt_p95_ms", "rtt_mean_ms", "retrans_pct", "timeouts_per_100s", "jain")
#: What a partial report says of a condition or candidate that has no finished run.
NOT_FINISHED = "no finished run yet"


def _e(x) -> str:
    return html.escape(str(x))


def _cell(r: pd.Series, col: str, m) -> str:
    v, lo, hi = r.get(col, np.nan), r.get(f"{col}_low", np.nan), r.get(f"{col}_high", np.nan)
    rng = f' <span class="pm">({fmt(lo, m)}–{fmt(hi, m)})</span>' if np.isfinite(lo) and np.isfinite(hi) else ""
    return f"<td>{fmt(v, m)}{rng}</td>"


def _vs_best(r: pd.Series, metric, pick: str | None = None) -> str:
    d, h, v = r.get("diff", np.nan), r.get("diff_half", np.nan), r["verdict"]
    name = r.get("name")
    if v == "best" and pick is not None and name != pick:
        # The leader by the objective, not the pick: a tie broken on another metric (pick_reason).
        return '<td class="tied">best mean<span class="pm">tied with the pick</span></td>'
    if pick is not None and name == pick:
        return "<td><b>the pick</b></td>" if v == "best" else f'<td class="tied"><b>the pick</b>, {_e(v)}</td>'
    if v in ("best", "no data", "not eligible"):
        return f"<td>{_e(v)}</td>"
    sign = "+" if d >= 0 else "−"
    amount = f"{sign}{fmt(abs(d), metric)}" + (f" ± {fmt(h, metric)}" if np.isfinite(h) else "")
    extra = ""
    needed = r.get("reps_needed")
    if v == "undecided" and needed is not None and np.isfinite(float(needed)):
        extra = f"; ~{int(needed)} reps"
    return f'<td class="{_e(v)}">{_e(v)} <span class="pm">({amount}{extra})</span></td>'


def condition_table(c: ConditionResult, objective, several_flows: bool, factor: str) -> str:
    cols = [m for m in TABLE_METRICS if (several_flows or m != "jain") and m != objective.metric]
    shown = {col: analysis.shown(METRICS[col], c.table[col]) for col in [objective.metric, *cols] if col in c.table}
    metric = shown.get(objective.metric, METRICS[objective.metric])
    head = "".join(
        f"<th>{_e(METRICS[m].label)}{' (' + METRICS[m].unit + ')' if METRICS[m].unit else ''}</th>" for m in cols
    )
    obj_head = f"{metric.label}{' (' + metric.unit + ')' if metric.unit else ''}"
    body = []
    for _, r in c.table.iterrows():
        rank = "–" if not np.isfinite(r.get("rank", np.nan)) else str(int(r["rank"]))
        cls = ' class="rank1"' if r["name"] == c.pick or r["verdict"] == "tied" else ""
        front = "◆" if r["pareto"] else ""
        body.append(
            f'<tr{cls}><td>{rank}</td><td class="name">{_e(r["name"])}</td>{_cell(r, objective.metric, metric)}'
            f"{_vs_best(r, metric, c.pick)}{''.join(_cell(r, m, shown.get(m, METRICS[m])) for m in cols)}"
            f"<td>{front}</td><td>{int(r['n'])}</td></tr>"
        )
    return (
        '<div class="wide"><table class="cond"><thead>'
        f'<tr><th>Rank</th><th class="name">{_e(factor)}</th><th>{_e(obj_head)}</th>'
        f"<th>vs best ({_e(metric.unit or 'value')})</th>{head}<th>Pareto</th><th>n</th></tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def factor_words(factors: list[str]) -> dict[str, str]:
    """A factor's field path as words for a condition's title: its last two
    names ("flows[*].tcp.rcv_buf" -> "tcp rcv buf", "downlink.queue.size" ->
    "queue size"), more while another factor would read the same. A level
    the campaign file names (a table with `name`, as the studies do) is
    shown by its name instead."""
    import re

    parts = {f: [p for p in re.split(r"[.\[\]]+", f) if p and p != "*" and not p.isdigit()] for f in factors}
    words = {}
    for f, p in parts.items():
        n = min(2, len(p)) or 1
        while n < len(p) and any(q[-n:] == p[-n:] for g, q in parts.items() if g != f):
            n += 1
        words[f] = " ".join(p[-n:]).replace("_", " ") if p else f
    return words


def recommendation_html(c: ConditionResult, objective, margin: float, factor: str) -> str:
    if c.pick is None:
        if c.no_pick == analysis.NOTHING_DELIVERED:
            return f"No pick: {_e(c.no_pick)}; the runs are too short for this network: lengthen them."
        return f"No pick: {_e(c.no_pick or 'no candidate finished a run under these conditions')}."
    r = c.table.set_index("name").loc[c.pick]
    goodput, rtt, retrans = (
        analysis.shown(METRICS[m], c.table[m]) for m in ("goodput_bps", "rtt_p95_ms", "retrans_pct")
    )
    facts = (
        f"goodput {fmt(r['goodput_bps'], goodput)} Mbit/s, p95 RTT {fmt(r['rtt_p95_ms'], rtt)} ms, "
        f"retransmissions {fmt(r['retrans_pct'], retrans)}%"
    )
    text = f"Pick <b>{_e(c.pick)}</b> ({facts}) for <i>{_e(objective.description)}</i>."
    if c.pick_reason:
        text += f" {_e(c.pick_reason)}."
    if c.tied:
        names = ", ".join(f"<b>{_e(t)}</b>" for t in c.tied)
        text += f" No practical difference (within {margin:.0%} on {_e(METRICS[objective.metric].label)}): {names}."
    elif c.undecided:
        text += (
            f" No other {_e(factor)} is shown to be within {margin:.0%} of it yet; not decided (more repetitions "
            f"would tell): {_e(_distances(c, objective))}."
        )
    else:
        text += f" No other {_e(factor)} comes within {margin:.0%} of it."
    if c.on_front:
        text += " It lies on the Pareto front of goodput vs p95 RTT."
    text += f' <br><span class="conf">{_e(analysis.confidence_text(c, margin))}</span>'
    for note in c.notes:
        text += f' <br><span class="note">{_e(note)}</span>'
    return text


def _distances(c: ConditionResult, objective) -> str:
    """The undecided candidates with how far their mean is from the best's, e.g. 'reno 1.0% lower'."""
    t = c.table.set_index("name")
    best = t["mean"].iloc[0]
    out = []
    for n in c.undecided:
        d = t.loc[n, "diff"]
        share = abs(d / best) if best else np.nan
        where = "lower" if d < 0 else "higher"
        out.append(f"{n} {share:.1%} {where}" if np.isfinite(share) else n)
    return ", ".join(out) + f" {METRICS[objective.metric].label}"


#: The figures of a condition's time series, drawn from repetition 0's kept tables.
TIME_SERIES_FIGURES = ("goodput_over_time", "cwnd", "rtt")


def _kept_runs(data: CampaignData, c: ConditionResult, factor: str, names: list[str]) -> list[tuple[str, Path]]:
    """(candidate, tables directory) of repetition 0 of each of `names` under
    condition `c` whose tables were kept, in the order of `names`."""
    idx = data.runs
    sub = idx[(idx["rep"] == 0) & idx[factor].astype(str).isin(names)]
    for f, v in c.levels.items():
        sub = sub[sub[f].astype(str) == str(v)]
    out = []
    for n in names:
        row = sub[sub[factor].astype(str) == n]
        if not row.empty and (kept := tables_dir(data.directory, row["run"].iloc[0]) / "meta.json").exists():
            out.append((n, kept.parent))
    return out


def time_series_figure(name: str, kept: list[tuple[str, Path]]):
    """Figure `name` of TIME_SERIES_FIGURES from the `kept` runs (_kept_runs):
    goodput over time of all of them, cwnd/ssthresh or RTT of the first (the pick)."""
    from ccbench import plots
    from ccbench.run_files import load as load_run

    if name == "goodput_over_time":
        series = {n: load_run(d, tables=("series",)).series for n, d in kept}
        try:  # the path is the same for every candidate: the first run's links say its capacity
            path = load_run(kept[0][1], tables=("flows", "links"))
            capacities = plots.bottleneck_capacities(path.flows, path.links)
        except (LookupError, OSError):
            capacities = {}
        return plots.runs_rate_over_time(
            series, 0.5, "Goodput over time (repetition 0, all flows)", capacities=capacities
        )
    first, directory = kept[0]
    if name == "cwnd":
        run = load_run(directory, tables=("series", "flows"))
        return plots.cwnd_over_time(run.series, run.flows, title=f"Congestion window of {first} (repetition 0)")
    run = load_run(directory, tables=("rtt", "flows"))
    return plots.rtt_over_time(run.rtt, run.flows, title=f"RTT of {first} (repetition 0, per-ACK samples)")


def figure_names(data: CampaignData, c: ConditionResult, factor: str, all_figures: bool = True) -> list[str]:
    """The figures of condition `c`'s section, in the page's order. `all_figures`: besides the bars,
    the throughput vs delay plane, CDFs and goodput, cwnd and RTT over time of repetition 0 (a
    study's report draws its own, laid out like the study's figures, and keeps only the bars here)."""
    if not all_figures:
        return ["bars"]
    kept = _kept_runs(data, c, factor, figures.few(c))
    return list(figures.SUMMARY_FIGURES) + (list(TIME_SERIES_FIGURES) if kept else [])


def condition_figure(data: CampaignData, c: ConditionResult, objective, factor: str, name: str) -> bytes:
    """Draws figure `name` (of figure_names) of condition `c`, writes it to
    plots/ and returns its PNG bytes."""
    if name in TIME_SERIES_FIGURES:
        fig = time_series_figure(name, _kept_runs(data, c, factor, figures.few(c)))
    else:
        fig = figures.summary_figure(data.runs, data.flows, c, objective, factor, name)
    return figures.save(fig, data.directory / "plots", f"{c.key}_{name}", data.figure_formats)


def condition_section(
    data: CampaignData, c: ConditionResult, objective, margin: float, factor: str, pngs: dict[str, bytes]
) -> str:
    """One condition's section, with its figures `pngs` (condition_figure's, by name, in page order)."""
    runs, flows = figures.condition_rows(data.runs, data.flows, c.levels)
    metric = METRICS[objective.metric]
    imgs = [figures.img_tag(png, name) for name, png in pngs.items()]
    several = bool((runs["flows"] > 1).any()) if "flows" in runs else False
    limited = group_notes(flows, factor) if factor in flows else []
    limits_html = (
        '<p class="note">Limited by a socket buffer, not the network (so these results say more about '
        "the buffers than the algorithm): " + "; ".join(_e(n) for n in limited) + ".</p>"
        if limited
        else ""
    )
    return (
        f'<h2 id="{c.key}">{_e(c.title)}</h2>'
        f'<div class="pick">{recommendation_html(c, objective, margin, factor)}</div>'
        f"{condition_table(c, objective, several, factor)}"
        f'<p class="note">Sorted by {_e(metric.label)}; cells: mean (95% CI, clipped at 0); "vs best": '
        "difference to the best with its 95% interval (paired by seed where the runs share seeds, else Welch); "
        "◆: on the Pareto front of goodput vs p95 RTT.</p>"
        f"{limits_html}"
        f'<div class="figs">{"".join(imgs)}</div>'
    )


def size_sections(data: CampaignData, factor: str) -> list[str]:
    """Goodput against each factor that varies a size (a path ending in 'size'), per other condition."""
    out = []
    for size_factor in [f for f in data.factors if f != factor and f.endswith("size")]:
        order = list(data.design["factors"][size_factor])
        others = [f for f in data.factors if f not in (factor, size_factor)]
        fig = figures.by_size(data.runs, factor, size_factor, order, others)
        name = "goodput_by_" + "".join(ch if ch.isalnum() else "_" for ch in size_factor)
        png = figures.save(fig, data.directory / "plots", name, data.figure_formats)
        out.append(f'<h2>Goodput against {_e(size_factor)}</h2><div class="figs">{figures.img_tag(png, name)}</div>')
    return out


#: In a process drawing figures: the campaign as the page's process read it (_use_campaign).
_campaign: CampaignData | None = None


def _use_campaign(data: CampaignData, parent_pid: int | None = None) -> None:
    """A figure process's start: the campaign to draw from; killed when the
    page's process dies (even by kill -9), as the run workers are
    (executors._die_with_parent), instead of drawing on as an orphan."""
    global _campaign
    _campaign = data
    if parent_pid is not None:
        from ccbench.campaigns.executors import _die_with_parent

        _die_with_parent(parent_pid)


def _figure_job(args) -> bytes:
    c, objective, factor, name = args
    return condition_figure(_campaign, c, OBJECTIVES[objective], factor, name)


def _sections(
    data: CampaignData, conditions: list[ConditionResult], objective: str, margin, factor, jobs: int, all_figures=True
):
    """The conditions' HTML sections, their figures drawn in `jobs` processes,
    one figure per task (a condition per task left a process idle while the
    other drew the last condition). Each process is given the campaign the
    rest of the page is built from (a forked process shares it as it is)
    instead of reading the directory again for each figure, which also drew a
    partial campaign, whose runs may grow meanwhile, from other runs than the
    page counts (so it was drawn here)."""
    obj = OBJECTIVES[objective]
    wanted = [(c, name) for c in conditions for name in figure_names(data, c, factor, all_figures)]
    if jobs <= 1 or len(wanted) <= 1:
        drawn = [condition_figure(data, c, obj, factor, name) for c, name in wanted]
    else:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(
            max_workers=min(jobs, len(wanted)), initializer=_use_campaign, initargs=(data, os.getpid())
        ) as pool:
            drawn = list(pool.map(_figure_job, [(c, objective, factor, name) for c, name in wanted]))
    pngs: dict[str, dict[str, bytes]] = {c.key: {} for c in conditions}
    for (c, name), png in zip(wanted, drawn):
        pngs[c.key][name] = png
    return [condition_section(data, c, obj, margin, factor, pngs[c.key]) for c in conditions]


def _confidence_cell(c: ConditionResult) -> str:
    if c.pick is None:
        return f"no pick: {c.no_pick or 'no data'}"
    return "decided" if c.decided else "undecided: " + ", ".join(c.undecided)


def _copies_note(data: CampaignData) -> str:
    """How many done runs are copies of their condition's first run (campaigns.repeats)."""
    copies = int(data.index["worker"].map(repeats.is_copy).sum()) if len(data.index) else 0
    if not copies:
        return ""
    return (
        f" ({copies} of them copies of their condition's first run, which drew no random number: "
        "such a condition gives the same result with every seed, so it was simulated once)"
    )


def design_html(data: CampaignData) -> str:
    d = data.design
    rows = "".join(
        f'<tr><td class="name">{_e(f)}</td><td class="wrap">{_e(", ".join(map(str, levels)))}</td></tr>'
        for f, levels in d["factors"].items()
    )
    status = data.index["status"].value_counts()
    reps = int(data.index["rep"].max()) + 1 if len(data.index) else d["repetitions"]  # with --until-decided
    excluded = "; ".join(", ".join(f"{k} = {v}" for k, v in rule.items()) for rule in d.get("excluded", [])) or "none"
    return (
        f'<table><thead><tr><th class="name">Factor</th><th class="name">Levels</th></tr></thead><tbody>{rows}</tbody>'
        f'</table><p class="note">{reps} repetitions per combination; excluded: {_e(excluded)}; '
        f"{len(data.index)} runs planned, {int(status.get('done', 0))} done, {int(status.get('failed', 0))} failed"
        + _copies_note(data)
        + ". "
        f"Run seeds: BLAKE2b of (campaign seed {d['seed']}, the run's levels, its repetition)"
        + (f", the same for every level of {_e(', '.join(d['common_seeds']))}" if d.get("common_seeds") else "")
        + ".</p>"
    )


METHOD = """<p class="note">Each run is one simulation (ccsim $version) with its own seed. Goodput: unique
payload bytes delivered in order over the flow's active time, averaged over the flows of a run; RTT from
every per-ACK sample (p95 = 95th percentile per flow, averaged over flows); retransmissions: retransmitted /
sent segments; Jain's index (Σx)²/(N·Σx²) over the flows' goodputs; power: goodput / p95 RTT.
Per condition the candidates are compared with the best on the objective ($objective: $description) by the 95%
confidence interval of the difference of means: paired (the t interval of the per-run differences) over the
runs that share a seed with the best's (common random numbers, as <code>common_seeds</code> gives: the
between-run spread cancels, and identical results are exactly tied), else Welch's for unpaired samples.
A practical-equivalence margin of $margin of the best
(never less than a small absolute floor per metric: 1 ms, 0.1 percentage points, 0.01 of Jain's index)
says what does not matter: <b>tied</b> means the whole interval lies inside ±margin (no practical
difference), <b>worse</b> that it lies beyond it, <b>undecided</b> that the data cannot tell yet, with the
repetitions likely to decide it (the interval narrows with the square root of the repetitions).
Ranks are dense over the table sorted by the objective. The pick is the best or one tied with it, preferring
in turn the best on $secondary (within the same margin). Tidy tables: <code>flows.parquet</code>,
<code>runs.parquet</code>; every run in <code>index.sqlite</code>; figures as PNG (and SVG when asked for) in
<code>plots/</code>.</p>"""


def partial_text(data: CampaignData, where: str = "DIR") -> str:
    """What a partial report says first: how many runs it is of, and the
    command that finishes the campaign (naming the directory as `where`)."""
    return (
        f"partial: {data.finished} of {data.planned} runs finished (the campaign was stopped, or is still running); "
        f"this report is of those runs only; finish the campaign with: {reproduce_command(data, where)}"
    )


def unfinished_conditions(data: CampaignData, factor: str, conditions: list[ConditionResult]) -> list[ConditionResult]:
    """Of a partial campaign, from the plan in its index: adds a note to each
    of `conditions` naming its candidates with no finished run yet, and
    returns the planned conditions with no finished run at all (in plan
    order), each without a pick."""
    others = [f for f in data.factors if f != factor]
    planned: dict[tuple, tuple[dict, list[str]]] = {}  # a condition's levels as text -> (levels, candidates)
    for text in data.index["levels"]:
        levels = json.loads(text)
        cond = {f: levels[f] for f in others}
        names = planned.setdefault(tuple(str(v) for v in cond.values()), (cond, []))[1]
        if str(levels[factor]) not in names:
            names.append(str(levels[factor]))
    for c in conditions:
        have = set(c.table["name"])
        missing = [n for n in planned.pop(tuple(str(v) for v in c.levels.values()), ({}, []))[1] if n not in have]
        if missing:
            c.notes.append(f"{NOT_FINISHED}: {', '.join(missing)}")
    return [
        ConditionResult(
            key=f"u{n}",
            title=", ".join(f"{f} = {v}" for f, v in levels.items()),
            levels=levels,
            table=pd.DataFrame(),
            pick=None,
            tied=[],
            undecided=[],
            reps=0,
            reps_needed=None,
            on_front=False,
            no_pick=NOT_FINISHED,
        )
        for n, (levels, _) in enumerate(planned.values())
    ]


def build(
    directory: str | Path,
    factor: str | None = None,
    objective: str | None = None,
    margin: float | None = None,
    jobs: int | None = None,
    svg: bool = False,
    on_partial: Callable[[CampaignData], None] = lambda data: None,
) -> Path:
    """Writes DIR/report.html, DIR/recommendations.json and DIR/plots/ (each
    figure as PNG, and as SVG too with `svg`) from the saved campaign in DIR;
    returns the report's path. `factor`, `objective` and `margin` default to
    the campaign file's [analysis] table, then to the factor that sets the
    congestion control, throughput and 5%. Of an unfinished campaign, the
    report is partial (see the module's doc); `on_partial` is then called
    with the campaign as read, so a caller can say what the page says.
    The conditions' figures are drawn in `jobs` processes (None: one per
    core, as a campaign runs). Never writes the tidy tables nor takes the
    directory's lock. Run files that do not match their hash in the index are
    never used: the report is refused, naming them (integrity.DamagedRunsError);
    an sqlite3 or filesystem error is one CampaignDirectoryError."""
    try:
        return _build(directory, factor, objective, margin, jobs, svg, on_partial)
    except (sqlite3.Error, OSError) as e:
        where = Path(directory) / storage.INDEX if isinstance(e, sqlite3.Error) else Path(directory)
        raise integrity.explain(e, where) from None


def _build(
    directory: str | Path,
    factor: str | None,
    objective: str | None,
    margin: float | None,
    jobs: int | None,
    svg: bool,
    on_partial: Callable[[CampaignData], None],
) -> Path:
    from ccbench.file_modes import atomic_write_bytes
    from ccbench.run_files import json_bytes

    data = load_campaign(directory)
    data.figure_formats = ("png", "svg") if svg else ("png",)
    conf = data.design.get("analysis", {})
    objective_given = objective is not None
    objective = objective or conf.get("objective", analysis.DEFAULT_OBJECTIVE)
    margin = margin if margin is not None else conf.get("margin", analysis.DEFAULT_MARGIN)
    factor = factor or conf.get("compare")
    if objective not in OBJECTIVES:
        raise ValueError(f"objective {objective!r}: one of {', '.join(OBJECTIVES)}")
    if factor is not None and factor not in data.factors:
        raise ValueError(f"factor {factor!r} is not a factor of this campaign: {', '.join(data.factors)}")
    obj = OBJECTIVES[objective]
    if data.runs.empty:
        raise ValueError(
            f"{data.directory}: no finished run to report on ({data.planned} runs planned); "
            f"run them with: {reproduce_command(data, str(data.directory))}"
        )
    if objective == "fairness" and "flows" in data.runs:
        given = "--objective" if objective_given else "analysis.objective"
        check_fairness(data.runs["flows"].tolist(), given)
    factor, conditions = analysis.analyze(data.runs, data.factors, data.level_order(), factor, objective, margin)
    waiting = unfinished_conditions(data, factor, conditions) if data.partial else []
    names = data.design.get("level_names", {})
    words = factor_words(data.factors)
    for c in conditions + waiting:
        c.title = ", ".join(names.get(f, {}).get(str(v)) or f"{words[f]} {v}" for f, v in c.levels.items()) or c.title
    from ccbench.campaigns import study_report

    with figures.replacing(data.directory / "plots"):  # no figure of an earlier report stays beside these
        study = study_report.section(data)
        sections = [study] if study else []
        from ccbench.campaigns.answer import html_section  # `ccbench recommend`'s answer, when it is one

        sections += [s for s in (html_section(data.directory),) if s]
        from ccbench.campaigns.runner import default_jobs

        jobs = jobs or default_jobs()
        sections += _sections(data, conditions, objective, margin, factor, jobs, all_figures=not study)
        sections += [
            f'<h2 id="{c.key}">{_e(c.title)}</h2><p class="note">No pick: {NOT_FINISHED} under these conditions.</p>'
            for c in waiting
        ]
        sections += size_sections(data, factor)
    rows = "".join(
        f'<tr><td class="name"><a href="#{c.key}">{_e(c.title)}</a></td><td class="name">{_e(c.pick or "–")}</td>'
        f'<td class="wrap">{_e(", ".join(c.tied) or "–")}</td>'
        f'<td class="wrap">{_e(_confidence_cell(c))}</td></tr>'
        for c in conditions + waiting
    )
    summary = (
        f'<table><thead><tr><th class="name">Conditions</th><th class="name">Pick</th>'
        f'<th class="name">No practical difference</th><th class="name">Confidence</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>"
    )
    reproduce = (
        f'<p class="note">Rerun (or resume) with <code>{_e(reproduce_command(data))}</code>, DIR being the '
        f"directory of this page; rebuild this page from the saved results with <code>ccbench report DIR</code>. "
        f"The campaign file (DIR/{_e(data.meta.get('campaign_file', 'campaign.toml'))}):</p>"
        f'<pre class="campaign">{_e(data.text)}</pre>'
    )
    secondary = " then ".join(METRICS[s].label for s in obj.secondary)
    page = Template(TEMPLATE.read_text(encoding="utf-8")).substitute(
        title=_e(f"ccbench campaign: {data.name}"),
        partial=f'<p class="partial">{_e(partial_text(data))}</p>' if data.partial else "",
        subtitle=_e(
            f"{len(data.runs)} runs; compared: {factor}; objective: {objective} ({obj.description}); "
            f"margin {margin:.0%}"
        ),
        summary=summary,
        design=design_html(data),
        sections="\n".join(sections),
        method=Template(METHOD).substitute(
            version=_e(data.meta.get("ccbench_version", "?")),
            objective=_e(objective),
            description=_e(obj.description),
            margin=f"{margin:.0%}",
            secondary=_e(secondary),
        ),
        reproduce=reproduce,
    )
    recs = [
        {
            "condition": c.key,
            "title": c.title,
            "levels": {k: (v.item() if hasattr(v, "item") else v) for k, v in c.levels.items()},
            "pick": c.pick,
            "tied": c.tied,
            "undecided": c.undecided,
            "decided": c.decided,
            "no_pick": c.no_pick,
            "repetitions": c.reps,
            "repetitions_to_decide": c.reps_needed,
            "objective": objective,
            "margin": margin,
            "factor": factor,
            "candidates": _candidates(c.table),
        }
        for c in conditions + waiting
    ]
    if data.partial and not _still_unfinished(data.directory):
        # The campaign finished while this page was drawn, and writes (or wrote) its own report:
        # draw that one instead of overwriting it (and the figures in plots/) with this one.
        return _build(directory, factor, objective if objective_given else None, margin, jobs, svg, on_partial)
    if data.partial:
        on_partial(data)
    atomic_write_bytes(data.directory / "recommendations.json", json_bytes(recs))
    path = data.directory / "report.html"
    atomic_write_bytes(path, page.encode("utf-8"))
    return path


def _still_unfinished(directory: Path) -> bool:
    """Whether the index still has a run to finish (read again: a campaign may be running)."""
    with storage.Index(directory) as idx:
        return any(idx.count(s) for s in storage.UNFINISHED)


def reproduce_command(data, where: str = "DIR") -> str:
    """The command that reruns (or resumes) the campaign of a directory
    (named `where`: DIR on the page) from the campaign file saved in it: with
    --quick for a quick form; from Python for a campaign given as a dict
    (saved as campaign.json); `ccbench compare` with its options for its
    campaign."""
    from ccbench.compare import rerun_command

    if command := rerun_command(data.text):
        return f"{command.removesuffix(' --out DIR')} --out {shlex.quote(where)}"
    if data.meta.get("campaign_file") == "campaign.json":
        return f"ccbench.campaign(json.load(open({json.dumps(where + '/campaign.json')})), out={json.dumps(where)})"
    return f"ccbench campaign {shlex.quote(where + '/campaign.toml')} --out {shlex.quote(where)}" + (
        " --quick" if data.text.endswith(QUICK_NOTE) else ""
    )


#: A candidate's numbers in recommendations.json: the objective's metric (mean, its 95% interval
#: low..high, n, the verdict against the best), then each metric's mean (analysis.TABLE_METRICS).
CANDIDATE_KEYS = ("n", "mean", "low", "high", "verdict", "rank", "pareto")


def _candidates(table: pd.DataFrame) -> list[dict]:
    """Each candidate of a condition, best first: its name, the objective's
    mean with its 95% interval, n, verdict and rank, and the mean of every
    metric the report's table shows."""
    if table is None or table.empty:
        return []
    metrics = [m for m in (*TABLE_METRICS, "goodput_bps") if m in table.columns]
    keys = [k for k in CANDIDATE_KEYS if k in table.columns] + list(dict.fromkeys(metrics))
    return [{"name": str(r["name"]), **{k: r[k] for k in keys}} for r in table.to_dict("records")]


def recommendations(directory: str | Path) -> list[dict]:
    return json.loads((Path(directory) / "recommendations.json").read_text(encoding="utf-8"))
