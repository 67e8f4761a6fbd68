"""One scenario through the real Linux kernel: the emulator (ccemu) between
two network namespaces, the flows as kernel sockets driven by one agent per
namespace, and the results as the simulator's tables.

Order of a run: preflight; leftovers of dead runs removed; the scenario
checked for kernel mode; the emulator started (it creates the TUN devices);
namespaces created, devices moved in, addresses, routes (initcwnd, rto_min,
advmss, quickack) and sysctls set; the agents started and ready; then every
party is told the same CLOCK_MONOTONIC time 0. Whatever happens (success,
an error, Ctrl-C, SIGTERM) the run's processes and namespaces are removed.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ccbench.emulate import host, kernel, tables
from ccbench.scenario import capture_dir as scenario_capture_dir
from ccbench.scenario import create_capture_file, load

#: Time between the start signal and the run's time 0 (every party is waiting by then).
START_MARGIN_S = 0.3
TCP_PORT_BASE, UDP_PORT_BASE = 20000, 30000
AGENT = Path(__file__).with_name("agent.py")
#: Packets a TUN device holds for the emulator to read. The kernel hands a TUN
#: device whole bursts at once (it orphans the packets, so TCP Small Queues do
#: not hold them back): a slow-start burst of thousands of packets must wait
#: here, not be dropped (a loss the scenario did not ask for).
TUN_QUEUE_PACKETS = 20000


#: What starts the emulator: the one built into this ccbench's extension module (ccemu.py).
EMULATOR_MODULE = "ccbench.emulate.ccemu"


def find_ccemu() -> list[str]:
    """The command that starts the emulator: by default the one built into this
    ccbench (`python -m ccbench.emulate.ccemu`: the same build as the core, so
    the two cannot disagree); $CCBENCH_CCEMU names a `ccemu` binary instead (a
    development build), accepted if it was built from these sources (check_ccemu)."""
    path = os.environ.get("CCBENCH_CCEMU")
    if path:
        return [check_ccemu(path)]
    from ccbench import _ccsim

    if not hasattr(_ccsim, "emulator_main"):
        raise host.PreflightError("this ccbench was built without the kernel-mode emulator (it needs Linux)")
    return [sys.executable, "-m", EMULATOR_MODULE]


def unavailable() -> str | None:
    """Why kernel mode cannot run here (root, /dev/net/tun, ip netns, the
    emulator: host.preflight and find_ccemu), or None when it can."""
    try:
        host.preflight()
        find_ccemu()
    except host.PreflightError as e:
        return str(e)
    return None


def check_ccemu(path: str) -> str:
    """`path`, if `ccemu --source-id` says it was built from the sources this
    ccbench's core was (ccsim::SOURCE_ID): an older emulator would not read
    today's scenarios, and one that did could run another link model."""
    from ccbench import _ccsim

    try:
        said = subprocess.run(
            [path, "--source-id"], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as e:
        raise host.PreflightError(f"the emulator binary {path} (CCBENCH_CCEMU) does not run: {e}") from None
    if said != _ccsim.SOURCE_ID:
        raise host.PreflightError(
            f"the emulator binary {path} (CCBENCH_CCEMU) was built from other sources than this ccbench: "
            "rebuild it with `cargo build --release -p ccemu`, or unset CCBENCH_CCEMU to use the emulator "
            "built into ccbench"
        )
    return path


def plan_flows(scenario: dict, available: list[str]) -> list[dict]:
    """Every flow (groups expanded by count, ids as the simulator numbers them)."""
    flows = []
    for group, f in enumerate(scenario["flows"]):
        for _ in range(f["count"]):
            flows.append(
                {
                    "flow": len(flows),
                    "group": group,
                    "cc": f["cc"],
                    "kernel_cc": kernel.kernel_algorithm(f["cc"], available),
                    "direction": f["direction"],
                    "start_s": f["start"],
                    "stop_s": f.get("stop"),
                    "size": f.get("size"),
                    "tcp": f["tcp"],
                }
            )
    return flows


def background_schedule(scenario: dict) -> dict | None:
    """The simulator's schedule of the scenario's [background] (sim::background_schedule):
    byte strings "transfers" and "datagrams" of (ns, bytes) u64 pairs and the source's
    transfer counts; None without a background."""
    from ccbench import _ccsim

    return _ccsim.background_schedule(json.dumps(scenario))


def agent_plans(scenario: dict, flows: list[dict], schedule: dict | None = None) -> dict[str, dict]:
    """What each namespace's agent runs: "snd" sends downlink data, "rcv" uplink data.
    `schedule`: the background's (background_schedule), if the scenario has one."""
    addr = {"snd": f"{host.SENDER_NET}.1", "rcv": f"{host.RECEIVER_NET}.1"}
    other = {"snd": "rcv", "rcv": "snd"}
    plans = {
        side: {
            "duration_s": scenario["duration"],
            # TCP_INFO (and the receivers' byte counts) every record.interval, as the
            # simulator samples its series and the emulator its links.
            "sample_interval_s": scenario["record"]["interval"],
            "tcp_senders": [],
            "tcp_receivers": [],
            "udp_sources": [],
            "udp_sinks": [],
            "background_tcp": [],
            "background_tcp_sinks": [],
        }
        for side in addr
    }
    for f in flows:
        src = "snd" if f["direction"] == "down" else "rcv"
        dst, port, tcp = other[src], TCP_PORT_BASE + f["flow"], f["tcp"]
        plans[src]["tcp_senders"].append(
            {
                "flow": f["flow"],
                "cc": f["kernel_cc"],
                "dst": addr[dst],
                "port": port,
                "start_s": f["start_s"],
                "stop_s": f["stop_s"],
                "size": f["size"],
                "snd_buf": kernel.so_sndbuf(tcp),
            }
        )
        plans[dst]["tcp_receivers"].append(
            {"flow": f["flow"], "addr": addr[dst], "port": port, "size": f["size"], "rcv_buf": kernel.rcv_buf(tcp)}
        )
    for i, u in enumerate(scenario.get("udp", [])):
        src = "snd" if u["direction"] == "down" else "rcv"
        dst = other[src]
        common = {"source": i, "port": UDP_PORT_BASE + i}
        plans[src]["udp_sources"].append(
            {
                **common,
                "dst": addr[dst],
                "rate_bps": u["rate"],
                "packet_size": u["packet_size"],
                "start_s": u["start"],
                "stop_s": u.get("stop"),
            }
        )
        plans[dst]["udp_sinks"].append({**common, "addr": addr[dst]})
    b = scenario.get("background")
    if b and schedule is not None:
        k = len(scenario.get("udp", []))
        src = "snd" if b["direction"] == "down" else "rcv"
        dst = other[src]
        if kernel.background_transport(b) == "tcp":
            port = background_tcp_port(flows)
            plans[src]["background_tcp"].append(
                {
                    "source": k,
                    "cc": kernel.linux_module(b["cc"]),  # check() found it in the kernel
                    "dst": addr[dst],
                    "port": port,
                    "snd_buf": kernel.so_sndbuf(b["tcp"]),
                    "transfers": base64.b64encode(schedule["transfers"]).decode(),
                }
            )
            plans[dst]["background_tcp_sinks"].append(
                {"source": k, "addr": addr[dst], "port": port, "rcv_buf": kernel.rcv_buf(b["tcp"])}
            )
        else:
            common = {"source": k, "port": UDP_PORT_BASE + k}
            plans[src]["udp_sources"].append(
                {**common, "dst": addr[dst], "datagrams": base64.b64encode(schedule["datagrams"]).decode()}
            )
            plans[dst]["udp_sinks"].append({**common, "addr": addr[dst]})
    return plans


def background_tcp_port(flows: list[dict]) -> int:
    """The background's TCP transfers connect to the port after the flows' receivers."""
    return TCP_PORT_BASE + len(flows)


class _Line:
    """Reads one line of a child's stdout with a deadline."""

    def __init__(self, proc: subprocess.Popen, what: str):
        self.proc, self.what = proc, what

    def read(self, timeout_s: float) -> str:
        box: list[str] = []
        t = threading.Thread(target=lambda: box.append(self.proc.stdout.readline()), daemon=True)
        t.start()
        t.join(timeout_s)
        if not box or not box[0]:
            err = ""
            if self.proc.poll() is not None and self.proc.stderr is not None:
                err = self.proc.stderr.read().strip()
            raise RuntimeError(f"{self.what} did not answer within {timeout_s:.0f} s{': ' + err if err else ''}")
        return box[0]


def _send(proc: subprocess.Popen, line: str) -> None:
    proc.stdin.write(line + "\n")
    proc.stdin.flush()


def _setup_namespaces(names: host.Names, scenario: dict) -> list[str]:
    """Creates and configures both namespaces; returns the optional sysctls the kernel refused."""
    sending: dict[str, dict | None] = {"snd": None, "rcv": None}
    receiving: dict[str, dict | None] = {"snd": None, "rcv": None}
    for _, f in kernel.tcp_senders(scenario):
        src = "snd" if f["direction"] == "down" else "rcv"
        dst = "rcv" if src == "snd" else "snd"
        sending[src] = sending[src] or f["tcp"]
        receiving[dst] = receiving[dst] or f["tcp"]
    layout = {
        "snd": (names.sender_ns, names.sender_tun, host.SENDER_NET, host.RECEIVER_NET),
        "rcv": (names.receiver_ns, names.receiver_tun, host.RECEIVER_NET, host.SENDER_NET),
    }
    skipped: list[str] = []
    for side, (ns, tun, mine, theirs) in layout.items():
        host.run_cmd("ip", "netns", "add", ns)
        skipped += host.sysctl(ns, kernel.namespace_sysctls(sending[side]), kernel.OPTIONAL_SYSCTLS)
        host.run_cmd("ip", "link", "set", tun, "netns", ns)
        ex = host.ns_exec(ns, "ip")
        host.run_cmd(*ex, "link", "set", "lo", "up")
        host.run_cmd(*ex, "link", "set", tun, "mtu", "1500", "txqueuelen", str(TUN_QUEUE_PACKETS), "up")
        if kernel.fixed_send_buffer(sending[side]):  # one segment per skb
            host.run_cmd(*ex, "link", "set", tun, "gso_max_segs", "1")
        host.run_cmd(*ex, "addr", "add", f"{mine}.1/24", "dev", tun)
        opts = kernel.route_options(sending[side], receiving[side])
        host.run_cmd(*ex, "route", "add", f"{theirs}.0/24", "dev", tun, *opts)
    return sorted(set(skipped))


def _terminate_on_sigterm():
    """SIGTERM becomes SystemExit in the main thread so the teardown runs; returns the old handler."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def handler(signum, frame):
        raise SystemExit(128 + signum)

    return signal.signal(signal.SIGTERM, handler)


def emulate(
    scenario: str | Path | Mapping[str, Any],
    seed: int | None = None,
    packets_file: str | Path | None = None,
    capture_dir: str | Path | None = None,
) -> tables.Result:
    """Runs a scenario through the real Linux kernel (root, /dev/net/tun and
    `ip netns` needed) and returns the same Result as ccbench.run.
    `packets_file`: where the emulator writes one record per packet
    (read it with `read_packet_records`). A packet capture (`[record.pcap]`:
    the real packets, at the simulator's capture point) is written in
    `capture_dir`, by default beside the scenario file (the working directory
    for a dict), as ccbench.run does; its path is `meta["pcap"]["path"]`."""
    normalized = load(scenario, seed=seed)
    capture_dir = scenario_capture_dir(scenario, capture_dir)
    available = kernel.available_algorithms()
    kernel.check(normalized, available)
    why = create_capture_file(normalized, capture_dir)
    if why:  # the emulator writes it; a place that cannot hold it is refused first
        target = capture_dir / normalized["record"]["pcap"]["path"]
        raise kernel.KernelModeError("record.pcap.path", f"cannot create {target}: {why}")
    host.preflight()
    ccemu = find_ccemu()
    host.cleanup(all_runs=False)
    flows = plan_flows(normalized, available)
    names = host.Names.for_this_process()
    procs: list[subprocess.Popen] = []
    old_handler = _terminate_on_sigterm()
    started = time.monotonic()
    try:
        emu = subprocess.Popen(
            [*ccemu, "--tag", f"{host.PREFIX}{names.tag}"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        procs.append(emu)
        config = {
            "scenario": normalized,
            "tuns": [names.sender_tun, names.receiver_tun],
            "packets_file": str(packets_file) if packets_file else None,
            "capture_dir": str(capture_dir.resolve()),
            # The flows' receivers and the background's (the next port): the capture
            # tells senders' packets by them.
            "receiver_ports": [TCP_PORT_BASE, len(flows) + 1],
            # The flows' receivers: the emulator times their data and ACKs (per-ACK RTT samples).
            "flow_ports": [TCP_PORT_BASE, len(flows)],
        }
        _send(emu, json.dumps(config))
        ready = json.loads(_Line(emu, "the emulator").read(10))
        skipped = _setup_namespaces(names, normalized)
        schedule = background_schedule(normalized)
        plans = agent_plans(normalized, flows, schedule)
        agents = {}
        for side, ns in (("snd", names.sender_ns), ("rcv", names.receiver_ns)):
            p = subprocess.Popen(
                host.ns_exec(ns, sys.executable, str(AGENT)),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            procs.append(p)
            agents[side] = p
            _send(p, json.dumps(plans[side]))
        for side, p in agents.items():
            _Line(p, f"the {side} agent").read(20)
        t0 = time.monotonic_ns() + int(START_MARGIN_S * 1e9)
        for p in [emu, *agents.values()]:
            _send(p, f"go {t0}")
        outputs = [json.loads(_Line(p, f"the {s} agent").read(normalized["duration"] + 30)) for s, p in agents.items()]
        _send(emu, "stop")
        emulator = json.loads(_Line(emu, "the emulator").read(20))
        errors = [
            e
            for a in outputs
            for k in ("tcp_senders", "tcp_receivers", "udp_sources", "background_tcp")
            for x in a[k]
            if (e := x.get("error"))
        ]
        raw = tables.build_raw(normalized, flows, outputs, emulator, normalized["duration"], schedule)
        meta = {
            "mode": "emulate",
            "kernel": os.uname().release,
            "emulator": {**emulator["stats"], "pool_slots": ready.get("pool_slots")},
            "sysctls_not_set": skipped,
            "flow_errors": errors,
            "wall_seconds": time.monotonic() - started,
        }
        if emulator.get("pcap"):
            meta["pcap"] = emulator["pcap"]
        from ccbench import __version__

        return tables.to_result(raw, normalized, __version__, meta)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()
        host.remove_run(names.tag)
        if old_handler is not None:
            signal.signal(signal.SIGTERM, old_handler)


def read_packet_records(path: str | Path):
    """The emulator's packet records as a DataFrame: link ("downlink"/"uplink"),
    t_in_s, t_out_s (NaN if not delivered), transit_ms, bytes, outcome, ce."""
    import pandas as pd

    rec = np.fromfile(path, dtype=tables.PACKET_RECORD_DTYPE)
    delivered = rec["outcome"] == 0
    t_out = np.where(delivered, rec["t_out_ns"] / 1e9, np.nan)
    outcome = np.array(["delivered", "dropped", "overrun", "write_failed"])[rec["outcome"]]
    return pd.DataFrame(
        {
            "link": np.array(["downlink", "uplink"])[rec["link"]],
            "t_in_s": rec["t_in_ns"] / 1e9,
            "t_out_s": t_out,
            "transit_ms": (t_out - rec["t_in_ns"] / 1e9) * 1e3,
            "bytes": rec["bytes"],
            "flow_ports": rec["flow"],
            "outcome": outcome,
            "ce": rec["ce"].astype(bool),
        }
    )
