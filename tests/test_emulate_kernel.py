"""Kernel mode end to end: real kernel flows through the emulator.

Needs root, /dev/net/tun and `ip netns` (the emulator is built into the
extension module). Skipped with the reason when one is missing, except under
CI=true, where CI runs as root and they must run. The machine may be shared:
the bounds are the contract's (rate within 2%, added delay within 0.5 ms at
the median and 2 ms at the 99th percentile, plus what the host's stalls
added as the emulator measured them, loss within its binomial 99%
interval), measured at the receiving sockets.

A check of real time (rate, delay) must hold in a run the host left alone.
When a run misses, the test looks at what the host did during it: the CPU
time the hypervisor gave to other guests (/proc/stat's steal) and how late
the host woke the emulator's priority (the emulator's own watchdog). The
test fails at the second miss in an undisturbed run (one may be a local
process's doing, which neither measure sees), or after four runs that all
missed; a miss in a disturbed run does not count against it. Why: on the
shared 2-core machine, 3 to 20% steal over a run made a cubic flow lose 2 to
25% of a link's rate (a stall of the sender's CPU empties the link's queue,
the burst after it overflows the queue, and cubic backs off), with the same
binary passing in quiet runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

import ccbench
import numpy as np
import pandas as pd
import pytest
from ccbench.emulate import host, runner
from ccbench.emulate.runner import unavailable as kernel_mode_unavailable
from ccbench.scenario import load
from scipy import stats

MISSING = kernel_mode_unavailable()
if MISSING and os.environ.get("CI", "").lower() == "true":
    raise RuntimeError(f"kernel-mode tests must run under CI: {MISSING}")
pytestmark = pytest.mark.skipif(MISSING is not None, reason=f"kernel mode unavailable: {MISSING}")

PAYLOAD_SHARE = 1448 / 1500


def no_leftovers(tag: str) -> None:
    names = host.Names(tag)
    assert names.sender_ns not in host.namespaces() and names.receiver_ns not in host.namespaces()
    assert not host.emulator_pids(tag)
    assert names.sender_tun not in host.tun_devices()


GIGABIT = os.environ.get("CI", "").lower() == "true" or os.environ.get("CCBENCH_EMULATE_1G") == "1"


#: A run is disturbed when the hypervisor took more than this share of the
#: machine's CPU time during it (quiet runs here: under 1%; runs that missed:
#: 3 to 20%).
STEAL_DISTURBED = 0.02
#: ... or when the host woke the emulator's priority later than this at the
#: 98th percentile (a quiet host: 0.1 to 0.3 ms).
HOST_P98_DISTURBED_US = 1000.0
#: Runs a real-time check may take when the host disturbs them.
TRIES = 4


@dataclass
class Watched:
    """A run's result and the share of the CPUs' time the hypervisor stole during it."""

    result: ccbench.Result
    steal_share: float


def steal_ticks() -> int:
    """Clock ticks the hypervisor has given this machine's CPUs to other guests."""
    with open("/proc/stat") as f:
        return int(f.readline().split()[8])


def watched(run) -> Watched:
    ticks, started = steal_ticks(), time.monotonic()
    result = run()
    cpu_ticks = (time.monotonic() - started) * os.cpu_count() * os.sysconf("SC_CLK_TCK")
    return Watched(result, (steal_ticks() - ticks) / cpu_ticks)


def disturbance(w: Watched) -> str | None:
    """What the host did to the run that no emulator can undo, or None."""
    late_us = w.result.meta["emulator"]["host_wakeups"]["lateness_p98_us"]
    if w.steal_share > STEAL_DISTURBED:
        return f"the hypervisor took {w.steal_share:.1%} of the CPUs' time"
    if late_us > HOST_P98_DISTURBED_US:
        return f"the host woke the emulator's priority {late_us / 1e3:.1f} ms late at p98"
    return None


def in_an_undisturbed_run(run, check) -> None:
    """Calls check on runs until one passes; fails at the second miss in a
    run the host left alone, or when TRIES runs missed (see the module's doc)."""
    undisturbed_misses = 0
    for attempt in range(1, TRIES + 1):
        w = run()
        try:
            check(w.result)
            return
        except AssertionError as miss:
            why = disturbance(w)
            undisturbed_misses += why is None
            if undisturbed_misses == 2 or attempt == TRIES:
                raise AssertionError(f"{miss}; run {attempt}: {why or 'the host left it alone'}") from None
            print(f"run {attempt} missed ({miss}) and {why or 'the host left it alone'}: again", file=sys.stderr)


