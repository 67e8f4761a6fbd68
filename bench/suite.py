#!/usr/bin/env python3
"""The speed suite: five reference scenarios in ccbench's simulator and in
ns-3 3.37 (bench/ns3/dumbbell.cc) side by side, and campaign runs per second,
from one command.

  (a) 1 Gbit/s, 8 cubic flows, 20 s            (ns-3 always)
  (b) 100 Mbit/s, 256 cubic flows, 20 s         (ns-3 always)
  (c) 10 Gbit/s, 16 cubic flows, 10 s           (ns-3 with --ns3-all: ~10 min)
  (d) the umts profile, 1 newreno flow, 100 s   (no ns-3 model of the UMTS channel)
  (e) 1 Gbit/s, 4096 cubic flows, 10 s          (ns-3 with --ns3-all)
  (f) 1 Gbit/s, 8 bbr flows, 20 s               (ns-3 with --ns3-all)
  (g) 1 Gbit/s, 8 cubic flows paced, 20 s       (no ns-3 counterpart)
  (u1) 100 Mbit/s, 50 ms, 64 newreno, 1% loss, 30 s      (ns-3 always)
  (u2) 10 Mbit/s, 100 ms, 4 each of newreno, cubic,
       vegas and westwood+, 60 s                          (ns-3 always)
  (u4) 1 Gbit/s, 20 ms, 1000 bbr flows, 10 s             (ns-3 with --ns3-all)

(f) and (g) pair with (a): the same path and load with a paced sender
(bbr paces, as Linux's does; (g) is cubic with tcp.pacing on), so what
pacing costs per bottleneck packet shows beside cubic's (issue 55: at
most 1.5x); with (a) they print that ratio.

Every path is a dumbbell with a 10 ms one-way delay and a 1-BDP drop-tail
buffer (the umts profile brings its own), RTT samples not recorded. The
u-scenarios are issue 55's as they were measured, with their own one-way
delays; ccbench reads them from bench/scenarios/u*.toml (the files the
kernel's side can run too), and ns-3 runs the dumbbell with --lossRate and
--ccList. Beside their goodputs the suite prints each side's timeouts,
fast recoveries and retransmitted segments, and for mixed algorithms the
goodput of each (ccbench's from one run of the Python package).

With --pairs N, ns-3 runs N times per scenario, each run beside ccbench's on
the other core (a pair); a line gives the median and quartiles of the
pairs' ratios, by process CPU time (the whole program on both sides) and by
simulation CPU time (ccbench's event loop alone).

Each side runs in a child process of its own: its CPU time (user + system)
comes from wait4(2), its peak resident set from its own VmHWM (ccbench's
reports it; ns-3's is read from /proc while it runs: wait4's ru_maxrss would
count the Python process it was forked from). ccbench's
side is the Rust core (crates/ccsim/examples/speed.rs, built here with cargo
in release), which also reports its events and its own CPU time of the
simulation alone (what "events per packet", "ns per event" and "pkts per CPU
s" use); ns-3's side is the whole program. The machine may be shared: CPU
time, not wall time, is what compares; wall time is shown too. Instructions
per event come from `perf stat` where the CPU's counters can be read (the
whole process), else from valgrind's callgrind (ccbench's event loop alone,
World::run_unless_interrupted: deterministic, so two commits compare exactly
on a host whose speed drifts; ns-3 would take hours under it).

Each measured run is pinned to one CPU (the last this process may use;
sched_setaffinity, inherited from the thread that starts it), ns-3's as
ccbench's, and ccbench's runs alongside ns-3 to another: the scheduler
neither moves a run nor puts the two sides on one CPU. The host's own
speed still swings: on the 2-CPU development machine the same build ran
(a) at medians of 6.7 to 10.8 M packets per CPU s in sets of 21 runs a
minute apart, pinned or not (2026-12-04), and ns-3 from 18,800 to 26,900.

"Bottleneck packets" are the packets the bottleneck link transmits (ccbench:
the downlink's departures; ns-3: PhyTxEnd on the bottleneck device). The
ratio is ccbench's packets per CPU second over ns-3's: in the table, of the
two measured one after the other; in the "at the same time" line, of ns-3
and ccbench's runs on the other core while ns-3 ran, which a host whose
speed drifts over minutes affects alike (two cores needed).

With --pgo, each scenario also runs on the core as scripts/install-pgo
builds it (profile-guided optimization, trained on the runs of `ccbench
compare --quick`, none of these), taking turns with the default build, and
the two builds' results are checked to be identical.

    python3 bench/suite.py [--no-ns3 | --ns3-all] [--pgo] [--repeat 3] [--pairs 1] [--only a,b] [--out FILE]

Not a test: timings depend on the machine and its load; nothing asserts on them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE / "ns3"))
sys.path.insert(0, str(HERE))

import ns3_runner  # noqa: E402

SPEED_BINARY = ROOT / "target" / "release" / "examples" / "speed"
#: --pgo: the profile scripts/install-pgo writes, and the speed example built with it.
PGO_PROFILE = ROOT / "target" / "pgo" / "ccsim.profdata"
PGO_SPEED_BINARY = ROOT / "target" / "pgo" / "speed" / "release" / "examples" / "speed"
#: What the profile depends on: the core's sources and the training workload.
PGO_INPUTS = (
    ROOT / "crates" / "ccsim",
    ROOT / "Cargo.lock",
    ROOT / "bench" / "pgo_training.py",
    ROOT / "python" / "ccbench" / "campaigns" / "compare.toml",
)
DELAY_MS = 10


@dataclass
class Case:
    key: str
    label: str
    scenario: dict
    # The ns-3 dumbbell's arguments (ns3_runner.command), None: no ns-3 model.
    ns3: dict | None
    # Run ns-3 by default (False: only with --ns3-all, it takes too long).
    ns3_default: bool = True
    ns3_note: str = ""


def dumbbell(name: str, rate: str, flows: int, duration_s: float, cc: str = "cubic", tcp: dict | None = None) -> dict:
    flow = {"cc": cc, "count": flows, **({"tcp": tcp} if tcp else {})}
    return {
        "name": name,
        "duration": duration_s,
        "seed": 1,
        "downlink": {"rate": rate, "delay": f"{DELAY_MS}ms", "queue": {"size": "1bdp"}},
        "flows": [flow],
        # The suite measures the simulator, not the recording of per-ACK samples.
        "record": {"rtt_samples": False},
    }


def ns3_args(flows: int, rate_mbps: float, duration_s: float, cc: str = "Cubic") -> dict:
    return {"cc": cc, "flows": flows, "rate_mbps": rate_mbps, "delay_ms": DELAY_MS, "duration_s": duration_s}


def scenario_file(key: str) -> dict:
    """A scenario of bench/scenarios/ as its TOML file has it (the
    u-scenarios give `duration` in seconds, as the suite's own do)."""
    with open(HERE / "scenarios" / f"{key}.toml", "rb") as f:
        return tomllib.load(f)


CASES = [
    Case("a", "1 Gbit/s x 8 cubic x 20 s", dumbbell("suite-a", "1Gbit", 8, 20), ns3_args(8, 1000, 20)),
    Case("b", "100 Mbit/s x 256 cubic x 20 s", dumbbell("suite-b", "100Mbit", 256, 20), ns3_args(256, 100, 20)),
    Case(
        "c",
        "10 Gbit/s x 16 cubic x 10 s",
        dumbbell("suite-c", "10Gbit", 16, 10),
        ns3_args(16, 10_000, 10),
        ns3_default=False,
        ns3_note="ns-3 skipped (about 10 min; --ns3-all runs it)",
    ),
    Case(
        "d",
        "umts profile x 1 newreno x 100 s",
        {"name": "suite-d", "profile": "umts", "duration": 100, "seed": 1, "flows": [{"cc": "newreno"}]},
        None,
        ns3_note="no ns-3 model of the UMTS channel (RLC ARQ, outages)",
    ),
    Case(
        "e",
        "1 Gbit/s x 4096 cubic x 10 s",
        dumbbell("suite-e", "1Gbit", 4096, 10),
        ns3_args(4096, 1000, 10),
        ns3_default=False,
        ns3_note="ns-3 skipped (4096 nodes; --ns3-all runs it)",
    ),
    Case(
        "f",
        "1 Gbit/s x 8 bbr x 20 s",
        dumbbell("suite-f", "1Gbit", 8, 20, "bbr"),
        ns3_args(8, 1000, 20, "Bbr"),
        ns3_default=False,
        ns3_note="ns-3 skipped (--ns3-all runs it, TcpBbr)",
    ),
    Case(
        "g",
        "1 Gbit/s x 8 cubic paced x 20 s",
        dumbbell("suite-g", "1Gbit", 8, 20, tcp={"pacing": True}),
        None,
        ns3_note="no ns-3 run (its dumbbell does not pace)",
    ),
    # Issue 55's scenarios as they were measured; bench/scenarios/README.md
    # says how the two simulators' goodputs compare and why.
    Case(
        "u1",
        "100 Mbit/s x 64 newreno x 30 s",
        scenario_file("u1"),
        {"cc": "NewReno", "flows": 64, "rate_mbps": 100, "delay_ms": 50, "duration_s": 30, "loss_rate": 0.01},
    ),
    Case(
        "u2",
        "10 Mbit/s x 16 mixed x 60 s",
        scenario_file("u2"),
        {
            "cc": "NewReno",
            "flows": 16,
            "rate_mbps": 10,
            "delay_ms": 100,
            "duration_s": 60,
            "cc_list": "NewReno:4,Cubic:4,Vegas:4,WestwoodPlus:4",
        },
    ),
    Case(
        "u4",
        "1 Gbit/s x 1000 bbr x 10 s",
        scenario_file("u4"),
        {"cc": "Bbr", "flows": 1000, "rate_mbps": 1000, "delay_ms": 20, "duration_s": 10},
        ns3_default=False,
        ns3_note="ns-3 skipped (1000 flows: over 8 min of CPU; --ns3-all runs it)",
    ),
]

#: The paced cases and the unpaced one they are measured against (the same path and load).
PACED_PAIRS = (("f", "a"), ("g", "a"))


@dataclass
class Measured:
    cpu_s: float
    wall_s: float
    peak_rss_bytes: int
    stdout: str
    instructions: int | None = None
    extra: dict = field(default_factory=dict)


def perf_counts_instructions() -> bool:
    """Whether `perf stat` can read the instructions counter here (not in most VMs)."""
    if not shutil.which("perf"):
        return False
    proc = subprocess.run(
        ["perf", "stat", "-x,", "-e", "instructions", "true"], capture_output=True, text=True, check=False
    )
    return proc.returncode == 0 and "<not" not in proc.stderr and "instructions" in proc.stderr


def peak_rss_of(pid: int) -> int | None:
    """VmHWM of a running process, in bytes (None once it is gone, or while
    it is still the copy of this process that will exec the program)."""
    try:
        if os.readlink(f"/proc/{pid}/exe") == os.readlink("/proc/self/exe"):
            return None
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def measurement_cpus() -> tuple[int, int | None]:
    """The CPU the measured runs are pinned to, and another one for
    ccbench's runs alongside ns-3 (None where this process may use only one)."""
    cpus = sorted(os.sched_getaffinity(0))
    return cpus[-1], (cpus[0] if len(cpus) > 1 else None)


@contextlib.contextmanager
def pinned(cpu: int | None) -> Iterator[None]:
    """The calling thread (so a child it starts, which inherits its
    affinity) runs on `cpu` only; as before after (None: no change). The
    affinity is the thread's own: the other thread of `run_ns3` keeps its."""
    if cpu is None:
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def measure(argv: list[str], use_perf: bool, cpu: int | None = None) -> Measured:
    """Runs `argv` as a child, on `cpu` alone if given, and returns its own
    CPU time (wait4) and the peak resident set read from /proc while it ran
    (the high-water mark the kernel keeps, sampled every 20 ms)."""
    perf_out = None
    if use_perf:
        fd, perf_out = tempfile.mkstemp(prefix="ccbench-perf-", suffix=".csv")
        os.close(fd)
        argv = ["perf", "stat", "-x,", "-e", "instructions", "-o", perf_out, "--", *argv]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        with pinned(cpu):
            proc = subprocess.Popen(argv, stdout=out, stderr=err)
        peak = 0
        while True:
            # Under perf the program is perf's child: take the largest of the two.
            for pid in [proc.pid, *child_pids(proc.pid)]:
                peak = max(peak, peak_rss_of(pid) or 0)
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            time.sleep(0.02)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({proc.returncode}): {stderr.strip()[-2000:]}")
    instructions = None
    if perf_out:
        for line in Path(perf_out).read_text().splitlines():
            fields = line.split(",")
            if len(fields) > 2 and fields[2].startswith("instructions") and fields[0].isdigit():
                instructions = int(fields[0])
        os.unlink(perf_out)
    return Measured(usage.ru_utime + usage.ru_stime, wall, peak, stdout, instructions)


def child_pids(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(c) for c in f.read().split()]
    except OSError:
        return []


def build_speed_binary() -> Path:
    print("building crates/ccsim/examples/speed.rs (cargo, release) ...", file=sys.stderr, flush=True)
    subprocess.run(
        ["cargo", "build", "--quiet", "--release", "-p", "ccsim", "--example", "speed"], cwd=ROOT, check=True
    )
    return SPEED_BINARY


def profile_is_current(profile: Path, inputs: tuple[Path, ...]) -> bool:
    """Whether `profile` exists and is newer than every file of `inputs`
    (files or directories). A profile of older sources is not used: rustc
    drops the counts of every function that changed since (a "hash
    mismatch" warning), so the build would be only partly optimized."""
    if not profile.exists():
        return False
    files = (f for i in inputs for f in ([i] if i.is_file() else i.rglob("*")) if f.is_file())
    return all(f.stat().st_mtime <= profile.stat().st_mtime for f in files)


def build_pgo_speed_binary() -> Path:
    """The speed example built as scripts/install-pgo builds the extension: with
    the profile of its training runs (written first, by the script, when missing
    or older than the core's sources)."""
    if not profile_is_current(PGO_PROFILE, PGO_INPUTS):
        print("writing the PGO profile (scripts/install-pgo --profile-only) ...", file=sys.stderr, flush=True)
        subprocess.run(
            [str(ROOT / "scripts" / "install-pgo"), "--profile-only"],
            cwd=ROOT,
            check=True,
            env={**os.environ, "PYTHON": sys.executable},
        )
    print("building crates/ccsim/examples/speed.rs with the PGO profile ...", file=sys.stderr, flush=True)
    env = {
        **os.environ,
        "RUSTFLAGS": f"-Cprofile-use={PGO_PROFILE}",
        "CARGO_TARGET_DIR": str(PGO_SPEED_BINARY.parents[2]),
    }
    subprocess.run(
        ["cargo", "build", "--quiet", "--release", "-p", "ccsim", "--example", "speed"], cwd=ROOT, check=True, env=env
    )
    return PGO_SPEED_BINARY


def normalized(scenario: dict | Path) -> str:
    """The scenario as the core reads it (profiles expanded, defaults filled in)."""
    from ccbench import scenario as ccbench_scenario

    return json.dumps(ccbench_scenario.load(scenario, allow_large=True))


@contextlib.contextmanager
def scenario_json(scenario: dict | Path) -> Iterator[str]:
    """The scenario, normalized, in a temporary JSON file for the speed binary."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(normalized(scenario))
    try:
        yield f.name
    finally:
        os.unlink(f.name)


def run_ccbench(case: Case, repeat: int, use_perf: bool, use_callgrind: bool, binaries: list[Path]) -> list[dict]:
    """`repeat` runs of each of `binaries` (builds of the speed example), taking
    turns so that a drift of the host's speed touches them alike; per binary,
    what its median run by CPU time measured."""
    cpu, _ = measurement_cpus()
    with scenario_json(case.scenario) as path:
        runs: list[list[Measured]] = [[] for _ in binaries]
        for _ in range(repeat):
            for b, binary in enumerate(binaries):
                runs[b].append(measure_speed_run(path, use_perf, binary, cpu))
        counted = [event_loop_instructions(path, binary) if use_callgrind else None for binary in binaries]
    return [summarize_ccbench(case, r, c) for r, c in zip(runs, counted)]


def summarize_ccbench(case: Case, runs: list[Measured], counted: int | None) -> dict:
    best = sorted(runs, key=lambda m: m.extra["cpu_seconds"])[len(runs) // 2]  # the median run by CPU time
    r = best.extra
    packets, events, sim_cpu = r["bottleneck_packets"], r["events"], r["cpu_seconds"]
    instructions = counted if counted is not None else best.instructions
    return {
        "events_per_packet": events / max(packets, 1),
        "ns_per_event": 1e9 * sim_cpu / max(events, 1),
        "pps_cpu": packets / max(sim_cpu, 1e-9),
        # Its own VmHWM at the end of the run (exact; a 20 ms sample can miss a short run's peak).
        "peak_rss_bytes": r["peak_rss_bytes"],
        "wall_s": best.wall_s,
        "cpu_s": best.cpu_s,
        "sim_cpu_s": sim_cpu,
        "instructions_per_event": instructions / events if instructions else None,
        "packets": packets,
        "events": events,
        "goodput_bps": 8 * r["delivered_bytes"] / float(case.scenario["duration"]),
        "cpu_runs": [m.extra["cpu_seconds"] for m in runs],
        "digest": r["digest"],
    }


def paced_pair_line(paced: dict, plain: dict, paced_key: str, plain_key: str) -> str:
    """What a bottleneck packet of a paced case costs against one of the
    unpaced case beside it: CPU seconds per packet (of the median runs),
    and instructions per packet where they were counted."""
    ours, base = paced["ccbench"], plain["ccbench"]
    cpu = base["pps_cpu"] / max(ours["pps_cpu"], 1e-9)
    line = f"({paced_key}) against ({plain_key}): {cpu:.2f}x the CPU time per bottleneck packet"
    if ours["instructions_per_event"] and base["instructions_per_event"]:
        per_packet = [r["instructions_per_event"] * r["events"] / max(r["packets"], 1) for r in (ours, base)]
        ratio, (mine, theirs) = per_packet[0] / per_packet[1], per_packet
        line += f", {ratio:.2f}x the instructions ({mine:,.0f} vs {theirs:,.0f})"
    return line + " (issue 55: at most 1.5x)"


def speed_command(scenario_path: str, binary: Path = SPEED_BINARY) -> list[str]:
    """The speed example on a scenario file, the downlink as its bottleneck."""
    return [str(binary), scenario_path, "downlink"]


def measure_speed_run(
    scenario_path: str, use_perf: bool, binary: Path = SPEED_BINARY, cpu: int | None = None
) -> Measured:
    m = measure(speed_command(scenario_path, binary), use_perf, cpu)
    m.extra = json.loads(m.stdout)
    return m


def event_loop_instructions(scenario_path: str, binary: Path = SPEED_BINARY) -> int:
    """Instructions of one run's event loop, counted by valgrind's callgrind."""
    fd, out = tempfile.mkstemp(prefix="ccbench-callgrind-", suffix=".out")
    os.close(fd)
    try:
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--toggle-collect=ccsim::sim::World::run_unless_interrupted",
                f"--callgrind-out-file={out}",
                *speed_command(scenario_path, binary),
            ],
            check=True,
            capture_output=True,
        )
        summary = [line for line in Path(out).read_text().splitlines() if line.startswith("summary:")]
        return int(summary[0].split()[1])
    finally:
        os.unlink(out)


def run_ns3(case: Case, use_perf: bool, binaries: list[Path]) -> dict:
    """ns-3's side, with ccbench's run again and again on the other core
    while it runs (each of `binaries` in turn): a machine whose speed drifts
    over the minutes ns-3 takes then slows or speeds both alike, and the
    ratio of the two at once (`alongside`, per binary the median of those
    runs) holds better than that of two measurements minutes apart."""
    ns3_runner.build()
    cpu, other_cpu = measurement_cpus()
    ns3_done = threading.Event()
    alongside: list[list[float]] = [[] for _ in binaries]
    # The same runs by their whole process's CPU time (start-up included).
    alongside_process: list[list[float]] = [[] for _ in binaries]

    def ccbench_meanwhile(path: str) -> None:
        while not ns3_done.is_set():
            for b, binary in enumerate(binaries):
                m = measure_speed_run(path, False, binary, other_cpu)
                r = m.extra
                alongside[b].append(r["bottleneck_packets"] / max(r["cpu_seconds"], 1e-9))
                alongside_process[b].append(r["bottleneck_packets"] / max(m.cpu_s, 1e-9))

    with scenario_json(case.scenario) as path:
        thread = threading.Thread(target=ccbench_meanwhile, args=(path,), daemon=True)
        thread.start()
        try:
            m = measure(ns3_runner.command(**case.ns3), use_perf, cpu)
        finally:
            ns3_done.set()
            thread.join()
    r = json.loads(m.stdout)
    packets = int(r["bottleneck_packets"])
    return {
        "ccbench_alongside_pps_cpu": [statistics.median(a) for a in alongside],
        "ccbench_alongside_process_pps_cpu": [statistics.median(a) for a in alongside_process],
        "ccbench_alongside_runs": len(alongside[0]),
        "events_per_packet": None,
        "ns_per_event": None,
        "pps_cpu": packets / max(m.cpu_s, 1e-9),
        "peak_rss_bytes": m.peak_rss_bytes,
        "wall_s": m.wall_s,
        "cpu_s": m.cpu_s,
        "instructions_per_packet": m.instructions / packets if m.instructions else None,
        "packets": packets,
        "goodput_bps": float(r["aggregate_goodput_bps"]),
        "output": r,
    }


def quartiles(values: list[float]) -> tuple[float, float, float]:
    """First quartile, median and third quartile (inclusive method: the
    extremes of two values)."""
    if len(values) == 1:
        return values[0], values[0], values[0]
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q2, q3


def pairs_line(pairs: list[dict]) -> str:
    """The ratios of `pairs` (each an ns-3 run and ccbench's median run on
    the other core while it ran), by process and by simulation CPU time:
    median [first quartile, third quartile]."""

    def spread(key: str) -> str:
        q1, q2, q3 = quartiles([p[key][0] / p["pps_cpu"] for p in pairs])
        return f"{q2:.0f}x [{q1:.0f}x, {q3:.0f}x]"

    return (
        f"{len(pairs)} pair{'s' if len(pairs) > 1 else ''} (ns-3 beside ccbench on the other core), "
        f"ccbench/ns-3 pkts per CPU s, median [quartiles]: by process CPU time "
        f"{spread('ccbench_alongside_process_pps_cpu')}, by simulation CPU time {spread('ccbench_alongside_pps_cpu')}"
    )


def ccbench_flows(scenario: dict):
    """The flows table of one run of `scenario` through the Python package
    (goodput, timeouts, recoveries of each flow; the speed example prints
    totals only)."""
    import ccbench

    return ccbench.run(scenario, allow_large=True, tables=[]).flows


def recovery_line(flows, ns3: dict) -> str:
    """Each side's timeouts, fast recoveries and retransmitted segments."""
    timeouts, recoveries = int(flows["timeouts"].sum()), int(flows["fast_recoveries"].sum())
    return (
        f"losses: ccbench {timeouts} timeouts, {recoveries} fast recoveries, "
        f"{int(flows['retransmitted_segments'].sum())} retransmitted segments; ns-3 {ns3['rto_events']} RTOs, "
        f"{ns3['fast_recovery_events']} fast recoveries, {ns3['retransmitted_segments']} retransmitted segments"
    )


def per_algorithm_line(flows, ns3: dict) -> str | None:
    """Each algorithm's goodput on both sides, where the flows mix them
    (matched by flow index: both sides list the flows in the same order)."""
    names = list(flows["cc"])
    if len(set(names)) < 2:
        return None
    ours: dict[str, float] = {}
    theirs: dict[str, float] = {}
    for name, bps, ns3_bps in zip(names, flows["goodput_bps"], ns3["per_flow_goodput_bps"]):
        ours[name] = ours.get(name, 0.0) + bps
        theirs[name] = theirs.get(name, 0.0) + ns3_bps
    parts = [f"{n} {ours[n] / 1e6:.2f} / {theirs[n] / 1e6:.2f}" for n in ours]
    return "per algorithm, Mbit/s (ccbench / ns-3): " + ", ".join(parts)


def campaign_rate(reps: int, profile: str | None = None, duration: str = "0.5s") -> dict:
    """bench/campaign_scale.py's campaign (5 algorithms x 6 rates x reps, 0.5 s
    each; on `profile`, 5 algorithms x reps of `duration`) with one worker:
    runs per wall second and per CPU second (this process and its workers)."""
    from campaign_scale import campaign
    from ccbench.campaigns import runner, spec

    out = Path(tempfile.mkdtemp(prefix="ccbench-suite-")) / "campaign"
    self0, children0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = runner.run(spec.parse(campaign(reps, profile, duration)), out, jobs=1)
    wall = time.perf_counter() - t0
    self1, children1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    shutil.rmtree(out.parent)
    cpu = sum(
        (b.ru_utime + b.ru_stime) - (a.ru_utime + a.ru_stime) for a, b in ((self0, self1), (children0, children1))
    )
    return {"runs": done.total, "wall_s": wall, "cpu_s": cpu, "failed": done.failed}


def fmt(value, spec: str, none: str = "-") -> str:
    return none if value is None else format(value, spec)


def commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False).stdout.strip()

    head = git("rev-parse", "--short=12", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", "crates", "python", "bench")
    return head + (" (with uncommitted changes)" if dirty else "")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--no-ns3", action="store_true", help="ccbench only")
    group.add_argument("--ns3-all", action="store_true", help="also run ns-3 where it takes long (c, e)")
    ap.add_argument("--repeat", type=int, default=3, help="ccbench runs per scenario (the median by CPU time)")
    ap.add_argument(
        "--pairs", type=int, default=1, help="ns-3 runs per scenario, each beside ccbench's (median and quartiles)"
    )
    ap.add_argument("--only", default="", help="comma-separated scenario keys, e.g. a,d (default: all)")
    ap.add_argument(
        "--campaign-reps",
        type=int,
        default=4,
        help="repetitions of the campaigns (x 30 runs each: plain rates, the lte-driving trace); 0: skip",
    )
    ap.add_argument("--no-callgrind", action="store_true", help="no instruction counts where perf cannot count")
    ap.add_argument(
        "--pgo",
        action="store_true",
        help="also the core as scripts/install-pgo builds it (profile-guided optimization), in turn with the default",
    )
    ap.add_argument("--out", help="also write the table to this file")
    args = ap.parse_args()

    use_perf = perf_counts_instructions()
    use_callgrind = not use_perf and not args.no_callgrind and shutil.which("valgrind") is not None
    binaries = [build_speed_binary()] + ([build_pgo_speed_binary()] if args.pgo else [])
    sides = ["ccbench", "PGO"][: len(binaries)]
    lines: list[str] = []

    def emit(line: str = "") -> None:
        print(line, flush=True)
        lines.append(line)

    load = os.getloadavg()
    cpu, other_cpu = measurement_cpus()
    alongside = (
        f"ccbench's runs alongside ns-3: CPU {other_cpu}" if other_cpu is not None else "the only one it may use"
    )
    emit(f"ccbench speed suite, commit {commit()}, {time.strftime('%Y-%m-%d %H:%M %Z')}")
    emit(f"command: python3 bench/suite.py {' '.join(sys.argv[1:])}".rstrip())
    emit(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, load average {load[0]:.1f} at the start; "
        f"timings are CPU time (user + system) of each side's own process, pinned to CPU {cpu} ({alongside})"
    )
    if use_perf:
        counted = "perf stat, the whole process"
    elif use_callgrind:
        counted = "callgrind, ccbench's event loop alone (perf stat cannot read the counters on this machine)"
    else:
        why = "--no-callgrind" if args.no_callgrind else "no valgrind"
        counted = f"n/a (perf stat cannot read the instructions counter on this machine; {why})"
    emit(f"instructions/event: {counted}")
    emit()
    header = (
        f"{'scenario':<38}{'side':<8}{'ev/pkt':>7}{'ns/ev':>7}{'instr/ev':>9}{'bottleneck pkts':>16}"
        f"{'pkts/CPU s':>13}{'peak RSS MB':>12}{'wall s':>9}{'CPU s':>9}{'vs ns-3':>9}"
    )
    emit(header)
    emit("-" * len(header))
    results = {}
    only = {k.strip() for k in args.only.split(",") if k.strip()}
    for case in CASES:
        if only and case.key not in only:
            continue
        label = f"({case.key}) {case.label}"
        measured = run_ccbench(case, args.repeat, use_perf, use_callgrind, binaries)
        theirs = None
        run_theirs = case.ns3 is not None and not args.no_ns3 and (case.ns3_default or args.ns3_all)
        pairs = []
        if run_theirs:
            pairs = [run_ns3(case, use_perf, binaries) for _ in range(max(args.pairs, 1))]
            theirs = sorted(pairs, key=lambda p: p["cpu_s"])[len(pairs) // 2]  # the median run by CPU time
        for side, ours in zip(sides, measured):
            ratio = f"{ours['pps_cpu'] / theirs['pps_cpu']:>8.0f}x" if theirs else ""
            emit(
                f"{label if side == sides[0] else '':<38}{side:<8}{ours['events_per_packet']:>7.2f}"
                f"{ours['ns_per_event']:>7.0f}{fmt(ours['instructions_per_event'], '.0f'):>9}{ours['packets']:>16,}"
                f"{ours['pps_cpu']:>13,.0f}{ours['peak_rss_bytes'] / 1e6:>12.1f}{ours['wall_s']:>9.2f}"
                f"{ours['cpu_s']:>9.2f}{ratio:>9}"
            )
        if theirs:
            emit(
                f"{'':<38}{'ns-3':<8}{'-':>7}{'-':>7}{'-':>9}{theirs['packets']:>16,}{theirs['pps_cpu']:>13,.0f}"
                f"{theirs['peak_rss_bytes'] / 1e6:>12.1f}{theirs['wall_s']:>9.2f}{theirs['cpu_s']:>9.2f}{'':>9}"
            )
            ours = measured[0]
            off = 100 * (ours["goodput_bps"] / theirs["goodput_bps"] - 1)
            emit(
                f"{'':<38}goodput: ccbench {ours['goodput_bps'] / 1e6:.1f} Mbit/s, "
                f"ns-3 {theirs['goodput_bps'] / 1e6:.1f} Mbit/s ({off:+.1f}%)"
            )
            flows = ccbench_flows(case.scenario)
            emit(f"{'':<38}{recovery_line(flows, theirs['output'])}")
            if line := per_algorithm_line(flows, theirs["output"]):
                emit(f"{'':<38}{line}")
            for side, alongside in zip(sides, theirs["ccbench_alongside_pps_cpu"]):
                emit(
                    f"{'':<38}at the same time: {side} {alongside:,.0f} pkts/CPU s (median of "
                    f"{theirs['ccbench_alongside_runs']} runs on the other core while ns-3 ran), "
                    f"{alongside / theirs['pps_cpu']:.0f}x"
                )
            emit(f"{'':<38}{pairs_line(pairs)}")
        else:
            note = "ns-3 not run (--no-ns3)" if args.no_ns3 and case.ns3 is not None else case.ns3_note
            emit(f"{'':<38}{note}")
        if args.pgo and measured[0]["digest"] != measured[1]["digest"]:
            raise SystemExit(f"({case.key}): the PGO build's results differ from the default build's")
        results[case.key] = {"label": case.label, "ccbench": measured[0], "ns3": theirs}
        if pairs:
            results[case.key]["pair_ratios"] = {
                "process_cpu": [p["ccbench_alongside_process_pps_cpu"][0] / p["pps_cpu"] for p in pairs],
                "simulation_cpu": [p["ccbench_alongside_pps_cpu"][0] / p["pps_cpu"] for p in pairs],
            }
        if args.pgo:
            results[case.key]["ccbench_pgo"] = measured[1]
    for paced, plain in PACED_PAIRS:
        if paced in results and plain in results:
            emit(paced_pair_line(results[paced], results[plain], paced, plain))
    if args.campaign_reps > 0:
        emit()
        # The same number of runs on the lte-driving trace (45,000 opportunities
        # down, 11,000 up in every run's scenario), 10 s each.
        for key, profile, reps, duration in (
            ("campaign", None, args.campaign_reps, "0.5s"),
            ("campaign_trace", "lte-driving", 6 * args.campaign_reps, "10s"),
        ):
            c = campaign_rate(reps, profile, duration)
            on = f"on the {profile} profile, " if profile else ""
            emit(
                f"campaign (bench/campaign_scale.py's, {on}{c['runs']} runs of {duration}, 1 worker): "
                f"{c['runs'] / c['wall_s']:.1f} runs per wall s, {c['runs'] / max(c['cpu_s'], 1e-9):.1f} runs per CPU s"
            )
            results[key] = c
    emit()
    emit(
        "ev/pkt: events per bottleneck packet; ns/ev and pkts/CPU s: CPU time of the simulation alone "
        "(ccbench) or of the whole program (ns-3); CPU s and peak RSS: the whole process"
    )
    if args.pgo:
        emit(
            "PGO: the core built with profile-guided optimization (scripts/install-pgo), trained on the runs of "
            "`ccbench compare --quick`, not on these scenarios; its results equal the default build's bit for bit"
        )
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text("\n".join(lines) + "\n")
        Path(args.out).with_suffix(".json").write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
