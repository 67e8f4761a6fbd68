"""Campaign engine at scale: a campaign of 3,000 short runs (5 algorithms x
6 rates x 100 repetitions, 0.5 s simulated each), then checks that the index
and the tidy tables agree, and prints runs per second, the driver's overhead
per run and the index size. Guards against anything quadratic in the number
of runs; not a test (timings depend on the machine).

With --profile NAME the runs are on that network profile instead of the 6
rates (5 algorithms x reps, --duration each): `--profile lte-driving
--duration 10s --reps 20` is a campaign over a measured LTE trace (45,000
opportunities down, 11,000 up, in every run's scenario), where planning and
moving each run's scenario cost more than on a plain link; `--profile
trace:FILE.down` runs on any Mahimahi trace (FILE.up beside it sets the
uplink), such as a user's own measured trace of megabytes.

    python3 bench/campaign_scale.py [--jobs 2] [--executor local|ray] [--address A] [--reps 100]
                                    [--profile NAME --duration 10s]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from ccbench.campaigns import runner, spec, storage

ALGORITHMS = ["reno", "cubic", "bbr", "vegas", "htcp"]


def campaign(reps: int, profile: str | None = None, duration: str = "0.5s") -> dict:
    """The 5 algorithms x 6 rates of a lossy 10 ms path; on `profile`, the 5 algorithms alone."""
    if profile is None:
        link = {"rate": "10Mbit", "delay": "10ms", "loss": {"model": "bernoulli", "p": 0.001}}
        network, rates = {"downlink": link}, {"downlink.rate": ["2Mbit", "4Mbit", "6Mbit", "8Mbit", "10Mbit", "12Mbit"]}
    else:
        network, rates = {"profile": profile}, {}
    return {
        "name": "scale",
        "repetitions": reps,
        "seed": 1,
        "keep_tables": "none",
        "scenario": {"duration": duration, **network, "flows": [{"cc": "reno"}]},
        "factors": {"flows[0].cc": ALGORITHMS, **rates},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument("--executor", default="local")
    ap.add_argument("--address", default=None)
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--profile", help="run on this network profile (e.g. lte-driving) instead of the 6 rates")
    ap.add_argument("--duration", default="0.5s", help="simulated time of each run")
    ap.add_argument("--keep", help="keep the campaign directory here")
    args = ap.parse_args()

    out = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="ccbench-scale-")) / "campaign"
    t0 = time.perf_counter()
    plan = spec.parse(campaign(args.reps, args.profile, args.duration))
    plan_s = time.perf_counter() - t0
    done = runner.run(plan, out, jobs=args.jobs, executor=args.executor, address=args.address)
    data = storage.load(out)
    n = done.total
    assert done.executed == n and done.failed == 0, done
    assert len(data.index) == n and (data.index["status"] == "done").all() and (data.index["completions"] == 1).all()
    assert len(data.runs) == n and data.runs["run"].is_unique and set(data.runs["run"]) == set(data.index["key"])
    sim_s = float(data.index["wall_s"].sum())
    on = f"{args.profile} profile" if args.profile else "6 rates"
    print(f"runs: {n} of {args.duration} on the {on} ({args.executor}, {args.jobs or runner.default_jobs()} workers)")
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