@pytest.mark.parametrize(
    "rate_mbit",
    [
        10,
        100,
        pytest.param(
            1000,
            marks=pytest.mark.skipif(
                not GIGABIT,
                reason="1 Gbit/s needs an otherwise idle machine (2 cores here are shared): "
                "set CCBENCH_EMULATE_1G=1 (always on under CI=true)",
            ),
        ),
    ],
)
def test_delivered_rate_is_the_configured_rate(rate_mbit):
    def run():
        scenario = {
            "duration": "4s",
            "downlink": {"rate": f"{rate_mbit}Mbit", "delay": "5ms", "queue": {"size": "2bdp"}},
            "flows": [{"cc": "cubic", "tcp": {"rmem_max": "32MB", "wmem_max": "32MB"}}],
        }
        return watched(lambda: runner.emulate(scenario))

    def check(r):
        s = r.series[r.series["flow"] == 0]
        t, d = s["t"].to_numpy(), s["delivered_bytes"].to_numpy(float)
        a, b = 1.5, float(t[-1]) - 0.05
        measured = (np.interp(b, t, d) - np.interp(a, t, d)) * 8 / (b - a)
        expected = rate_mbit * 1e6 * PAYLOAD_SHARE
        message = f"{measured / 1e6:.3f} Mbit/s of payload, expected {expected / 1e6:.3f}"
        assert abs(measured / expected - 1) < 0.02, message
        assert r.meta["emulator"]["per_link"][0]["overruns"] == 0

    in_an_undisturbed_run(run, check)
    no_leftovers(host.Names.for_this_process().tag)


def probe() -> Watched:
    """UDP probes (1500 bytes, 3 Mbit/s) over a 100 Mbit/s link with 20 ms delay and 5% Bernoulli loss."""
    scenario = {
        "duration": "4s",
        "downlink": {"rate": "100Mbit", "delay": "20ms", "loss": {"model": "bernoulli", "p": 0.05}},
        "flows": [{"cc": "cubic", "size": "10KB"}],
        "udp": [{"rate": "3Mbit", "start": "0.5s"}],
    }
    return watched(lambda: runner.emulate(scenario))


@pytest.fixture(scope="module")
def probed():
    return probe()


def check_one_way_delay(r) -> None:
    """The added delay at the median within 0.5 ms; at the 99th percentile
    within 2 ms plus what the host's stalls added in this run: the emulator
    measures how late the host woke a thread of its priority (host_wakeups,
    over time; its 98th percentile because a packet crosses the emulator
    twice), and no user-space emulator delivers while its CPU does not run."""
    src = r.sources.iloc[0]
    host = r.meta["emulator"]["host_wakeups"]
    host_ms = host["lateness_p98_us"] / 1e3
    added_ms = lambda q: src[f"owd_p{q}_ms"] - 1500 * 8 / 100e6 * 1e3 - 20.0  # noqa: E731
    message = (
        f"added delay {added_ms(50):.3f} ms at p50, {added_ms(99):.3f} ms at p99; the host woke the emulator's "
        f"priority {host_ms:.3f} ms late at p98, {host['lateness_max_us'] / 1e3:.3f} ms at most"
    )
    assert abs(added_ms(50)) < 0.5, message
    assert -2.0 < added_ms(99) < 2.0 + host_ms, message


def test_added_one_way_delay_is_the_configured_delay(probed):
    # The first run is the module's probe run; a second is a new one.
    runs = [probed]
    in_an_undisturbed_run(lambda: runs.pop() if runs else probe(), check_one_way_delay)


def test_bernoulli_loss_is_within_its_binomial_interval(probed):
    r = probed.result
    src = r.sources.iloc[0]
    n, lost = int(src["packets_sent"]), int(src["packets_lost"])
    lo, hi = stats.binom.interval(0.99, n, 0.05)
    assert n > 500 and lo <= lost <= hi, (n, lost, lo, hi)
    assert r.links.loc[0, "residual_losses"] >= lost - 2  # the emulator's own count agrees


def test_a_flow_connects_over_a_path_whose_rtt_is_longer_than_the_agents_poll():
    # The handshake of a 200 ms path takes 200 ms; the agent polls its sockets every 50 ms.
    r = runner.emulate(
        {
            "duration": "3s",
            "downlink": {"rate": "10Mbit", "delay": "100ms"},
            "uplink": {"rate": "10Mbit", "delay": "100ms"},
            "flows": [{"cc": "reno"}],
        }
    )
    assert r.meta["flow_errors"] == []
    assert r.flows.loc[0, "goodput_bps"] > 0


