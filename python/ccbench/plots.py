"""Plots (matplotlib, Agg backend; PNG or SVG), drawn only from saved results.

Per run: cwnd/ssthresh over time, RTT over time, goodput over time per
flow with the capacity of each flow's bottleneck, CDFs of RTT; queue and
delivered rate over time of every link. Per campaign: bars per algorithm
with 95% CI error bars, goodput against delay, CDFs of goodput, rate over
time of chosen runs.
Every function takes tables and returns a matplotlib Figure; `save_figure`
and `figure_bytes` write it as PNG or SVG (vector, for papers), with fixed
metadata so the same data gives the same bytes. Legends sit outside the
axes, so they never cover data, and name each flow with its algorithm.
"""

from __future__ import annotations

import io
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

DPI = 90
#: No timestamp or software tag in the files, fixed SVG ids: identical data, identical files.
SVG_METADATA = {"Date": None, "Creator": None}
#: zlib level of the PNGs: 3 compresses a figure's RGB pixels a little better than matplotlib's
#: level 6 does its RGBA ones, in two thirds of the time.
PNG_COMPRESS_LEVEL = 3
#: No creation date or producer in a PDF either, for the same reason.
PDF_METADATA = {"CreationDate": None, "Producer": None, "Creator": None}
plt.rcParams["svg.hashsalt"] = "ccbench"
#: The file formats a figure can be written as.
FORMATS = ("png", "svg", "pdf")


def figure_bytes(fig, fmt: str = "png", close: bool = True) -> bytes:
    """The figure as a PNG, SVG or PDF file's bytes; `close` frees the figure."""
    if fmt not in FORMATS:
        raise ValueError(f"plot format {fmt!r}: one of {', '.join(FORMATS)}")
    buf = io.BytesIO()
    if fmt == "png":
        _png_one_draw(fig, buf)
    elif fmt == "pdf":
        fig.savefig(buf, format="pdf", metadata=PDF_METADATA)
    else:
        fig.savefig(buf, format="svg", metadata=SVG_METADATA)
    if close:
        plt.close(fig)
    return buf.getvalue()


def _png_one_draw(fig, buf) -> None:
    """The picture fig.savefig(buf, format="png", dpi=DPI) writes, in one
    draw instead of two: savefig draws a figure with a layout engine
    (constrained layout) once to lay it out and once more to render it; the
    canvas's own draw lays out and renders in one pass. Written without a
    software tag and, as every pixel of a figure is opaque (unless it was
    given a transparent background), without the alpha channel, at
    PNG_COMPRESS_LEVEL: the same pixels, in a file 6-9% smaller, in about
    60% of the encoding time."""
    from PIL import Image

    dpi = fig.dpi
    fig.set_dpi(DPI)
    try:
        fig.canvas.draw()
        image = Image.fromarray(np.asarray(fig.canvas.buffer_rgba()))
        if image.getextrema()[3] == (255, 255):
            image = image.convert("RGB")
        image.save(buf, format="png", dpi=(DPI, DPI), compress_level=PNG_COMPRESS_LEVEL)
    finally:
        fig.set_dpi(dpi)


def png_bytes(fig) -> bytes:
    return figure_bytes(fig, "png")


def save_figure(fig, path: str | Path) -> Path:
    """Writes the figure in the format its file name ends with (.png, .svg or .pdf)."""
    from ccbench.file_modes import atomic_write_bytes

    path = Path(path)
    atomic_write_bytes(path, figure_bytes(fig, path.suffix.lstrip(".").lower()))
    return path


def save_png(fig, path: str | Path) -> Path:
    return save_figure(fig, path)


def legend_outside(ax, **kwargs) -> None:
    """The legend to the right of the axes, where it covers no data; none
    when nothing labelled was drawn (a run whose flows delivered nothing)."""
    if not ax.get_legend_handles_labels()[0]:
        return
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, frameon=False, **kwargs)


