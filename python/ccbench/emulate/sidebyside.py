"""Simulator and kernel side by side: the same scenario run in both modes,
and per algorithm the differences in goodput, mean RTT, retransmissions and
the distance between the cwnd traces, with overlaid cwnd plots.

The cwnd distance is the mean absolute difference of the two traces
(resampled on a common 100 ms grid over the flow's active time) divided by
the simulator's mean cwnd: 0 for identical traces, 1 for an error as large
as the window itself.
"""

from __future__ import annotations

import copy
import html
from pathlib import Path

import numpy as np
import pandas as pd

from ccbench.emulate import kernel
from ccbench.emulate.kernel import KernelModeError
from ccbench.emulate.runner import emulate
from ccbench.emulate.tables import Result
from ccbench.scenario import ScenarioFileError, load

GRID_S = 0.1


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


def compare(scenario, reps: int = 1, algorithms: list[str] | None = None, seed: int | None = None):
    """Runs each (scenario, algorithm) `reps` times in both modes. Returns
    (table, pairs): one row per algorithm with both modes' means and the
    differences (kernel minus simulator: % for goodput and RTT, percentage
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
        sim = pd.concat(sims).groupby(level=0).mean()
        kern = pd.concat(kerns).groupby(level=0).mean()
        dist = pd.DataFrame(dists, columns=["cc", "d"]).groupby("cc")["d"].mean()
        for cc in sim.index:
            a, b = sim.loc[cc], kern.loc[cc]
            rows.append(
                {
                    "cc": cc,
                    "reps": reps,
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
            )
    return pd.DataFrame(rows), pairs


def overlay_figure(sim: Result, kern: Result, title: str):
    """cwnd of every flow, simulator (solid) and kernel (dashed), on one plot."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3.2), layout="constrained")
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (segments)")
    ax.grid(True, alpha=0.3)
    for fid in sim.flows["flow"]:
        for r, style, mode in ((sim, "-", "sim"), (kern, "--", "kernel")):
            s = r.series[r.series["flow"] == fid]
            ax.plot(s["t"], s["cwnd"], style, linewidth=0.9, label=f"flow {fid} {mode}")
    ax.legend(loc="upper right", fontsize=7)
    return fig


def write_report(table: pd.DataFrame, pairs: dict, out: Path) -> Path:
    """compare-sim.csv, one overlaid cwnd PNG per variant, and compare-sim.html showing both."""
    from ccbench import plots

    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "compare-sim.csv", index=False, float_format="%.6g")
    images = []
    for key, (rs, rk) in pairs.items():
        name = f"cwnd-sim-vs-kernel-{key or 'scenario'}.png"
        plots.save_png(overlay_figure(rs, rk, f"cwnd: simulator vs kernel ({key or 'scenario'})"), out / name)
        images.append(name)
    body = table.to_html(index=False, float_format=lambda v: f"{v:.3g}")
    imgs = "".join(f'<p><img src="{html.escape(n)}" alt="{html.escape(n)}"></p>' for n in images)
    page = (
        "<!doctype html><meta charset=utf-8><title>ccbench: simulator vs kernel</title>"
        "<h1>Simulator vs Linux kernel</h1><p>Differences are kernel minus simulator.</p>"
        f"{body}{imgs}"
    )
    (out / "compare-sim.html").write_text(page, encoding="utf-8")
    return out / "compare-sim.html"
