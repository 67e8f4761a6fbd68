"""The campaign report's figures (matplotlib), each saved as PNG (and SVG
when asked for) with units on every axis: bars with 95% CI and per-repetition points, the
throughput vs delay plane with the Pareto front (as Pantheon draws it: mean
and 95th-percentile delay per candidate, delay axis reversed so better is up
and to the right), CDFs and time series (ccbench.plots), goodput against a
varied size. Same data, same bytes.
"""

from __future__ import annotations

import base64
import contextlib
import html
from collections.abc import Iterator
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from ccbench import plots  # noqa: E402
from ccbench.campaigns.analysis import Metric  # noqa: E402

ACCENT, GREY, FRONT = "#1f77b4", "#9aa4b1", "#d62728"


def img_tag(png: bytes, alt: str) -> str:
    """The figure's PNG embedded in the page (report.html is one self-contained file)."""
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{base64.b64encode(png).decode()}">'


def save(fig, directory: Path, name: str, formats: tuple[str, ...] = ("png",)) -> bytes:
    """Writes NAME.png (always: the report embeds it) and NAME.svg when
    "svg" is in `formats` into `directory`; returns the PNG bytes. Each
    format costs a full draw of the figure, so SVG is only on request."""
    from ccbench.file_modes import atomic_write_bytes

    directory.mkdir(parents=True, exist_ok=True)
    if "svg" in formats:
        atomic_write_bytes(directory / f"{name}.svg", plots.figure_bytes(fig, "svg", close=False))
    png = plots.png_bytes(fig)  # closes the figure
    atomic_write_bytes(directory / f"{name}.png", png)
    return png


#: In plots/: the figure files the last report wrote, one name a line, so that the next report
#: removes those it does not write again and never a file of anyone else.
WRITTEN = ".report-figures"


def _stamps(directory: Path) -> dict[str, tuple[int, int]]:
    """Name -> (inode, modification time) of each figure file in `directory`. `save` writes a
    temporary file renamed over the old one, so a file written again has another inode."""
    if not directory.is_dir():
        return {}
    out = {}
    for p in directory.iterdir():
        if p.suffix.removeprefix(".") in plots.FORMATS and p.is_file():
            st = p.stat()
            out[p.name] = (st.st_ino, st.st_mtime_ns)
    return out


@contextlib.contextmanager
def replacing(directory: Path) -> Iterator[None]:
    """Around the drawing of a report's figures into `directory`: afterwards removes the files the
    previous report wrote (listed in WRITTEN) that this one did not write again, such as the SVGs
    of an earlier --svg, which would show its objective, and lists this report's files."""
    from ccbench.file_modes import atomic_write_bytes

    before = _stamps(directory)
    yield
    written = sorted(name for name, stamp in _stamps(directory).items() if before.get(name) != stamp)
    listed = directory / WRITTEN
    earlier = listed.read_text(encoding="utf-8", errors="replace").splitlines() if listed.is_file() else []
    for name in set(earlier) - set(written):
        if name and Path(name).name == name:  # a name in `directory`, whatever the list holds
            (directory / name).unlink(missing_ok=True)
    if directory.is_dir():
        atomic_write_bytes(listed, "".join(f"{n}\n" for n in written).encode("utf-8"))


