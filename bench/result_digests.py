#!/usr/bin/env python3
"""Digests of every result table of a set of varied scenarios, to check that
a change to the core's packet path leaves results bit-identical beyond the
golden tables (crates/ccsim/tests/golden.rs): the speed example
(crates/ccsim/examples/speed.rs) runs each scenario and hashes its tables.

The scenarios cover what the packet path must keep in order: examples/*.toml,
the umts, hsdpa, lte and satellite profiles (ARQ, outages, trace links),
netem-like jitter with reordering, many flows, SACK off with loss, link-layer
ARQ with jitter, CoDel with ECN and UDP, a byte-limited queue with
background load, and the speed suite's 1 Gbit/s dumbbell for 5 s.

    python3 bench/result_digests.py --save before.txt            (on the old commit)
    python3 bench/result_digests.py --against before.txt         (on the new one; exit 1 if any differs)
    python3 bench/result_digests.py --binary OTHER/speed --against before.txt

Each line: scenario, digest, events, bottleneck packets. Events may change
with a refactor that saves events; only the digest must not.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from suite import SPEED_BINARY, build_speed_binary, dumbbell, scenario_json  # noqa: E402


def profile_run(profile: str, duration_s: float, seed: int, flows: list[dict]) -> dict:
    return {"profile": profile, "duration": duration_s, "seed": seed, "flows": flows}


def scenarios() -> dict[str, dict | Path]:
    codel_ecn = {"kind": "codel", "size": "1000pkt", "ecn": True}
    lossy_sack_off = {
        "rate": "50Mbit",
        "delay": "20ms",
        "queue": {"size": "0.5bdp"},
        "loss": {"model": "bernoulli", "p": 0.01},
    }
    arq_jitter = {
        "rate": "20Mbit",
        "delay": "20ms",
        "queue": {"size": "100pkt"},
        "loss": {"model": "bernoulli", "p": 0.05},
        "arq": {"max_retries": 3, "retry_delay": "5ms", "in_order": False},
        "jitter": {"distribution": "uniform", "min": "0ms", "max": "3ms", "reorder": True},
    }
    cases: dict[str, dict | Path] = {
        "dumbbell-1g-8-cubic-5s": dumbbell("a5", "1Gbit", 8, 5),
        "dumbbell-100m-256-cubic-5s": dumbbell("b5", "100Mbit", 256, 5),
        "many-flows": dumbbell("many", "200Mbit", 1000, 3),
        "umts": {"profile": "umts", "duration": 100, "seed": 1, "flows": [{"cc": "newreno"}]},
        "hsdpa": {
            "profile": "hsdpa",
            "duration": 30,
            "seed": 2,
            "flows": [{"cc": "cubic"}, {"cc": "bbr", "direction": "up"}],
        },
        "lte-driving": profile_run("lte-driving", 30, 3, [{"cc": "cubic"}, {"cc": "vegas"}]),
        "lte-good": profile_run("lte-good", 20, 3, [{"cc": "bbr"}, {"cc": "reno"}]),
        "wan-jitter": profile_run("wan-100ms-jitter", 10, 4, [{"cc": "cubic", "count": 3}]),
        "satellite": profile_run("satellite", 20, 4, [{"cc": "hybla"}]),
        "sack-off-loss": {
            "duration": 10,
            "seed": 9,
            "downlink": lossy_sack_off,
            "flows": [{"cc": "newreno", "tcp": {"sack": False}, "count": 3}, {"cc": "cubic", "access_delay": "3ms"}],
        },
        "arq-jitter": {
            "duration": 10,
            "seed": 5,
            "downlink": arq_jitter,
            "flows": [{"cc": "cubic"}, {"cc": "bbr"}, {"cc": "reno", "access_delay": "2ms"}],
        },
        "codel-ecn-udp": {
            "duration": 8,
            "seed": 6,
            "downlink": {"rate": "100Mbit", "delay": "10ms", "queue": codel_ecn},
            "flows": [
                {"cc": "dctcp", "tcp": {"ecn": True}, "count": 2},
                {"cc": "cubic", "tcp": {"ecn": True}},
                {"cc": "bbr"},
            ],
            "udp": [{"rate": "10Mbit", "start": "1s", "stop": "5s"}],
        },
        "bytes-queue-background": {
            "duration": 8,
            "seed": 8,
            "downlink": {"rate": "40Mbit", "delay": "15ms", "queue": {"size": "200KB"}},
            "flows": [{"cc": "cubic"}, {"cc": "bbr", "direction": "up"}],
            "background": {"kind": "poisson-web", "load": 0.4},
        },
    }
    for path in sorted((ROOT / "examples").glob("*.toml")):
        cases[f"examples/{path.name}"] = path
    return cases


def digest_lines(binary: Path) -> list[str]:
    lines = []
    for name, scenario in scenarios().items():
        with scenario_json(scenario) as path:
            proc = subprocess.run([str(binary), path], capture_output=True, text=True, check=True)
        r = json.loads(proc.stdout)
        lines.append(f"{name:<44} {r['digest']} {r['events']:>9} {r['bottleneck_packets']:>9}")
        print(lines[-1], flush=True)
    return lines


def digests(lines: list[str]) -> dict[str, str]:
    """Scenario name to digest, from lines as `digest_lines` writes them."""
    return {line.split()[0]: line.split()[1] for line in lines if line.strip()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", type=Path, help="the speed example to run (default: build this tree's)")
    ap.add_argument("--save", type=Path, help="write the digests to this file")
    ap.add_argument("--against", type=Path, help="compare the digests with this file's")
    args = ap.parse_args()
    # Read before the runs, so a wrong path fails at once rather than after them.
    expected = digests(args.against.read_text().splitlines()) if args.against else None
    binary = args.binary or (build_speed_binary() and SPEED_BINARY)
    lines = digest_lines(binary)
    if args.save:
        args.save.write_text("\n".join(lines) + "\n")
    if expected is not None:
        differ = [name for name, digest in digests(lines).items() if expected.get(name) != digest]
        for name in differ:
            print(f"differs: {name}", file=sys.stderr)
        # Always a last line, so "no differences" is never read from no output.
        summary = f"{len(differ)} of {len(lines)} digests differ" if differ else f"all {len(lines)} digests match"
        print(f"{summary} ({args.against})", file=sys.stderr)
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
