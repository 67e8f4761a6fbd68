"""How a run's Result and a loaded campaign show themselves in Jupyter
(`_repr_html_`): what ran and its main numbers, in the units of the tables
and the report, never the whole of a table; and a campaign's report figures
in memory (campaign_figure)."""

from __future__ import annotations

import html

#: Per-flow columns shown (in a Result's flows table and a campaign's), with their decimals; label,
#: unit and scale are the campaign analysis's (analysis.METRICS).
FLOW_COLUMNS = (("goodput_bps", 3), ("rtt_mean_ms", 1), ("rtt_p95_ms", 1), ("retrans_pct", 2))
#: At most this many rows of a table are shown.
MAX_ROWS = 20


def _table(frame, keys: list[str]) -> str:
    from ccbench.campaigns.analysis import METRICS

    shown = [(METRICS[c], decimals) for c, decimals in FLOW_COLUMNS if c in frame.columns]
    head = "".join(f"<th>{html.escape(k)}</th>" for k in keys)
    head += "".join(f"<th>{html.escape(f'{m.label} ({m.unit})')}</th>" for m, _ in shown)
    rows = []
    for _, row in frame.head(MAX_ROWS).iterrows():
        cells = "".join(f"<td>{html.escape(str(row[k]))}</td>" for k in keys)
        cells += "".join(
            f"<td>{row[m.column] * m.scale:.{d}f}</td>" if row[m.column] == row[m.column] else "<td>&ndash;</td>"
            for m, d in shown
        )
        rows.append(f"<tr>{cells}</tr>")
    more = f"<p>... {len(frame) - MAX_ROWS} more rows</p>" if len(frame) > MAX_ROWS else ""
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>{more}"


def result_html(r) -> str:
    """A run: what ran (scenario.summary) and one row per flow."""
    from ccbench.scenario import summary

    scenario = r.meta.get("scenario")
    title = html.escape(summary(scenario) if scenario else "a run without a scenario")
    keys = [k for k in ("flow", "cc") if k in r.flows.columns]
    return (
        f"<div><b>ccbench.Result</b>: {title}{_table(r.flows, keys)}"
        "<p><code>.flows</code>, <code>.series</code>, <code>.rtt</code>, <code>.links</code>: the tables; "
        "<code>.plot('cwnd')</code>: a figure (cwnd, rtt, goodput, rtt_cdf, links)</p></div>"
    )


def campaign_html(c) -> str:
    """A campaign: its design, how far it got, and the mean per condition."""
    factors = c.factors
    part = f" (partial: {c.finished} of {c.planned} runs finished)" if c.partial else f" ({c.planned} runs)"
    design = "".join(
        f"<li><code>{html.escape(f)}</code>: {html.escape(', '.join(map(str, levels)))}</li>"
        for f, levels in c.design["factors"].items()
    )
    flows = c.flows
    keys = [f for f in factors if f in flows.columns]
    means = flows.groupby(keys, sort=False).mean(numeric_only=True).reset_index() if keys else flows.head(0)
    return (
        f"<div><b>ccbench campaign</b> {html.escape(c.name)}{html.escape(part)}<ul>{design}</ul>"
        f"<p>Mean over runs and flows, per condition:</p>{_table(means, keys)}"
        "<p><code>.flows</code>, <code>.runs</code>, <code>.index</code>: the tables</p></div>"
    )


def campaign_figure(c, name: str = "bars", condition: int = 0, objective: str | None = None):
    """The report's figure `name` (bars, plane, cdfs: figures.SUMMARY_FIGURES)
    of condition number `condition` (in the report's order) of a loaded
    campaign `c`, under `objective` (default: the campaign file's), as a
    matplotlib Figure."""
    from ccbench.campaigns import analysis, figures

    if name not in figures.SUMMARY_FIGURES:
        raise ValueError(f"figure {name!r}: one of {', '.join(figures.SUMMARY_FIGURES)}")
    conf = c.design.get("analysis", {})
    objective = objective or conf.get("objective", analysis.DEFAULT_OBJECTIVE)
    if objective not in analysis.OBJECTIVES:
        raise ValueError(f"objective {objective!r}: one of {', '.join(analysis.OBJECTIVES)}")
    margin = conf.get("margin", analysis.DEFAULT_MARGIN)
    factor, conditions = analysis.analyze(c.runs, c.factors, c.level_order(), conf.get("compare"), objective, margin)
    if not 0 <= condition < len(conditions):
        raise ValueError(f"condition {condition}: the campaign has {len(conditions)} (0 to {len(conditions) - 1})")
    chosen = conditions[condition]
    return figures.summary_figure(c.runs, c.flows, chosen, analysis.OBJECTIVES[objective], factor, name)