def test_the_base_rtt_is_the_minimum_per_ack_sample_of_data_not_the_handshakes():
    # SPEC: base RTT = the minimum per-ACK RTT sample, queuing time = RTT - base RTT. At
    # 1 Mbit/s a full segment takes 12 ms to send, the SYN 0.5 ms: the kernel's own minimum
    # (tcpi_min_rtt, which counts the handshake) was 21.2 ms, the simulator's 36 ms.
    s = {"duration": "3s", "downlink": {"rate": "1Mbit", "delay": "10ms"}, "flows": [{"cc": "cubic"}]}
    kern, sim = runner.emulate(s), ccbench.run(s)
    f = kern.flows.loc[0]
    one_segment_ms = 2 * 10 + 1500 * 8 / 1e6 * 1e3
    assert one_segment_ms <= f["base_rtt_ms"] <= sim.flows.loc[0, "base_rtt_ms"] + 1.0
    assert f["rtt_min_ms"] == f["base_rtt_ms"] == kern.rtt["rtt_ms"].min()
    assert f["queuing_mean_ms"] == pytest.approx(f["rtt_mean_ms"] - f["base_rtt_ms"])
    assert f["rtt_samples"] == len(kern.rtt) and f["rtt_mean_ms"] == pytest.approx(kern.rtt["rtt_ms"].mean())


@pytest.mark.parametrize("kept", ["none", 50, "all"])
def test_the_rtt_table_keeps_what_record_rtt_samples_says(kept):
    # As in the simulator: the flows' RTT statistics count every sample whatever the table keeps.
    r = runner.emulate(
        {
            "duration": "2s",
            "downlink": {"rate": "10Mbit", "delay": "10ms"},
            "flows": [{"cc": "cubic"}],
            "record": {"rtt_samples": kept},
        }
    )
    taken, rows = r.flows.loc[0, "rtt_samples"], r.rtt[r.rtt["flow"] == 0]
    assert taken > 100
    assert len(rows) == {"none": 0, 50: 50, "all": taken}[kept]
    assert rows["t"].is_monotonic_increasing


def test_a_stopped_flow_sends_nothing_new_after_its_stop():
    # 10 Mbit/s, 20 ms RTT, a one-BDP queue: the path holds about 50 KB at the stop,
    # while a plain close sent what the autotuned send buffer still held (122 KB delivered
    # after the stop, more than the flow had sent by then).
    r = runner.emulate(
        {
            "duration": "2s",
            "downlink": {"rate": "10Mbit", "delay": "10ms"},
            "flows": [{"cc": "cubic", "stop": "1s"}],
        }
    )
    f = r.flows.loc[0]
    assert r.meta["flow_errors"] == []
    assert f["delivered_bytes_total"] <= f["bytes_sent"]
    assert f["delivered_bytes_total"] - f["delivered_bytes"] < 90_000


def with_background(background: dict, duration: str = "4s") -> dict:
    return load(
        {
            "duration": duration,
            "seed": 2,
            "downlink": {"rate": "20Mbit", "delay": "10ms"},
            "uplink": {"rate": "20Mbit", "delay": "10ms"},
            "flows": [{"cc": "cubic"}],
            "background": background,
        }
    )


def test_background_web_transfers_are_kernel_connections_at_the_simulators_times():
    # 100 KB transfers arriving at 7.5 per second for 3 s; each takes well
    # under the last two seconds, so all of them finish, also one that loses
    # its SYN at the queue the cubic flow fills (Linux retries a SYN after
    # 1 s). With one second left, one CI run had 22 of 23 finished.
    web = {"kind": "poisson-web", "load": 0.3, "stop": "3s", "size": {"dist": "fixed", "mean": "100KB"}}
    s = with_background(web, duration="5s")
    expected = runner.background_schedule(s)["transfers_started"]
    r = runner.emulate(s)
    assert r.meta["flow_errors"] == []
    row = r.sources.iloc[0]
    assert (row["kind"], row["transport"], row["direction"]) == ("poisson-web", "tcp", "down")
    assert expected > 10 and row["transfers_started"] == row["transfers_completed"] == expected
    assert row["bytes_delivered"] == expected * 100_000 <= row["bytes_sent"]
    assert row["packets_sent"] >= row["packets_delivered"] >= expected * 70  # 100 KB: 70 segments of 1448
    assert r.flows.loc[0, "goodput_bps"] > 1e6


