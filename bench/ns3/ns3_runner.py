"""Run the ns-3 dumbbell reference scenario (bench/ns3/dumbbell.cc) from Python.

Stdlib only.  ``run_ns3(...)`` builds the binary if needed (via build.sh, which
is itself a no-op when the binary is up to date), runs one scenario and returns
the JSON object the program prints on stdout as a dict.

    >>> from bench.ns3.ns3_runner import run_ns3          # or: import ns3_runner
    >>> r = run_ns3("Cubic", flows=1, rate_mbps=100, delay_ms=50, duration_s=10)
    >>> r["aggregate_goodput_bps"], r["mean_rtt_ms"], r["wall_seconds"]

Extra keyword arguments map to the program's other options, snake_case to
camelCase (``buffer_pkts=100`` -> ``--bufferPkts=100``, ``ecn_threshold_pkts=65``,
``recovery="classic"``, ``stagger_ms=2``, ``trace_file="/tmp/x.tr"``,
``loss_rate=0.01``, ``cc_list="NewReno:4,Cubic:4"``).  Raw ns-3
attributes can be passed as ``ns3_attrs={"ns3::TcpSocket::DelAckCount": 1}``.

Command line:  python3 bench/ns3/ns3_runner.py --cc Cubic --flows 16 --rate-mbps 100 \\
                   --delay-ms 50 --duration-s 60
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD_SCRIPT = os.path.join(HERE, "build.sh")
BINARY = os.path.join(HERE, "build", "dumbbell")

# Congestion-control names the program understands (ns-3 3.37 TypeId short
# names; WestwoodPlus/Westwood are ns3::TcpWestwood with ProtocolType set).
CC_NAMES = (
    "NewReno",
    "Cubic",
    "Bic",
    "Vegas",
    "WestwoodPlus",
    "Westwood",
    "Bbr",
    "Hybla",
    "Veno",
    "Illinois",
    "Htcp",
    "HighSpeed",
    "Scalable",
    "Yeah",
    "Lp",
    "Ledbat",
    "Dctcp",
    "LinuxReno",
)


class Ns3Error(RuntimeError):
    """Building or running the ns-3 program failed."""


def build(force: bool = False) -> str:
    """Compile dumbbell.cc if needed; return the binary's path."""
    env = dict(os.environ)
    if force:
        env["FORCE"] = "1"
    proc = subprocess.run(["bash", BUILD_SCRIPT], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise Ns3Error(f"ns-3 build failed (exit {proc.returncode}):\n{proc.stderr.strip()}")
    return BINARY


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def command(
    cc: str,
    flows: int,
    rate_mbps: float,
    delay_ms: float,
    duration_s: float,
    buffer_bdp: float = 1.0,
    seed: int = 1,
    min_rto_ms: float = 200,
    sack: bool = True,
    ns3_attrs: Mapping[str, Any] | None = None,
    **extra: Any,
) -> list:
    """The argv that run_ns3 would execute (handy for logging / reproducing)."""
    args = [
        BINARY,
        f"--cc={cc}",
        f"--flows={int(flows)}",
        f"--rateMbps={_fmt(rate_mbps)}",
        f"--delayMs={_fmt(delay_ms)}",
        f"--duration={_fmt(duration_s)}",
        f"--bufferBdp={_fmt(buffer_bdp)}",
        f"--seed={int(seed)}",
        f"--minRtoMs={_fmt(min_rto_ms)}",
        f"--sack={_fmt(sack)}",
    ]
    for key, value in extra.items():
        if value is None:
            continue
        args.append(f"--{_camel(key)}={_fmt(value)}")
    for key, value in (ns3_attrs or {}).items():
        args.append(f"--{key}={_fmt(value)}")
    return args


def run_ns3(
    cc: str,
    flows: int,
    rate_mbps: float,
    delay_ms: float,
    duration_s: float,
    buffer_bdp: float = 1.0,
    seed: int = 1,
    min_rto_ms: float = 200,
    sack: bool = True,
    timeout_s: float | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """Run one dumbbell scenario in ns-3 and return its JSON result as a dict.

    The program's stderr (topology/queue summary, warnings) is attached to the
    result under the key ``"stderr"``.
    """
    build()
    argv = command(cc, flows, rate_mbps, delay_ms, duration_s, buffer_bdp, seed, min_rto_ms, sack, **extra)
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired as exc:
        raise Ns3Error(f"ns-3 run timed out after {timeout_s} s: {' '.join(argv)}") from exc
    if proc.returncode != 0:
        raise Ns3Error(f"ns-3 run failed (exit {proc.returncode}): {' '.join(argv)}\n{proc.stderr.strip()}")
    try:
        result = json.loads(proc.stdout)
    except json.JSONDecodeError as exc:
        raise Ns3Error(f"ns-3 printed no valid JSON: {proc.stdout[:500]!r}") from exc
    result["stderr"] = proc.stderr
    return result


def main(argv: list | None = None) -> int:
    p = argparse.ArgumentParser(description="Run one ns-3 dumbbell scenario; print its JSON.")
    p.add_argument("--cc", default="Cubic", help="one of: " + ", ".join(CC_NAMES))
    p.add_argument("--flows", type=int, default=1)
    p.add_argument("--rate-mbps", type=float, default=100.0)
    p.add_argument("--delay-ms", type=float, default=50.0, help="one-way bottleneck delay")
    p.add_argument("--duration-s", type=float, default=60.0)
    p.add_argument("--buffer-bdp", type=float, default=1.0)
    p.add_argument("--buffer-pkts", type=int, default=None, help="overrides --buffer-bdp")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--min-rto-ms", type=float, default=200.0)
    p.add_argument("--no-sack", action="store_true")
    p.add_argument("--recovery", choices=("prr", "classic"), default=None)
    p.add_argument("--ecn-threshold-pkts", type=int, default=None)
    p.add_argument("--stagger-ms", type=float, default=None)
    p.add_argument("--trace-file", default=None)
    p.add_argument("--loss-rate", type=float, default=None, help="random loss of data packets at the bottleneck")
    p.add_argument("--cc-list", default=None, help="mixed algorithms, e.g. NewReno:4,Cubic:4 (overrides --cc)")
    p.add_argument(
        "--ns3-attr",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="raw ns-3 attribute default, e.g. ns3::TcpSocket::DelAckCount=1",
    )
    p.add_argument("--show-stderr", action="store_true", help="echo the program's stderr")
    a = p.parse_args(argv)

    attrs = dict(kv.split("=", 1) for kv in a.ns3_attr)
    try:
        result = run_ns3(
            a.cc,
            a.flows,
            a.rate_mbps,
            a.delay_ms,
            a.duration_s,
            buffer_bdp=a.buffer_bdp,
            seed=a.seed,
            min_rto_ms=a.min_rto_ms,
            sack=not a.no_sack,
            buffer_pkts=a.buffer_pkts,
            recovery=a.recovery,
            ecn_threshold_pkts=a.ecn_threshold_pkts,
            stagger_ms=a.stagger_ms,
            trace_file=a.trace_file,
            loss_rate=a.loss_rate,
            cc_list=a.cc_list,
            ns3_attrs=attrs,
        )
    except Ns3Error as exc:
        print(str(exc), file=sys.stderr)
        return 1
    err = result.pop("stderr", "")
    if a.show_stderr:
        sys.stderr.write(err)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
