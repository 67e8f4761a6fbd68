"""`ccbench compare`: every implemented algorithm over a small built-in set of
paths, a few repetitions each, in parallel; results saved, then the report.

The algorithm list comes from the simulator's registry, so a new algorithm
joins automatically. Each repetition r uses seed `base_seed + r` for every
algorithm (common random numbers: all algorithms see the same loss pattern
draws), and the tables are sorted by (scenario, algorithm, rep), so a serial
and a parallel campaign write identical tables.

Campaign directory: campaign.json (design, seeds, versions), flows.parquet/.csv
(one row per flow per run, every factor a column), runs.parquet/.csv (one row
per run), runs/<scenario>/<algorithm>/rep0/ (the full tables of the first
repetition), recommendations.json and report.html.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ccbench import _ccsim, run_files
from ccbench.api import run
from ccbench.metrics import jain_index

#: Layout version of the campaign directory (campaign.json, flows/runs tables).
CAMPAIGN_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Condition:
    """One built-in network condition: `build(cc, quick, seed)` returns a scenario dict."""

    key: str
    title: str
    description: str
    build: Callable[[str, bool, int], dict]


def access_delays_ms(seed: int, n: int) -> list[float]:
    """Per-flow access delays (0-2 ms, in 0.1 ms steps) drawn from the run's seed:
    a path without random loss is otherwise deterministic (every repetition
    identical, so any difference between algorithms, however small, would look
    significant), and the studies' repetitions differ in such details.
    Deterministic for a given seed."""
    return [round(float(x), 1) for x in np.random.default_rng([seed, 7]).uniform(0.0, 2.0, n)]


def _clean(cc: str, quick: bool, seed: int) -> dict:
    return {
        "name": "clean",
        "duration": "6s" if quick else "20s",
        "downlink": {"rate": "10Mbit", "delay": "20ms", "queue": {"size": "1bdp"}},
        "flows": [{"cc": cc, "access_delay": f"{d}ms"} for d in access_delays_ms(seed, 2)],
    }


def _lossy(cc: str, quick: bool, seed: int) -> dict:
    return {
        "name": "lossy",
        "duration": "6s" if quick else "20s",
        "downlink": {
            "rate": "10Mbit",
            "delay": "20ms",
            "queue": {"size": "1bdp"},
            "loss": {"model": "bernoulli", "p": 0.01},
        },
        "flows": [{"cc": cc, "access_delay": f"{access_delays_ms(seed, 1)[0]}ms"}],
    }


def _long_rtt(cc: str, quick: bool, seed: int) -> dict:
    return {
        "name": "long_rtt",
        "duration": "10s" if quick else "30s",
        "downlink": {"rate": "10Mbit", "delay": "300ms", "queue": {"size": "1bdp"}},
        "flows": [{"cc": cc, "access_delay": f"{access_delays_ms(seed, 1)[0]}ms"}],
    }


def _cellular(cc: str, quick: bool, seed: int) -> dict:
    return {
        "name": "cellular",
        "profile": "hsdpa",
        "duration": "6s" if quick else "20s",
        "flows": [{"cc": cc, "access_delay": f"{access_delays_ms(seed, 1)[0]}ms"}],
    }


CONDITIONS = [
    # every condition adds 0-2 ms of access delay per flow, drawn from the seed
    Condition(
        "clean",
        "Clean 10 Mbit/s path, 40 ms RTT, two flows",
        "10 Mbit/s bottleneck, 20 ms one-way delay each way, drop-tail queue of one BDP, "
        "two flows of the same algorithm sharing it, no random loss",
        _clean,
    ),
    Condition(
        "lossy",
        "Lossy wireless-like path, 1% random loss",
        "10 Mbit/s, 40 ms RTT, one BDP of buffer, 1% Bernoulli loss on the data direction "
        "(losses that are not congestion), one flow",
        _lossy,
    ),
    Condition(
        "long_rtt",
        "Long-RTT path, 600 ms RTT (satellite-like)",
        "10 Mbit/s, 300 ms one-way delay each way, one BDP of buffer, one flow",
        _long_rtt,
    ),
    Condition(
        "cellular",
        "Cellular 3.5G downlink (the hsdpa profile)",
        "ccbench's hsdpa network profile (`ccbench profiles`): about 2 Mbit/s down and 384 kbit/s up, "
        "about 100 ms RTT, deep buffers, link-layer retransmission; one downlink flow",
        _cellular,
    ),
]


def algorithm_names() -> list[str]:
    return [a["name"] for a in _ccsim.algorithms()]


@dataclass(frozen=True)
class Task:
    path: str
    cc: str
    rep: int
    seed: int
    scenario: dict
    run_dir: str


def tasks(
    out: Path,
    algorithms: list[str],
    reps: int,
    quick: bool,
    base_seed: int = 1,
    conditions: list[Condition] = CONDITIONS,
) -> list[Task]:
    return [
        Task(p.key, cc, r, base_seed + r, p.build(cc, quick, base_seed + r), str(out / "runs" / p.key / cc / f"rep{r}"))
        for p in conditions
        for cc in algorithms
        for r in range(reps)
    ]


def run_summary(flows: pd.DataFrame, links: pd.DataFrame) -> dict:
    """One row per run: per-flow means of the flow metrics, the data link's
    utilization and Jain's index over the flows' goodputs."""
    data_link = links[links["link"] == flows["link"].iloc[0]].iloc[0]
    return {
        "flows": len(flows),
        "goodput_bps": float(flows["goodput_bps"].mean()),
        "throughput_bps": float(flows["throughput_bps"].mean()),
        "utilization": float(data_link["utilization"]),
        "rtt_mean_ms": float(flows["rtt_mean_ms"].mean()),
        "rtt_p95_ms": float(flows["rtt_p95_ms"].mean()),
        "queuing_mean_ms": float(flows["queuing_mean_ms"].mean()),
        "retrans_pct": float(flows["retrans_pct"].mean()),
        "timeouts_per_100s": float(flows["timeouts_per_100s"].mean()),
        "jain": jain_index(flows["goodput_bps"]) if len(flows) > 1 else float("nan"),
    }


def execute(task: Task) -> tuple[pd.DataFrame, dict]:
    """Runs one task; returns its flows (with the campaign's factor columns)
    and its summary row. The first repetition's full tables are saved in its
    run directory (the report plots from them); every repetition's per-flow
    summary goes into the campaign's flows table. Writing every repetition's
    time series would cost more than simulating it."""
    r = run(task.scenario, seed=task.seed)
    if task.rep == 0:
        run_files.save(r, task.run_dir, csv=False)
    factors = {"scenario": task.path, "algorithm": task.cc, "rep": task.rep, "seed": task.seed}
    flows = r.flows.copy()
    for i, (k, v) in enumerate(factors.items()):
        flows.insert(i, k, v)
    return flows, {**factors, **run_summary(r.flows, r.links)}


def run_all(task_list: list[Task], jobs: int, on_done: Callable[[], None] = lambda: None):
    """Runs every task (in a process pool when jobs > 1); returns the tidy
    per-flow table and the per-run table, both in task order."""
    out: list = [None] * len(task_list)
    if jobs <= 1:
        for i, t in enumerate(task_list):
            out[i] = execute(t)
            on_done()
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(execute, t): i for i, t in enumerate(task_list)}
            from concurrent.futures import as_completed

            for f in as_completed(futures):
                out[futures[f]] = f.result()
                on_done()
    flows = pd.concat([o[0] for o in out], ignore_index=True)
    runs = pd.DataFrame([o[1] for o in out])
    return flows, runs


def save_campaign(out: Path, flows: pd.DataFrame, runs: pd.DataFrame, info: dict) -> None:
    for name, df in (("flows", flows), ("runs", runs)):
        run_files.write_table(out, name, df, csv=True)
    run_files.atomic_write_bytes(out / "campaign.json", run_files.json_bytes(info))


def campaign_info(algorithms: list[str], reps: int, quick: bool, base_seed: int, conditions=CONDITIONS) -> dict:
    return {
        "schema_version": CAMPAIGN_SCHEMA_VERSION,
        "ccbench_version": _ccsim.__version__,
        "algorithms": algorithms,
        "reps": reps,
        "quick": quick,
        "seeds": [base_seed + r for r in range(reps)],
        "scenarios": [
            {
                "key": p.key,
                "title": p.title,
                "description": p.description,
                "example": p.build(algorithms[0] if algorithms else "reno", quick, base_seed),
            }
            for p in conditions
        ],
    }


def load_campaign(out: Path):
    """(info, flows, runs) of a saved campaign directory."""
    import pyarrow.parquet as pq

    info = json.loads((out / "campaign.json").read_text(encoding="utf-8"))
    return info, pq.read_table(out / "flows.parquet").to_pandas(), pq.read_table(out / "runs.parquet").to_pandas()


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