def test_background_on_off_sources_send_the_simulators_datagrams():
    s = with_background({"kind": "on-off", "load": 0.2, "sources": 4, "on": "0.3s", "off": "0.3s"})
    schedule = runner.background_schedule(s)
    r = runner.emulate(s)
    row = r.sources.iloc[0]
    assert (row["kind"], row["transport"]) == ("on-off", "udp")
    assert row["packets_sent"] == len(schedule["datagrams"]) // 16 > 500
    assert row["wire_bytes_sent"] == 1500 * row["packets_sent"]
    # Some are dropped at the queue the cubic flow fills.
    assert 0.8 * row["packets_sent"] <= row["packets_delivered"] <= row["packets_sent"]
    assert (row["transfers_started"], row["transfers_completed"]) == (
        schedule["transfers_started"],
        schedule["transfers_finished"],
    )
    assert 10 <= row["owd_p50_ms"] < 60  # the added delay, and the queue


def segments_out(tcp: dict, duration: str) -> tuple[pd.Series, pd.Series]:
    """Segments out after the first second, in the kernel and in the simulator,
    of one cubic flow with these TCP settings at 10 Mbit/s and 100 ms RTT."""
    s = {
        "duration": duration,
        "downlink": {"rate": "10Mbit", "delay": "50ms"},
        "uplink": {"rate": "10Mbit", "delay": "50ms"},
        "flows": [{"cc": "cubic", "tcp": tcp}],
    }
    return runner.emulate(s).series.query("t > 1")["in_flight"], ccbench.run(s).series.query("t > 1")["in_flight"]


def test_a_fixed_send_buffer_holds_what_the_simulator_holds():
    # snd_buf = 10240: 7 segments of 1448 bytes, the writer woken at 4 queued (send_buffer.rs).
    # Before kernel mode set one-segment skbs and converted SO_SNDBUF, Linux 6.18 kept
    # 46-51 segments out here (skbs of up to 64 KB, the buffer checked before each).
    kernel_out, sim_out = segments_out({"snd_buf": 10240}, "6s")
    assert kernel_out.max() == sim_out.max() == 7
    # The writer sleeps until 4 are queued, and an ACK frees two: neither holds a steady 7.
    assert kernel_out.min() < 7 and 3 <= sim_out.min() < 7
    # The kernel's writer is a process: woken late now and then on a busy host, it lets the
    # flow drain for a sample (a fresh-clone CI run saw 1 out, in one of 502 samples); on
    # an idle host four runs never went below 3. A few such samples may fall below.
    assert kernel_out.quantile(0.02) >= 3, kernel_out.value_counts().sort_index().to_dict()


def test_a_fixed_receive_buffer_offers_the_simulators_window():
    # rcv_buf = 14336: a window of 9 whole segments of 1448 bytes. Before the agent
    # resized the buffer by the kernel's measured truesize ratio, Linux 6.18 offered
    # 11 segments here (SO_RCVBUF doubled, then its scaling_ratio share).
    kernel_out, sim_out = segments_out({"rcv_buf": 14336}, "4s")
    assert kernel_out.max() == sim_out.max() == 9


def start_long_run(tmp_path, *options: str) -> tuple[subprocess.Popen, host.Names, list[int]]:
    """`ccbench emulate` of a 60 s scenario, once its namespaces, agents and emulator run."""
    scenario = tmp_path / "long.toml"
    scenario.write_text(
        'duration = "60s"\n[downlink]\nrate = "10Mbit"\ndelay = "10ms"\n[[flows]]\ncc = "cubic"\n', encoding="utf-8"
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "ccbench.cli", "emulate", str(scenario), "--out", str(tmp_path / "out"), *options],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    names = host.Names(f"{proc.pid:x}")
    deadline = time.monotonic() + 60
    pids: list[int] = []
    while time.monotonic() < deadline:
        if names.sender_ns in host.namespaces():
            pids = host.namespace_pids(names.sender_ns) + host.namespace_pids(names.receiver_ns)
            if len(pids) >= 2:
                break
        time.sleep(0.2)
    pids += host.emulator_pids(names.tag)
    assert len(pids) >= 3, "the run did not get going"
    return proc, names, pids