def bars_with_points(
    table: pd.DataFrame, samples: dict[str, np.ndarray], metric: Metric, title: str, highlight: set[str]
):
    """Horizontal bars of the mean per candidate (table order, best on top),
    95% CI as error bars clipped at 0, and each repetition as a dot (the dots
    of every candidate are one artist: an artist costs time to make and draw)."""
    n = len(table)
    fig, ax = plt.subplots(figsize=(6.2, 1.0 + 0.24 * n), layout="constrained")
    y = np.arange(n)[::-1]
    s = metric.scale
    mean = table[metric.column].to_numpy(float) * s
    low = table[f"{metric.column}_low"].to_numpy(float) * s
    high = table[f"{metric.column}_high"].to_numpy(float) * s
    err = np.vstack([np.nan_to_num(mean - low), np.nan_to_num(high - mean)])
    colors = [ACCENT if name in highlight else GREY for name in table["name"]]
    ax.barh(y, np.nan_to_num(mean), xerr=err, color=colors, capsize=2, error_kw={"lw": 0.8}, alpha=0.85)
    xs, ys = [], []
    for yi, name in zip(y, table["name"]):
        v = np.asarray(samples.get(name, []), float) * s
        v = v[np.isfinite(v)]
        xs.append(v)
        ys.append(yi + (np.linspace(-0.18, 0.18, v.size) if v.size > 1 else np.zeros(v.size)))
    ax.plot(np.concatenate(xs or [[]]), np.concatenate(ys or [[]]), "o", ms=2.2, color="#222222", alpha=0.7)
    ax.set_yticks(y, table["name"], fontsize=7)
    unit = f" ({metric.unit})" if metric.unit else ""
    ax.set_xlabel(f"{metric.label}{unit}: mean, 95% CI, repetitions")
    ax.set_xlim(left=0)
    plots.set_title(ax, title, names_on_y=True)
    ax.grid(True, axis="x", alpha=0.3)
    return fig


def throughput_delay(table: pd.DataFrame, title: str, highlight: set[str]):
    """Per candidate: mean goodput against p95 RTT (filled) and mean RTT
    (hollow, joined by a line); the Pareto front (goodput vs p95) in red."""
    fig, ax = plt.subplots(figsize=(6.2, 4.3), layout="constrained")
    g = table["goodput_bps"].to_numpy(float) / 1e6
    p95 = table["rtt_p95_ms"].to_numpy(float)
    mean = table["rtt_mean_ms"].to_numpy(float)
    hot = table["name"].isin(highlight).to_numpy()
    for group, c, ms in ((~hot, GREY, 4), (hot, ACCENT, 5)):  # the highlighted on top
        # One artist per kind of mark and colour (not three per candidate): the segments
        # from the mean to the p95 point joined by NaN gaps, the hollow means, the p95 points.
        ax.plot(
            np.column_stack([mean[group], p95[group], np.full(group.sum(), np.nan)]).ravel(),
            np.repeat(g[group], 3),
            "-",
            color=c,
            lw=0.8,
        )
        ax.plot(mean[group], g[group], "o", mfc="white", mec=c, ms=4)
        ax.plot(p95[group], g[group], "o", color=c, ms=ms)
    # Every point named: a cluster of tied candidates by its first name and, in the legend, all of it.
    names = list(table["name"])
    for i, group in enumerate(plots.label_groups(p95, g)):
        if group:
            plots.annotate_group(ax, p95[i], g[i], [names[j] for j in group], names[i] in highlight)
    front = table["pareto"].to_numpy(bool)
    if front.any():
        order = np.argsort(p95[front])
        ax.plot(p95[front][order], g[front][order], "--", color=FRONT, lw=1, label="Pareto front (goodput vs p95)")
    if ax.get_legend_handles_labels()[0]:  # the front, and the groups of candidates too close to label apart
        plots.legend_outside(ax, fontsize=7)
    ax.invert_xaxis()
    # Two lines: constrained layout leaves the width of an x label out, and on one line this one ran
    # past the figure's left edge when the legend beside the axes narrows them.
    ax.set_xlabel("RTT (ms): ● 95th percentile, ○ mean\n(axis reversed: better to the right)")
    ax.set_ylabel("goodput (Mbit/s)")
    plots.set_title(ax, title)
    ax.grid(True, alpha=0.3)
    return fig


def by_size(runs: pd.DataFrame, factor: str, size_factor: str, order: list, others: list[str]):
    """Mean goodput against the levels of a size factor, one line per
    candidate, one panel per combination of the other factors (at most 6)."""
    groups = list(runs.groupby(others, sort=False)) if others else [((), runs)]
    groups = groups[:6]
    fig, axes = plt.subplots(
        1, len(groups), figsize=(3.4 * len(groups) + 0.6, 3.4), layout="constrained", squeeze=False, sharey=True
    )
    for ax, (key, sub) in zip(axes[0], groups):
        key = key if isinstance(key, tuple) else (key,)
        levels = [lv for lv in order if lv in set(sub[size_factor])]
        x = np.arange(len(levels))
        for i, (name, g) in enumerate(sub.groupby(factor, sort=False)):
            m = g.groupby(size_factor)["goodput_bps"].mean()
            ax.plot(
                x, [m.get(lv, np.nan) / 1e6 for lv in levels], "o-", ms=3, lw=1, color=f"C{i % 10}", label=str(name)
            )
        ax.set_xticks(x, [str(lv) for lv in levels], fontsize=7)
        ax.set_xlabel(f"{size_factor} (bytes, as written)")
        plots.set_title(ax, ", ".join(f"{f} = {v}" for f, v in zip(others, key)) or "all runs", fontsize=8)
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("goodput (Mbit/s)")
    plots.legend_outside(axes[0][-1], fontsize=6)
    return fig


