"""Campaign engine at scale: a campaign of 3,000 short runs (5 algorithms x
6 rates x 100 repetitions, 0.5 s simulated each), then checks that the index
and the tidy tables agree, and prints runs per second, the driver's overhead
per run and the index size. Guards against anything quadratic in the number
of runs; not a test (timings depend on the machine).

    python3 bench/campaign_scale.py [--jobs 2] [--executor local|ray] [--address A] [--reps 100]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from ccbench.campaigns import runner, spec, storage


def campaign(reps: int) -> dict:
    return {
        "name": "scale",
        "repetitions": reps,
        "seed": 1,
        "keep_tables": "none",
        "scenario": {
            "duration": "0.5s",
            "downlink": {"rate": "10Mbit", "delay": "10ms", "loss": {"model": "bernoulli", "p": 0.001}},
            "flows": [{"cc": "reno"}],
        },
        "factors": {
            "flows[0].cc": ["reno", "cubic", "bbr", "vegas", "htcp"],
            "downlink.rate": ["2Mbit", "4Mbit", "6Mbit", "8Mbit", "10Mbit", "12Mbit"],
        },
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument("--executor", default="local")
    ap.add_argument("--address", default=None)
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--keep", help="keep the campaign directory here")
    args = ap.parse_args()

    out = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="ccbench-scale-")) / "campaign"
    t0 = time.perf_counter()
    plan = spec.parse(campaign(args.reps))
    plan_s = time.perf_counter() - t0
    done = runner.run(plan, out, jobs=args.jobs, executor=args.executor, address=args.address)
    data = storage.load(out)
    n = done.total
    assert done.executed == n and done.failed == 0, done
    assert len(data.index) == n and (data.index["status"] == "done").all() and (data.index["completions"] == 1).all()
    assert len(data.runs) == n and data.runs["run"].is_unique and set(data.runs["run"]) == set(data.index["key"])
    sim_s = float(data.index["wall_s"].sum())
    print(f"runs: {n} ({args.executor}, {args.jobs or runner.default_jobs()} workers)")
    print(f"wall: {done.seconds:.1f} s -> {n / done.seconds:.0f} runs/s (plus {plan_s:.2f} s to plan and validate)")
    print(f"worker time per run (simulate + write): {1e3 * sim_s / n:.2f} ms")
    print(
        f"driver overhead per run: {1e3 * done.driver_seconds / n:.3f} ms in the run loop and assembly, "
        f"{1e3 * plan_s / n:.3f} ms planning"
    )
    size = storage.index_size_bytes(out)
    print(f"index size: {size / 1024:.0f} KiB ({size / n:.0f} bytes/run)")
    print(
        f"tidy tables: flows.parquet {(out / 'flows.parquet').stat().st_size / 1024:.0f} KiB, "
        f"runs.parquet {(out / 'runs.parquet').stat().st_size / 1024:.0f} KiB"
    )
    if not args.keep:
        shutil.rmtree(out.parent)


if __name__ == "__main__":
    main()