def test_a_run_starting_leaves_the_devices_of_a_live_run_alone():
    """A live run's emulator creates its TUN devices in the root namespace before it
    moves them into its namespaces; another run's start-up cleanup must not delete them."""
    live = subprocess.Popen(["sleep", "60"])
    dev = host.Names(f"{live.pid:x}").sender_tun
    try:
        subprocess.run(["ip", "tuntap", "add", "dev", dev, "mode", "tun"], check=True)
        host.cleanup(all_runs=False)
        assert dev in host.tun_devices()
        live.kill()
        live.wait()
        host.cleanup(all_runs=False)
        assert dev not in host.tun_devices()
    finally:
        live.kill()
        live.wait()
        subprocess.run(["ip", "link", "del", dev], capture_output=True)


def test_a_killed_orchestrator_leaves_nothing_after_cleanup(tmp_path):
    proc, names, pids = start_long_run(tmp_path)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    out = subprocess.run(
        [sys.executable, "-m", "ccbench.cli", "emulate", "--cleanup"], capture_output=True, text=True, check=True
    )
    assert names.sender_ns in out.stdout or names.sender_ns not in host.namespaces()
    no_leftovers(names.tag)
    time.sleep(0.2)
    alive = [p for p in pids if host.alive(p)]
    assert not alive, f"processes left: {alive}"


def test_sigterm_tears_the_run_down_by_itself(tmp_path):
    proc, names, pids = start_long_run(tmp_path)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) != 0
    no_leftovers(names.tag)
    time.sleep(0.2)
    assert not [p for p in pids if host.alive(p)]


def test_ctrl_c_leaves_neither_results_directory_nor_packet_records(tmp_path):
    proc, names, pids = start_long_run(tmp_path, "--packets")
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=30) != 0
    no_leftovers(names.tag)
    assert not (tmp_path / "out").exists(), list((tmp_path / "out").iterdir())


def test_a_results_directory_is_replaced_whole_only_with_force(tmp_path):
    """A second run into a run's directory wrote over it file by file (and
    had to remove the first run's packet records by name); it is now
    refused, as by `ccbench run`, and --force replaces the directory whole."""
    scenario = tmp_path / "short.toml"
    scenario.write_text(
        'duration = "1s"\n[downlink]\nrate = "10Mbit"\ndelay = "10ms"\n[[flows]]\ncc = "cubic"\n', encoding="utf-8"
    )
    cmd = [sys.executable, "-m", "ccbench.cli", "emulate", str(scenario), "--out", str(tmp_path / "out"), "--no-plots"]
    printed = subprocess.run([*cmd, "--packets"], capture_output=True, text=True, check=True).stdout
    assert "host: woke the emulator's priority late by" in printed, printed
    first = (tmp_path / "out" / "flows.parquet").read_bytes()
    assert (tmp_path / "out" / "packets.parquet").exists()
    again = subprocess.run(cmd, capture_output=True, text=True)
    assert again.returncode == 2 and "is not empty (it holds another run); --force replaces it" in again.stdout, again
    assert (tmp_path / "out" / "flows.parquet").read_bytes() == first
    subprocess.run([*cmd, "--force"], capture_output=True, check=True)
    assert not (tmp_path / "out" / "packets.parquet").exists()
    assert (tmp_path / "out" / "meta.json").exists()


def test_compare_sim_reports_differences_and_overlaid_plots(tmp_path):
    from ccbench.emulate import sidebyside

    s = {"duration": "3s", "downlink": {"rate": "10Mbit", "delay": "10ms"}, "flows": [{"cc": "cubic"}]}
    table, pairs = sidebyside.compare(s, reps=1, algorithms=["reno"])
    assert list(table["cc"]) == ["reno"]
    row = table.iloc[0]
    assert row["sim_goodput_mbps"] > 5 and row["kernel_goodput_mbps"] > 5
    page = sidebyside.write_report(table, pairs, tmp_path)
    assert (tmp_path / "cwnd-sim-vs-kernel-reno.png").stat().st_size > 0
    text = page.read_text()
    assert "goodput difference (%)" in text and "Definitions" in text


KERNEL_CAMPAIGN = """
name = "kernel campaign"
repetitions = 1
seed = 4
[scenario]
duration = "2s"
downlink = { rate = "20Mbit", delay = "10ms", queue = { size = "1bdp" } }
flows = [{ cc = "cubic" }]
[factors]
"flows[*].cc" = LEVELS
"""


