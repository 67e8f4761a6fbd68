#!/usr/bin/env python3
"""The training workload of scripts/install-pgo: the runs of `ccbench compare
--quick` (every algorithm over the four built-in conditions, two seeds each),
each written as the scenario JSON the simulator core reads, one file a run,
for the instrumented speed example (crates/ccsim/examples/speed.rs) to run.

    python3 bench/pgo_training.py DIR

The workload is the default comparison, not the speed suite's scenarios, so
bench/suite.py --pgo measures the optimized build on scenarios it was not
trained on.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def write_scenarios(directory: Path) -> int:
    """Writes one RUN_KEY.json per run of the quick compare campaign; returns how many."""
    from ccbench import compare

    directory.mkdir(parents=True, exist_ok=True)
    runs = compare.campaign(reps=compare.QUICK_REPS, quick=True).runs
    for run in runs:
        (directory / f"{run.key}.json").write_text(run.scenario_json, encoding="utf-8")
    return len(runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("directory", type=Path)
    args = ap.parse_args()
    print(f"{write_scenarios(args.directory)} training scenarios in {args.directory}")


if __name__ == "__main__":
    main()
