"""A run's standard figures, by name: drawn from a Result (in memory, or read
back from a saved run), for `ccbench run --plots`, `ccbench plot DIR` and
`Result.plot` alike. A new figure of a run is one entry of `_DRAW` (the
drawing primitives are in ccbench.plots)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path


def _no_rtt(r) -> str:
    if (r.meta.get("scenario") or {}).get("record", {}).get("rtt_samples") == "none":
        return 'no per-ACK RTT sample kept: record.rtt_samples = "none"\n(the flows table has the RTT statistics)'
    return "no RTT sample: no ACK came back"


def _cwnd(r, window_s: float):
    from ccbench import plots

    return plots.cwnd_over_time(r.series, r.flows)


def _rtt(r, window_s: float):
    from ccbench import plots

    return plots.rtt_over_time(r.rtt, r.flows, empty=_no_rtt(r))


def _goodput(r, window_s: float):
    from ccbench import plots

    return plots.rate_over_time(r.series, r.flows, window_s, links=r.links)


def _rtt_cdf(r, window_s: float):
    from ccbench import plots

    # Background transfers have RTT samples but no row in the flows table.
    groups = {plots.flow_label(r.flows, k): g["rtt_ms"].to_numpy() for k, g in r.rtt.groupby("flow", sort=True)}
    return plots.cdf(groups, "RTT (ms)", "CDF of per-ACK RTT", empty=_no_rtt(r))


def _links(r, window_s: float):
    from ccbench import plots

    return plots.links_over_time(r.link_series, window_s)


#: Each plot's name (its saved file's name without the extension) and how it is drawn from a
#: Result, with rates as means over windows of `window_s`.
_DRAW: dict[str, Callable] = {"cwnd": _cwnd, "rtt": _rtt, "goodput": _goodput, "rtt_cdf": _rtt_cdf, "links": _links}
#: A run's plots, by name, in the order they are written.
RUN_PLOTS = tuple(_DRAW)


def figure(r, name: str, window_s: float = 0.5):
    """The matplotlib figure `name` (one of RUN_PLOTS) of Result `r`; rates
    are means over windows of `window_s`."""
    if name not in _DRAW:
        raise ValueError(f"plot {name!r}: one of {', '.join(RUN_PLOTS)}")
    return _DRAW[name](r, window_s)


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
