"""How a run's Result and a loaded campaign show themselves in Jupyter
(`_repr_html_`): what ran and its main numbers, in the units of the tables
and the report, never the whole of a table."""

from __future__ import annotations

import html

#: Per-flow columns shown (in a Result's flows table and a campaign's): (column, heading, scale, format).
FLOW_COLUMNS = (
    ("goodput_bps", "goodput (Mbit/s)", 1e-6, "{:.3f}"),
    ("rtt_mean_ms", "mean RTT (ms)", 1, "{:.1f}"),
    ("rtt_p95_ms", "p95 RTT (ms)", 1, "{:.1f}"),
    ("retrans_pct", "retransmitted (%)", 1, "{:.2f}"),
)
#: At most this many rows of a table are shown.
MAX_ROWS = 20


def _table(frame, keys: list[str]) -> str:
    shown = [c for c in FLOW_COLUMNS if c[0] in frame.columns]
    head = "".join(f"<th>{html.escape(k)}</th>" for k in keys) + "".join(f"<th>{h}</th>" for _, h, _, _ in shown)
    rows = []
    for _, row in frame.head(MAX_ROWS).iterrows():
        cells = "".join(f"<td>{html.escape(str(row[k]))}</td>" for k in keys)
        cells += "".join(
            f"<td>{fmt.format(row[c] * scale) if row[c] == row[c] else '&ndash;'}</td>" for c, _, scale, fmt in shown
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