def flow_label(flows: pd.DataFrame, fid: int) -> str:
    """ "flow 3 (cubic)"; a flow without a row in `flows` (a background transfer) is "flow 3"."""
    row = flows[flows["flow"] == fid]
    return f"flow {fid} ({row['cc'].iloc[0]})" if len(row) else f"flow {fid}"


def set_title(ax, title: str, fontsize: float = 10, names_on_y: bool = False) -> None:
    """The axes' title, wrapped at the figure's edges instead of running off
    them (a campaign's condition names make long titles). `names_on_y`: the
    y tick labels are names, so the y axis has no offset text ("1e6") for
    the title to clear: it is placed where matplotlib would place it, without
    matplotlib measuring every y tick label again on each layout pass to find
    that out (a fifth of drawing a figure with a name per row)."""
    ax.set_title(title, fontsize=fontsize, wrap=True, y=1.0 if names_on_y else None)


def _time_figure(title: str, ylabel: str, width: float = 8, height: float = 3.2):
    fig, ax = plt.subplots(figsize=(width, height), layout="constrained")
    set_title(ax, title)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    return fig, ax


def cwnd_over_time(series: pd.DataFrame, flows: pd.DataFrame, title: str = "Congestion window"):
    """cwnd (solid) and ssthresh (dashed, where set) in segments, per flow:
    one legend entry per flow (its colour), two for the line styles."""
    fig, ax = _time_figure(title, "segments")
    for i, (fid, s) in enumerate(series.groupby("flow", sort=True)):
        color = f"C{i % 10}"
        ax.plot(s["t"], s["cwnd"], color=color, lw=1, label=flow_label(flows, fid))
        ax.plot(s["t"], s["ssthresh"], color=color, lw=0.8, ls="--")
    if len(series):
        ax.plot([], [], color="0.3", lw=1, label="cwnd (solid)")
        ax.plot([], [], color="0.3", lw=0.8, ls="--", label="ssthresh (dashed)")
        legend_outside(ax, fontsize=7)
    return fig


def say_empty(ax, text: str) -> None:
    """Writes `text` (why there is nothing to draw) in the middle of empty axes."""
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", fontsize=9, color="0.3")


def rtt_over_time(
    rtt: pd.DataFrame, flows: pd.DataFrame, title: str = "RTT (per-ACK samples)", empty: str = "no RTT sample"
):
    """The per-ACK RTT samples, a colour per flow; without any, `empty` says why."""
    fig, ax = _time_figure(title, "RTT (ms)")
    for i, (fid, s) in enumerate(rtt.groupby("flow", sort=True)):
        ax.plot(s["t"], s["rtt_ms"], ".", ms=1.5, color=f"C{i % 10}", label=flow_label(flows, fid))
    if len(rtt):
        legend_outside(ax, fontsize=7, markerscale=5)
    else:
        say_empty(ax, empty)
    return fig


