"""A run's standard figures, by name: drawn from a Result (in memory, or read
back from a saved run), for `ccbench run --plots`, `ccbench plot DIR` and
`Result.plot` alike."""

from __future__ import annotations

from pathlib import Path

#: A run's plots, by name (the saved files' names without their extension).
RUN_PLOTS = ("cwnd", "rtt", "goodput", "rtt_cdf", "links")


def figure(r, name: str, window_s: float = 0.5):
    """The matplotlib figure `name` (one of RUN_PLOTS) of Result `r`; rates
    are means over windows of `window_s`."""
    from ccbench import plots

    if name not in RUN_PLOTS:
        raise ValueError(f"plot {name!r}: one of {', '.join(RUN_PLOTS)}")
    if (r.meta.get("scenario") or {}).get("record", {}).get("rtt_samples") == "none":
        no_rtt = 'no per-ACK RTT sample kept: record.rtt_samples = "none"\n(the flows table has the RTT statistics)'
    else:
        no_rtt = "no RTT sample: no ACK came back"
    if name == "cwnd":
        return plots.cwnd_over_time(r.series, r.flows)
    if name == "rtt":
        return plots.rtt_over_time(r.rtt, r.flows, empty=no_rtt)
    if name == "goodput":
        return plots.rate_over_time(r.series, r.flows, window_s, links=r.links)
    if name == "rtt_cdf":
        # Background transfers have RTT samples but no row in the flows table.
        groups = {plots.flow_label(r.flows, k): g["rtt_ms"].to_numpy() for k, g in r.rtt.groupby("flow", sort=True)}
        return plots.cdf(groups, "RTT (ms)", "CDF of per-ACK RTT", empty=no_rtt)
    return plots.links_over_time(r.link_series, window_s)


def write(
    r, out: Path, window_s: float = 0.5, formats: tuple[str, ...] = ("png",), only: tuple[str, ...] = RUN_PLOTS
) -> list[Path]:
    """The plots of `r` named in `only` as files OUT/NAME.FORMAT, in the order of RUN_PLOTS."""
    from ccbench import plots

    return [
        plots.save_figure(figure(r, name, window_s), out / f"{name}.{fmt}")
        for name in RUN_PLOTS
        if name in only
        for fmt in formats
    ]