def cdfs(flows: pd.DataFrame, factor: str, names: list[str]):
    """CDFs over all flows of all repetitions, one panel each: goodput, mean
    RTT and mean queuing delay per flow; one line per candidate."""
    sel = {n: flows[flows[factor].astype(str) == n] for n in names}
    panels = (
        ("goodput_bps", 1e-6, "goodput per flow (Mbit/s)"),
        ("rtt_mean_ms", 1.0, "mean RTT per flow (ms)"),
        ("queuing_mean_ms", 1.0, "mean queuing delay per flow (ms)"),
    )
    fig, axes = plt.subplots(1, 3, figsize=(11.5, 3.3), layout="constrained", sharey=True)
    for ax, (col, scale, label) in zip(axes, panels):
        for i, (name, f) in enumerate(sel.items()):
            plots.step_cdf(ax, f[col].to_numpy(float) * scale, lw=1.2, color=f"C{i % 10}", label=name)
        ax.set_xlabel(label)
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("fraction of flows (CDF)")
    plots.legend_outside(axes[-1], fontsize=6)
    fig.suptitle("CDFs over every flow of every repetition", fontsize=10, wrap=True)
    return fig


__all__ = ["save", "bars_with_points", "throughput_delay", "by_size", "cdfs"]


#: A condition's figures drawn from the campaign's tidy tables alone (no kept run tables).
SUMMARY_FIGURES = ("bars", "plane", "cdfs")
#: At most this many candidates in the time-series and CDF figures.
FEW = 6


def few(c) -> list[str]:
    """The candidates a crowded figure shows: the pick, two tied with it,
    cubic and reno where present, and the last; at most FEW."""
    names = list(c.table["name"])
    wanted = [c.pick] + c.tied[:2] + [n for n in ("cubic", "reno") if n in names] + names[-1:]
    out = []
    for n in wanted:
        if n and n not in out:
            out.append(n)
    return out[:FEW]


def highlight(c) -> set[str]:
    """The pick and the candidates tied with it (drawn in the accent colour)."""
    return {c.pick, *c.tied} - {None}


def condition_rows(runs: pd.DataFrame, flows: pd.DataFrame, levels: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The runs (with their power) and the flows of the condition with these `levels`."""
    from ccbench.campaigns.analysis import with_power

    runs = with_power(runs)
    for f, v in levels.items():
        runs = runs[runs[f].astype(str) == str(v)]
        flows = flows[flows[f].astype(str) == str(v)]
    return runs, flows


def summary_figure(runs: pd.DataFrame, flows: pd.DataFrame, c, objective, factor: str, name: str):
    """Figure `name` (SUMMARY_FIGURES) of condition `c` (an analysis.ConditionResult) under
    `objective`, from the campaign's runs and flows tables."""
    from ccbench.campaigns.analysis import METRICS

    runs, flows = condition_rows(runs, flows, c.levels)
    if name == "bars":
        metric = METRICS[objective.metric]
        samples = {str(n): g[objective.metric].to_numpy(float) for n, g in runs.groupby(factor, sort=False)}
        title = f"{metric.label} per {factor} (blue: pick and ties)"
        return bars_with_points(c.table, samples, metric, title, highlight(c))
    if name == "plane":
        return throughput_delay(c.table, "Goodput vs delay", highlight(c))
    if name == "cdfs":
        return cdfs(flows, factor, few(c))
    raise ValueError(f"figure {name!r}: one of {', '.join(SUMMARY_FIGURES)}")