def smooth_rate(
    s: pd.DataFrame, column: str, window_s: float, span: tuple[float, float] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """A flow's mean rate (bit/s) over consecutive windows of `window_s`, from its
    cumulative byte counter `column` (delivered_bytes or bytes_sent): the
    windows cover its samples, or `span` (start, end) if given, so that flows
    sampled over different times share one grid (outside its samples a flow's
    rate is 0)."""
    t = s["t"].to_numpy(dtype=float)
    c = s[column].to_numpy(dtype=float)
    if t.size < 2:
        return np.empty(0), np.empty(0)
    start, end = span if span is not None else (t[0], t[-1])
    edges = np.arange(start, end + 1e-9, window_s)
    if edges.size < 2:
        edges = np.array([start, end])
    at = np.interp(edges, t, c)
    return edges[1:], np.diff(at) * 8.0 / np.diff(edges)


def window_text(window_s: float) -> str:
    """A window length as a label shows it: "100 ms", "0.5 s", "2 s"."""
    return f"{window_s * 1000:g} ms" if window_s < 0.5 else f"{window_s:g} s"


def rate_over_time(
    series: pd.DataFrame,
    flows: pd.DataFrame,
    window_s: float = 0.5,
    title: str = "Goodput over time",
    links: pd.DataFrame | None = None,
):
    """Goodput per flow: the bytes delivered in order to the receiving
    application, averaged over consecutive windows of `window_s`. A window in
    which a repaired loss releases the data held behind it can show more than
    the link's rate; the dashed line is the payload capacity of each flow's
    bottleneck (`links`: the links table, with `flows["link"]`) to read that
    against."""
    fig, ax = _time_figure(
        f"{title}: in-order delivery at the receiver, mean per {window_text(window_s)}", "goodput (Mbit/s)"
    )
    for i, (fid, s) in enumerate(series.groupby("flow", sort=True)):
        t, r = smooth_rate(s, "delivered_bytes", window_s)
        ax.plot(t, r / 1e6, color=f"C{i % 10}", lw=1.2, label=flow_label(flows, fid))
    capacities = bottleneck_capacities(flows, links) if links is not None else {}
    for name, bps in capacities.items():
        if np.isfinite(bps):
            _capacity_line(ax, name, bps)
    ax.set_ylim(bottom=0)
    if ax.get_legend_handles_labels()[0]:
        legend_outside(ax, fontsize=7)
    return fig


def links_over_time(link_series: pd.DataFrame, window_s: float = 0.5, title: str = "Links"):
    """Per link (in the links table's order): queued packets (top) and the
    delivered rate over windows of `window_s` (bottom)."""
    fig, (queue, rate) = plt.subplots(2, 1, figsize=(8, 5.2), sharex=True, layout="constrained")
    set_title(queue, title)
    queue.set_ylabel("queue (packets)")
    rate.set_ylabel("delivered (Mbit/s)")
    rate.set_xlabel("time (s)")
    for ax in (queue, rate):
        ax.grid(True, alpha=0.3)
    names = list(dict.fromkeys(link_series["link"])) if len(link_series) else []
    for i, name in enumerate(names):
        s = link_series[link_series["link"] == name]
        color = f"C{i % 10}"
        queue.plot(s["t"], s["queue_packets"], color=color, lw=1, label=name)
        t, r = smooth_rate(s, "delivered_bytes", window_s)
        rate.plot(t, r / 1e6, color=color, lw=1.2, label=name)
    rate.set_ylim(bottom=0)
    if names:
        legend_outside(queue, fontsize=7)
    return fig


def ecdf(values) -> tuple[np.ndarray, np.ndarray]:
    x = np.sort(np.asarray(values, dtype=float)[np.isfinite(np.asarray(values, dtype=float))])
    return x, np.arange(1, x.size + 1) / max(x.size, 1)


def step_cdf(ax, values, **line) -> None:
    """The empirical CDF of `values` as a step line that rises from 0 at the
    smallest value, so the axis starts at 0 as a CDF's does (drawn from the
    first sample on, a CDF of 6 flows started at 1/6)."""
    x, y = ecdf(values)
    ax.step(np.r_[x[:1], x], np.r_[np.zeros(min(x.size, 1)), y], where="post", **line)


def cdf(groups: dict[str, np.ndarray], xlabel: str, title: str, empty: str = "no data"):
    """Empirical CDFs, one line per group; without any group, `empty` says why."""
    fig, ax = plt.subplots(figsize=(5.8, 3.4), layout="constrained")
    for i, (name, v) in enumerate(groups.items()):
        step_cdf(ax, v, lw=1.2, color=f"C{i % 10}", ls="-" if i < 10 else "--", label=str(name))
    ax.set_xlabel(xlabel)
    ax.set_ylabel("fraction")
    set_title(ax, title)
    ax.grid(True, alpha=0.3)
    if groups:
        legend_outside(ax, fontsize=6, ncol=2 if len(groups) > 8 else 1)
    else:
        say_empty(ax, empty)
    return fig


def bars(
    table: pd.DataFrame, label: str, mean: str, ci: str, ylabel: str, title: str, highlight: set[str] = frozenset()
):
    """Horizontal bars per algorithm (rows of `table` in order) with 95% CI
    error bars; highlighted names drawn in the accent colour."""
    n = len(table)
    fig, ax = plt.subplots(figsize=(5.9, 0.9 + 0.22 * n), layout="constrained")
    y = np.arange(n)[::-1]
    colors = ["#1f77b4" if name in highlight else "#b0b8c4" for name in table[label]]
    err = np.nan_to_num(table[ci].to_numpy(dtype=float))
    ax.barh(y, table[mean], xerr=err, color=colors, capsize=2, error_kw={"lw": 0.8})
    ax.set_yticks(y, table[label], fontsize=7)
    ax.set_xlabel(ylabel)
    set_title(ax, title, names_on_y=True)
    ax.grid(True, axis="x", alpha=0.3)
    return fig


def _spread_labels(xs, ys, min_gap: float = 0.09) -> list[bool]:
    """Which points get a text label: greedily, in the given order, skip a
    point closer than `min_gap` (in axes fractions) to one already labelled.
    A point without both coordinates (NaN: not drawn) gets none."""
    x = np.asarray(xs, dtype=float)
    y = np.asarray(ys, dtype=float)
    drawn = np.isfinite(x) & np.isfinite(y)
    if not drawn.any():
        return [False] * len(x)
    span = lambda v: (v.max() - v.min()) or 1.0  # noqa: E731
    fx, fy = (x - x[drawn].min()) / span(x[drawn]), (y - y[drawn].min()) / span(y[drawn])
    placed: list[tuple[float, float]] = []
    keep = []
    for a, b, on in zip(fx, fy, drawn):
        ok = bool(on) and all(abs(a - pa) > min_gap or abs(b - pb) > min_gap / 2 for pa, pb in placed)
        keep.append(ok)
        if ok:
            placed.append((a, b))
    return keep


def label_groups(xs, ys, min_gap: float = 0.09) -> list[list[int]]:
    """Every drawn point named, without labels on top of each other: the
    points `_spread_labels` labels each carry a group, itself first and then
    every point it left unlabelled that lies nearest to it (in axes
    fractions), so a cluster of tied candidates is named in one label.
    Element i is the indices point i's label names ([] for no label)."""
    x = np.asarray(xs, dtype=float)
    y = np.asarray(ys, dtype=float)
    keep = _spread_labels(x, y, min_gap)
    groups: list[list[int]] = [[i] if k else [] for i, k in enumerate(keep)]
    placed = [i for i, k in enumerate(keep) if k]
    if not placed:
        return groups
    drawn = np.isfinite(x) & np.isfinite(y)
    span = lambda v: (v.max() - v.min()) or 1.0  # noqa: E731
    fx, fy = (x - x[drawn].min()) / span(x[drawn]), (y - y[drawn].min()) / span(y[drawn])
    for i in np.flatnonzero(drawn):
        if not keep[i]:
            nearest = min(placed, key=lambda j: (fx[i] - fx[j]) ** 2 + (fy[i] - fy[j]) ** 2)
            groups[nearest].append(int(i))
    return groups


def group_label(names: list[str], width: int = 36) -> str:
    """A group's names, comma-separated and wrapped at `width` characters."""
    import textwrap

    return "\n".join(textwrap.wrap(", ".join(names), width)) if names else ""


def annotate_group(ax, x: float, y: float, names: list[str], bold: bool = False) -> None:
    """The label of a point naming `names` (label_groups): the name beside
    the point; for a group, its first name and how many more ("bic +17"),
    with the whole group in a legend entry (the caller draws the legend), so
    a crowd of tied candidates is named without text on top of text."""
    text = names[0] if len(names) == 1 else f"{names[0]} +{len(names) - 1}"
    ax.annotate(
        text,
        (x, y),
        fontsize=6.5,
        xytext=(3, 2),
        textcoords="offset points",
        fontweight="bold" if bold else "normal",
    )
    if len(names) > 1:
        ax.plot([], [], " ", label=f"{text}:\n{group_label(names, 30)}")


def tradeoff(
    table: pd.DataFrame,
    label: str,
    x: str,
    y: str,
    xlabel: str,
    ylabel: str,
    title: str,
    highlight: set[str] = frozenset(),
):
    """One point per algorithm: delay (x) against goodput (y). Highlighted
    names first; points too close to label apart are named together in the
    label of the nearest labelled one (label_groups)."""
    order = sorted(range(len(table)), key=lambda i: table[label].iloc[i] not in highlight)
    t = table.iloc[order]
    fig, ax = plt.subplots(figsize=(5.9, 4), layout="constrained")
    names = list(t[label])
    groups = label_groups(t[x], t[y])
    for name, xv, yv in zip(names, t[x], t[y]):
        hot = name in highlight
        ax.plot(xv, yv, "o", ms=5 if hot else 4, color="#1f77b4" if hot else "#8a94a3")
    for (name, xv, yv), group in zip(zip(names, t[x], t[y]), groups):
        if group:
            annotate_group(ax, xv, yv, [names[i] for i in group], name in highlight)
    if ax.get_legend_handles_labels()[0]:
        legend_outside(ax, fontsize=6.5)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    set_title(ax, title)
    ax.grid(True, alpha=0.3)
    return fig


#: A rate over time is drawn with at least this many windows.
MIN_WINDOWS = 20


def runs_rate_over_time(
    runs: dict[str, pd.DataFrame],
    window_s: float,
    title: str,
    what: str = "goodput",
    capacities: dict[str, float] | None = None,
):
    """Goodput (or `what` = "throughput": payload sent, retransmissions
    included) over time of one run per algorithm, all flows of the run summed;
    `capacities` (link name -> payload capacity in bit/s) are drawn as dashed
    lines, as in a run's goodput plot, to read the rates against."""
    from ccbench.metrics import RATE_COUNTERS

    # The flows of a run are summed on one grid from its first sample to its
    # last (a flow that starts later is sampled from its start); the window is
    # shortened for runs too short to show `window_s` means (a quick study's
    # transfers end within two seconds).
    spans = {name: (s["t"].min(), s["t"].max()) for name, s in runs.items() if len(s)}
    longest = max((b - a for a, b in spans.values()), default=0.0)
    window = min(window_s, float(f"{longest / MIN_WINDOWS:.2g}")) if longest > 0 else window_s
    fig, ax = _time_figure(title, f"{what} (Mbit/s, {window_text(window)} means)", width=6.8, height=3.4)
    for i, (name, series) in enumerate(runs.items()):
        total_t, total_r = None, None
        for _, s in series.groupby("flow", sort=True):
            t, r = smooth_rate(s, RATE_COUNTERS[what], window, spans[name])
            if t.size:
                total_t, total_r = t, r if total_r is None else total_r + r
        if total_t is not None:
            ax.plot(total_t, total_r / 1e6, lw=1.2, color=f"C{i % 10}", label=name)
    for link, bps in (capacities or {}).items():
        if np.isfinite(bps):
            _capacity_line(ax, link, bps)
    ax.set_ylim(bottom=0)
    if runs:
        legend_outside(ax, fontsize=7)
    return fig


def _capacity_line(ax, link: str, bps: float) -> None:
    ax.axhline(bps / 1e6, color="0.25", lw=0.9, ls="--", label=f"{link} payload capacity {bps / 1e6:.3g} Mbit/s")


def bottleneck_capacities(flows: pd.DataFrame, links: pd.DataFrame) -> dict[str, float]:
    """Payload capacity (bit/s) of each link the flows name as their bottleneck (`flows["link"]`)."""
    if "link" not in flows or "capacity_bps" not in links:
        return {}
    capacity = dict(zip(links["link"], links["capacity_bps"]))
    return {name: float(capacity[name]) for name in dict.fromkeys(flows["link"]) if name in capacity}