def test_a_campaign_runs_through_the_kernel_with_mode_emulate(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text(KERNEL_CAMPAIGN.replace("LEVELS", '["reno", "cubic"]'), encoding="utf-8")
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "ccbench.cli", "campaign", str(f), "--out", str(out), "--mode", "emulate"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "real kernel, one at a time" in done.stdout
    flows = pd.read_parquet(out / "flows.parquet")
    assert sorted(flows["flows[*].cc"]) == ["cubic", "reno"]
    # Real kernel flows on an emulated 20 Mbit/s path: most of its payload capacity, measured.
    assert (flows["goodput_bps"] > 0.7 * 20e6 * PAYLOAD_SHARE).all(), flows["goodput_bps"].tolist()
    # The kept tables are the kernel's (TCP_INFO columns), not the simulator's.
    series = pd.read_parquet(next((out / "tables").iterdir()) / "series.parquet")
    assert any(c.startswith("tcpi_") for c in series.columns)


def test_mode_emulate_refuses_an_algorithm_the_kernel_lacks_before_anything_runs(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text(KERNEL_CAMPAIGN.replace("LEVELS", '["reno", "vegas"]'), encoding="utf-8")
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "ccbench.cli", "campaign", str(f), "--out", str(out), "--mode", "emulate"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "flows[0].cc" in done.stderr and "vegas" in done.stderr, done.stderr
    assert not out.exists()


CAPTURED = """
name = "kernel capture"
duration = "2s"
seed = 3
[downlink]
rate = "10Mbit"
delay = "20ms"
[[flows]]
cc = "cubic"
[[flows]]
cc = "reno"
direction = "up"
[[udp]]
rate = "1.2Mbit"
start = "0.5s"
stop = "1.5s"
[record.pcap]
path = "caps/kernel.pcap"
link = "LINK"
"""


def tshark_fields(exe: str, path, *fields: str) -> list[list[str]]:
    """One row per packet of the capture: the given tshark fields."""
    args = [exe, "-r", str(path), "-T", "fields", "-E", "separator=,"]
    for f in fields:
        args += ["-e", f]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return [line.split(",") for line in out.splitlines()]


def test_a_kernel_run_captures_real_packets_on_the_senders_side(tmp_path, require_tool):
    exe = require_tool("tshark", install="apt-get install tshark")
    (tmp_path / "s.toml").write_text(CAPTURED.replace("LINK", "both"))
    r = ccbench.emulate(tmp_path / "s.toml")
    path = tmp_path / "caps" / "kernel.pcap"
    assert r.meta["pcap"] == {"path": str(path), "packets": r.meta["pcap"]["packets"], "error": None}
    rows = tshark_fields(
        exe,
        path,
        "frame.time_relative",
        "ip.proto",
        "tcp.srcport",
        "tcp.dstport",
        "tcp.len",
        "tcp.flags.syn",
        "tcp.flags.ack",
    )
    assert len(rows) == r.meta["pcap"]["packets"] > 1000
    udp = [row for row in rows if row[1] == "17"]
    assert abs(len(udp) - 100) <= 2, "1.2 Mbit/s of 1500-byte datagrams for 1 s, each once"
    tcp = [
        (float(t), int(sport), int(dport), int(n), syn == "1", ack == "1")
        for t, p, sport, dport, n, syn, ack in rows
        if p == "6"
    ]
    receivers = {runner.TCP_PORT_BASE, runner.TCP_PORT_BASE + 1}
    assert {d if d in receivers else s for _, s, d, *_ in tcp} == receivers, "both flows, whatever their direction"
    for port in receivers:
        flow = [p for p in tcp if port in (p[1], p[2])]
        # Data only from the sender; the receiver's packets carry none.
        assert all(n == 0 for _, s, _, n, *_ in flow if s == port)
        assert sum(n > 0 for _, s, _, n, *_ in flow if s != port) > 300
        # The SYN as it left the sender, the SYN-ACK as it reached it: one
        # round trip (2 x 20 ms) apart, so the receiver's side is not in the file.
        syn = next(t for t, s, _, _, is_syn, is_ack in flow if is_syn and not is_ack)
        syn_ack = next(t for t, s, _, _, is_syn, is_ack in flow if is_syn and is_ack)
        assert 0.040 <= syn_ack - syn < 0.050
    # One link: only the flow whose data it carries, and the datagrams crossing it.
    (tmp_path / "s.toml").write_text(CAPTURED.replace("LINK", "uplink"))
    ccbench.emulate(tmp_path / "s.toml")
    ports = tshark_fields(exe, path, "ip.proto", "tcp.srcport", "tcp.dstport")
    assert {p for p, *_ in ports} == {"6"}, "the datagrams go down"
    assert {int(d) if int(d) in receivers else int(s) for _, s, d in ports} == {runner.TCP_PORT_BASE + 1}
