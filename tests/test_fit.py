"""`ccbench fit`: the path fitted from captures ccbench itself writes (`[record.pcap]`, taken at
the sender's host) of known scenarios lands within stated bounds of the true path; the fitted
scenario runs; bad input is one line and exit 2."""

from __future__ import annotations

import json
import re
from pathlib import Path

import ccbench
import dpkt
import pytest
from ccbench.cli import app
from ccbench.emulate.runner import unavailable as kernel_mode_unavailable
from ccbench.fit import Estimate, FitInputError, FitResult, fit_capture
from ccbench.fit.capture import TH_ACK, TH_SYN, Connection, Segment, read_connections
from ccbench.fit.estimate import _losses, queued_pairs, train_rates
from ccbench.fit.receiver import replay_receiver
from ccbench.fit.sender import AckPair, capture_side, replay
from ccbench.fit.stats import fit_gilbert, median_ci, wilson
from ccbench.inputs import TomlText
from ccbench.scenario import load
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st


def capture(tmp_path, name: str, downlink: dict, duration: str = "30s", flows: list | None = None, seed: int = 1):
    """The capture ccbench writes of `flows` (one cubic flow by default) over `downlink`."""
    scenario = {
        "name": name,
        "duration": duration,
        "seed": seed,
        "downlink": downlink,
        "flows": flows or [{"cc": "cubic"}],
        "record": {"pcap": {"path": f"{name}.pcap"}},
    }
    r = ccbench.run(scenario, capture_dir=tmp_path)
    assert r.meta["pcap"]["error"] is None
    return tmp_path / f"{name}.pcap"


PATH = {"rate": "10Mbit", "delay": "20ms", "queue": {"size": "1bdp"}}


@pytest.fixture(scope="module")
def random_loss(tmp_path_factory):
    """The issue's known path: 10 Mbit/s, 40 ms RTT, 0.5% random loss."""
    tmp = tmp_path_factory.mktemp("random")
    return capture(tmp, "random", {**PATH, "loss": {"model": "bernoulli", "p": 0.005}})


def test_the_known_path_is_recovered_rate_5pct_rtt_2ms_loss_factor_1_5(random_loss):
    f = fit_capture(random_loss)
    assert f.side == "sender"
    assert abs(f.rate.value / 10e6 - 1) <= 0.05
    assert f.rate.low <= f.rate.value <= f.rate.high
    assert abs(f.base_rtt.value - 40.0) <= 2.0
    assert 0.005 / 1.5 <= f.loss.value <= 0.005 * 1.5
    assert f.loss.low <= 0.005 <= f.loss.high
    assert f.loss_model == "bernoulli"  # random loss is not called bursty
    assert f.jitter_max_ms is None and f.reorder.value == 0
    # The scenario's delay gives back the base RTT: 2 x delay + one packet and one ACK at the rate.
    down = f.scenario_dict()["downlink"]
    assert down["loss"] == {"model": "bernoulli", "p": pytest.approx(f.loss.value, rel=1e-2)}
    assert abs(float(down["delay"].removesuffix("ms")) - 20.0) <= 0.1


def test_bursty_loss_is_fitted_as_a_gilbert_model(tmp_path):
    path = capture(tmp_path, "bursty", {**PATH, "loss": {"model": "gilbert", "mean_loss": 0.01, "mean_burst": 3}})
    f = fit_capture(path)
    assert f.loss_model == "gilbert" and f.gilbert_lr > 6.635
    assert 0.01 / 1.5 <= f.loss.value <= 0.01 * 1.5
    assert f.burst.low <= 3 <= f.burst.high and 2 <= f.burst.value <= 4.5
    assert abs(f.rate.value / 10e6 - 1) <= 0.05
    loss = f.scenario_dict()["downlink"]["loss"]
    assert loss["model"] == "gilbert" and loss["mean_burst"] == pytest.approx(f.burst.value, rel=1e-2)


def test_jitter_that_reorders_is_found_and_not_counted_as_loss(tmp_path):
    jitter = {"distribution": "uniform", "min": "0ms", "max": "3ms", "reorder": True}
    f = fit_capture(capture(tmp_path, "jitter", {**PATH, "jitter": jitter}, duration="15s"))
    assert f.reorder.value > 0.05 and f.reorder.samples > 1000
    assert f.loss_model == "none"  # the resends reordering caused were D-SACKed: spurious, not losses
    assert 2.0 <= f.jitter_max_ms <= 4.5
    assert f.scenario_dict()["downlink"]["jitter"]["reorder"] is True
    # Jitter of 2.5 packet times spreads the ACK gaps; trains of 8 ACKs average it (4.1% low from
    # single pairs). This 15 s capture measured 1.1% low at 474f4bc and 3.2% low since a67285b, which
    # changed how the window grows under reordering (1.2% low over 30 s): the bias is the method's
    # (its text says so), and here its median interval (9.48-9.91 Mbit/s) does not cover it.
    assert -0.04 <= f.rate.value / 10e6 - 1 <= 0.0
    assert abs(f.base_rtt.value - 40.0) <= 2.0


def test_a_clean_drop_tail_path_has_queue_overflows_and_no_path_loss(tmp_path):
    f = fit_capture(capture(tmp_path, "clean", PATH, duration="15s"))
    assert f.loss_model == "none" and f.loss.value == 0
    assert f.congestion_losses > 0
    # 1 BDP of 1500-byte packets: 10 Mbit/s x 40 ms = 33 packets; the fit reads it off the largest delay.
    assert 30 <= f.queue_size_pkts <= 36
    assert "overflowed" in f.queue_basis


def test_fit_then_run_then_fit_again_gives_back_the_path(random_loss, tmp_path, runner):
    result = runner.invoke(app, ["fit", str(random_loss)])
    assert result.exit_code == 0, result.output
    (tmp_path / "p.toml").write_text(result.stdout)
    ran = runner.invoke(app, ["run", str(tmp_path / "p.toml"), "--out", str(tmp_path / "out"), "--no-plots"])
    assert ran.exit_code == 0, ran.output
    # The fitted scenario, captured and fitted in turn, gives the same path back.
    first = fit_capture(random_loss)
    s = load(tmp_path / "p.toml")
    again = fit_capture(capture(tmp_path, "again", s["downlink"], duration=s["duration"], seed=3))
    assert abs(again.rate.value / first.rate.value - 1) <= 0.02
    assert abs(again.base_rtt.value - first.base_rtt.value) <= 0.5
    assert again.loss.low <= first.loss.value <= again.loss.high


def test_json_has_every_estimate_with_its_interval(random_loss, runner):
    result = runner.invoke(app, ["fit", str(random_loss), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    for key in ("rate", "base_rtt", "loss", "burst", "reorder"):
        assert {"value", "low", "high", "unit", "samples", "method"} <= set(out[key])
    assert out["side"] == "sender" and out["scenario"]["downlink"]["rate"] == "10Mbit"
    assert out["queue_delay_ms"]["p95"] >= out["queue_delay_ms"]["p50"] >= 0


def test_pcapng_with_ethernet_frames_gives_the_same_fit(random_loss, tmp_path):
    """The same packets in pcapng (microsecond timestamps), each in an Ethernet frame."""
    ng = tmp_path / "random.pcapng"
    with random_loss.open("rb") as f, ng.open("wb") as g:
        w = dpkt.pcapng.Writer(g, linktype=dpkt.pcap.DLT_EN10MB)
        for ts, buf in dpkt.pcap.Reader(f):
            eth = dpkt.ethernet.Ethernet(src=b"\x02" * 6, dst=b"\x04" * 6, type=dpkt.ethernet.ETH_TYPE_IP, data=buf)
            w.writepkt(bytes(eth), ts=float(ts))
    a, b = fit_capture(random_loss), fit_capture(ng)
    assert abs(b.rate.value / a.rate.value - 1) <= 0.01
    assert abs(b.base_rtt.value - a.base_rtt.value) <= 0.01
    assert b.loss.value == a.loss.value


def bad(runner, args: list[str]) -> str:
    result = runner.invoke(app, ["fit", *args])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""  # nothing written
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    return lines[0]


def test_not_a_capture_is_one_line_and_exit_2(tmp_path, runner):
    (tmp_path / "x.pcap").write_text("name = 'not a capture'\n")
    assert "is not a packet capture" in bad(runner, [str(tmp_path / "x.pcap")])
    assert "cannot read" in bad(runner, [str(tmp_path / "missing.pcap")])


def test_a_capture_without_tcp_is_refused(tmp_path, runner):
    path = tmp_path / "udp.pcap"
    with path.open("wb") as f:
        w = dpkt.pcap.Writer(f, linktype=101)
        udp = dpkt.udp.UDP(sport=1, dport=2, data=b"x" * 100)
        ip = dpkt.ip.IP(src=b"\x0a\x00\x00\x01", dst=b"\x0a\x00\x00\x02", p=dpkt.ip.IP_PROTO_UDP, data=udp)
        w.writepkt(bytes(ip), ts=0.0)
    assert "no TCP connection that carries data" in bad(runner, [str(path)])


def test_several_flows_need_flow_to_pick_one(tmp_path, runner):
    path = capture(tmp_path, "two", PATH, duration="10s", flows=[{"cc": "cubic"}, {"cc": "reno"}])
    msg = bad(runner, [str(path)])
    assert "2 TCP flows; pick one with --flow" in msg and "1: 10.1.0.2:32769 -> 10.2.0.2:5201" in msg
    assert "names no flow" in bad(runner, [str(path), "--flow", "7"])
    for pick in ("1", "10.1.0.2:32769"):
        result = runner.invoke(app, ["fit", str(path), "--flow", pick])
        assert result.exit_code == 0, result.output
        assert "flow 10.1.0.2:32769 -> 10.2.0.2:5201" in result.stdout


def test_a_capture_too_short_is_refused(tmp_path, runner):
    path = capture(tmp_path, "short", PATH, duration="150ms")
    assert "capture too short" in bad(runner, [str(path)])


def moved(capture_path, to, shift_s: float):
    """The sender's capture as seen `shift_s` further along the path: data later, ACKs earlier."""
    with capture_path.open("rb") as f:
        records = list(dpkt.pcap.Reader(f))
    shifted = []
    for ts, buf in records:
        to_receiver = dpkt.ip.IP(buf).dst == bytes([10, 2, 0, 1])
        shifted.append((float(ts) + (shift_s if to_receiver else -shift_s) + 1, buf))
    with to.open("wb") as g:
        w = dpkt.pcap.Writer(g, linktype=101)
        for ts, buf in sorted(shifted, key=lambda x: x[0]):
            w.writepkt(buf, ts=ts)
    return to


def test_the_capture_point_is_told_from_the_echo_delays(random_loss, tmp_path):
    """Moved by the one-way delay (20 ms) the capture is the receiver's view: an ACK answers its data
    at once and the data answering an ACK comes a round trip later; moved halfway (10 ms), both
    delays are alike: a capture point inside the path, refused."""
    at_receiver = read_connections(moved(random_loss, tmp_path / "r.pcap", 0.020))[0][0]
    assert capture_side(replay(at_receiver)) == "receiver"
    assert capture_side(replay(read_connections(random_loss)[0][0])) == "sender"
    with pytest.raises(FitInputError, match="inside the path"):
        fit_capture(moved(random_loss, tmp_path / "m.pcap", 0.010))


def test_statistics_on_hand_worked_cases():
    assert median_ci([1.0, 2.0, 3.0, 4.0, 5.0])[0] == 3.0
    lo, hi = wilson(5, 1000)  # 0.5%: Wilson gives 0.21% to 1.17%
    assert lo == pytest.approx(0.00214, abs=1e-4) and hi == pytest.approx(0.01164, abs=1e-4)
    g = fit_gilbert([False] * 10 + [True, True, True] + [False] * 10 + [True] + [False] * 5)
    assert (g.losses, g.bursts, g.burst_mean) == (4, 2, 2.0)
    assert g.p == pytest.approx(2 / 24) and g.r == pytest.approx(2 / 4)


@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    rate_mbit=st.sampled_from([2, 5, 20]),
    delay_ms=st.integers(5, 40),
    loss=st.sampled_from([0.0, 0.003, 0.02]),
    seed=st.integers(1, 1000),
)
def test_the_fitted_scenario_always_validates_and_runs(tmp_path_factory, rate_mbit, delay_ms, loss, seed):
    """Whatever the path, the fitted scenario is valid and runs, and its base RTT is never below the
    true propagation RTT (a minimum of real round trips cannot be shorter than the path)."""
    tmp = tmp_path_factory.mktemp("prop")
    down = {"rate": f"{rate_mbit}Mbit", "delay": f"{delay_ms}ms"}
    if loss:
        down["loss"] = {"model": "bernoulli", "p": loss}
    f = fit_capture(capture(tmp, "p", down, duration="6s", seed=seed))
    assert f.base_rtt.value >= 2 * delay_ms
    r = ccbench.run({**f.scenario_dict(), "duration": "2s"})
    assert (r.flows["goodput_bps"] > 0).all()
    (tmp / "fitted.toml").write_text(f.to_toml())
    assert load(tmp / "fitted.toml")["downlink"]["rate"] == pytest.approx(f.rate.value, rel=1e-3)


ROOT = Path(__file__).resolve().parent.parent


def test_the_shipped_example_capture_fits_its_scenario():
    """examples/fit/path.pcap is ccbench's capture of examples/fit/path.toml (docs/fit.md's example)."""
    truth = load(ROOT / "examples" / "fit" / "path.toml")["downlink"]
    f = fit_capture(ROOT / "examples" / "fit" / "path.pcap")
    assert abs(f.rate.value / truth["rate"] - 1) <= 0.05
    assert abs(f.one_way_delay_ms() - 1e3 * truth["delay"]) <= 1.0  # seconds once loaded
    assert truth["loss"]["p"] / 1.5 <= f.loss.value <= truth["loss"]["p"] * 1.5
    assert f.loss_model == "bernoulli"


def test_the_docs_fitted_scenario_is_a_valid_scenario():
    blocks = re.findall(r"```toml\n(.*?)```", (ROOT / "docs" / "fit.md").read_text(), re.S)
    assert blocks and all(load(TomlText(b))["flows"] for b in blocks)


def estimate_of(value: float) -> Estimate:
    return Estimate(value, value * 0.9, value * 1.1, "", 100, "Method: drawn.")


@settings(max_examples=60, deadline=None)
@given(
    rate_bps=st.floats(2e5, 4e10),
    rtt_ms=st.floats(0.05, 2000),
    loss=st.floats(0, 0.3),
    burst=st.floats(1, 20),
    model=st.sampled_from(["none", "bernoulli", "gilbert"]),
    jitter_ms=st.none() | st.floats(0.01, 200),
    queue=st.integers(1, 20_000),
    mss=st.integers(500, 9000),
    duration_s=st.floats(0.5, 7200),
)
# A short, slow path: the ACK direction's default one-BDP queue held 0.4 packets (a bug: the
# fitted scenario was refused).
@example(
    rate_bps=4.881e6, rtt_ms=0.98, loss=0.0, burst=1.0, model="none", jitter_ms=None, queue=5, mss=1448, duration_s=10.0
)
def test_any_fitted_path_writes_a_valid_scenario_and_the_toml_says_the_same(
    rate_bps, rtt_ms, loss, burst, model, jitter_ms, queue, mss, duration_s
):
    """Whatever the estimates, the TOML is a valid scenario and holds what scenario_dict() holds."""
    f = FitResult(
        source="x.pcap",
        flow="a -> b",
        side="sender",
        duration_s=duration_s,
        mss=mss,
        data_wire_bytes=mss + 52,
        rate=estimate_of(rate_bps),
        base_rtt=estimate_of(rtt_ms),
        queue_delay_ms={"p5": 0.0, "p50": 1.0, "p95": 2.0, "p99": 3.0, "max": 4.0, "samples": 100},
        queue_size_pkts=queue,
        queue_basis="drawn.",
        loss=estimate_of(loss),
        loss_model=model if loss > 0 else "none",
        burst=estimate_of(burst),
        gilbert_lr=1.0,
        congestion_losses=0,
        reorder=estimate_of(0.01),
        jitter_max_ms=jitter_ms,
    )
    from_toml = load(TomlText(f.to_toml()))
    from_dict = load(f.scenario_dict())
    assert from_toml["downlink"] == from_dict["downlink"] and from_toml["uplink"] == from_dict["uplink"]
    assert from_toml["flows"] == from_dict["flows"] and 1 <= from_toml["duration"] <= 60
    assert from_toml["downlink"]["rate"] == pytest.approx(rate_bps, rel=1e-3)


# ---- the replay's mechanisms on hand-made packet sequences (MSS 1000, sender S, receiver R) ----

S, R = ("10.0.0.1", 1000), ("10.0.0.2", 80)


def data(t: float, n: int, ts: int = 0) -> Segment:
    """Segment n (bytes n*1000 to (n+1)*1000) sent at t."""
    return Segment(t, S, R, 1 + 1000 * n, 1, TH_ACK, 1000, 1052, 1000, ts_val=ts, ts_ecr=0)


def ack(t: float, upto: int, sack: tuple = (), ts: int = 0) -> Segment:
    """An ACK of segments below `upto`, with SACK blocks of segment numbers [a, b)."""
    blocks = tuple((1 + 1000 * a, 1 + 1000 * b) for a, b in sack)
    return Segment(t, R, S, 1, 1 + 1000 * upto, TH_ACK, 0, 52, 1000, ts_val=ts, ts_ecr=0, sack=blocks)


def replayed(packets: list[Segment]):
    syn = Segment(0.0, S, R, 0, 0, TH_SYN, 0, 40, 1000, mss=1000)
    return replay(Connection(S, R, [syn, *packets]))


def test_rtt_samples_follow_karns_rule_and_a_resend_is_a_loss():
    r = replayed(
        [data(0, 0), data(0, 1), data(0, 2), data(0, 3)]
        + [ack(0.1, 2), ack(0.102, 2, sack=[(3, 4)])]  # segment 2 lost: 3 is SACKed around it
        + [data(0.102, 2), ack(0.2, 4)]  # its resend fills the hole
    )
    # Samples: segment 1 (newest of the first ACK) and 3 (newest SACKed); none from the resent 2.
    assert [(round(t, 3), round(x, 3)) for t, x, _ in r.rtt] == [(0, 0.1), (0, 0.102)]
    assert r.segs[2000].sends == [0, 0.102] and r.segs[2000].dsacks == 0
    assert r.reorder_lateness == []  # a resent hole is a loss, not reordering


def test_a_dsack_makes_a_resend_spurious_and_a_late_hole_is_reordering():
    r = replayed(
        [data(0, 0), data(0, 1), data(0, 2)]
        + [ack(0.1, 1, sack=[(2, 3)])]  # segment 1 late: 2 SACKed around it
        + [ack(0.104, 3)]  # 1 arrives 4 ms later without a resend: reordered
        + [data(0.2, 3), data(0.2, 4), ack(0.3, 4, sack=[(4, 5)]), data(0.3, 3)]  # 3 resent early
        + [ack(0.31, 5, sack=[(3, 4)])]  # the receiver got 3 twice: a D-SACK below the cumulative ACK
    )
    assert r.reorder_lateness == [pytest.approx(0.004)]
    assert r.dsack_blocks == 1 and r.segs[3000].dsacks == 1
    lost, congestion = _losses(r, 100.0, {"max": 0.0})
    assert not any(lost) and congestion == 0  # the D-SACKed resend was spurious: no loss


def test_dispersion_keeps_back_to_back_pairs_only():
    """Two pairs sent back to back at t=0 come back 2.4 ms apart (1052-byte packets at 7 Mbit/s:
    1.2 ms each); the next pair, sent 50 ms later on an idle link, is not a dispersion sample."""
    r = replayed(
        [data(0, 0), data(0, 1), data(0, 2), data(0, 3)]
        + [ack(0.1, 2), ack(0.1024, 4)]
        + [data(0.15, 4), data(0.15, 5), ack(0.2524, 6)]
    )
    samples = queued_pairs(r.pairs, None)
    assert samples == [pytest.approx(2 * 1052 * 8 / 0.0024)]


@pytest.mark.parametrize("tcp", [{"timestamps": False}, {"sack": False}], ids=["no-timestamps", "no-sack"])
def test_without_timestamps_or_sack_the_fit_still_holds(tmp_path, tcp):
    """Side detection falls back to sequence numbers without timestamps; without SACK, NewReno's
    resends are still the losses (and the file says reordering cannot be told apart)."""
    down = {**PATH, "loss": {"model": "bernoulli", "p": 0.005}}
    f = fit_capture(capture(tmp_path, "t", down, duration="20s", flows=[{"cc": "cubic", "tcp": tcp}]))
    assert f.side == "sender"
    assert abs(f.rate.value / 10e6 - 1) <= 0.05 and abs(f.base_rtt.value - 40.0) <= 2.0
    assert 0.005 / 1.5 <= f.loss.value <= 0.005 * 1.5
    assert any("no SACK" in c for c in f.caveats) == ("sack" in tcp)


def test_a_real_kernels_capture_of_the_known_path_is_recovered(tmp_path):
    """Kernel mode: Linux's own TCP (real handshake, delayed ACKs, timestamps and payload) over the
    emulated known path, captured at the sender's side; the same bounds hold."""
    missing = kernel_mode_unavailable()
    if missing:
        pytest.skip(f"kernel mode unavailable: {missing}")
    scenario = {
        "name": "kernel",
        "duration": "20s",
        "downlink": {**PATH, "loss": {"model": "bernoulli", "p": 0.005}},
        "flows": [{"cc": "cubic"}],
        "record": {"pcap": {"path": "kernel.pcap"}},
    }
    ccbench.emulate(scenario, capture_dir=tmp_path)
    f = fit_capture(tmp_path / "kernel.pcap")
    assert f.side == "sender" and not f.caveats
    assert abs(f.rate.value / 10e6 - 1) <= 0.05
    assert abs(f.base_rtt.value - 40.0) <= 2.0
    assert 0.005 / 1.5 <= f.loss.value <= 0.005 * 1.5


def test_a_real_receiver_side_capture_is_detected_and_fitted():
    """tests/data/fit/receiver-side.pcapng: dumpcap in the receiving namespace of a kernel-mode run of
    the known path (10 Mbit/s, 20 ms each way, 0.5% loss; Linux cubic; `ip netns exec
    ccbench-*-rcv dumpcap -s 128`), its first 1200 data packets cut to 80 bytes. There an ACK
    answers its data within about a millisecond and the data answering an ACK comes a round trip
    later; the rate is the data's arrival spacing and the RTT the timestamp echoes'."""
    f = fit_capture(ROOT / "tests" / "data" / "fit" / "receiver-side.pcapng")
    assert f.side == "receiver" and any("captured at the receiver" in c for c in f.caveats)
    assert abs(f.rate.value / 10e6 - 1) <= 0.05
    assert abs(f.base_rtt.value - 40.0) <= 2.0
    assert f.loss.low <= 0.005 <= f.loss.high and f.loss_model == "bernoulli"
    assert "capture at the receiver" in f.rate.method and "TSval" in f.base_rtt.method


def arrival(t: float, n: int, ts: int, payload: int = 1000) -> Segment:
    """Segment n arriving at the receiver at t, sent at the sender's timestamp tick `ts`."""
    return Segment(t, S, R, 1 + 1000 * n, 1, TH_ACK, payload, payload + 52, 1000, ts_val=ts, ts_ecr=0)


def test_at_the_receiver_a_later_tsval_fills_a_loss_and_an_equal_one_a_late_original():
    r, rate = replay_receiver(
        Connection(
            S,
            R,
            [arrival(0.0, 0, 10), arrival(0.0012, 1, 10), arrival(0.0024, 3, 10)]  # 2 missing
            + [arrival(0.0030, 2, 10)]  # same tick as the packets around it: the original, late
            + [arrival(0.0042, 4, 10), arrival(0.0054, 6, 10)]  # 5 missing
            + [arrival(0.0500, 5, 55)],  # sent 45 ticks later: a resend, so 5 was lost
        )
    )
    assert r.reorder_lateness == [pytest.approx(0.0006)]
    assert r.segs[5000].sends == [0.0054, 0.05] and r.segs[2000].sends == [0.003]
    lost, _ = _losses(r, 100.0, {"max": 0.0})
    assert lost.count(True) == 1
    # Rate samples from in-order neighbours only (0-1, and 3-4 around the late 2); none across a gap.
    assert rate == [pytest.approx(1052 * 8 / 0.0012), pytest.approx(1052 * 8 / 0.0018)]


def test_super_packets_are_counted_against_the_mss_option():
    """A 3000-byte data packet under a 1000-byte MSS option: TSO/GSO captured before segmentation."""
    big = Segment(0.0, S, R, 1 + 2000, 1, TH_ACK, 3000, 3052, 1000, ts_val=0, ts_ecr=0)
    r = replayed([data(0, 0), data(0, 1), big, ack(0.1, 2), ack(0.1036, 5)])
    assert r.super_packets == 1 and r.mss == 1000


def test_ipv6_packets_are_read_with_their_own_header_size(random_loss, tmp_path):
    """The same packets as IPv6 (40-byte header: each packet 20 bytes longer on the wire, cut at the
    same snaplen): the same RTT and loss; the rate counts the longer packets in the same time."""
    prefix = bytes.fromhex("20010db8") + bytes(8)
    v6 = tmp_path / "v6.pcap"
    with random_loss.open("rb") as f, v6.open("wb") as g:
        w = dpkt.pcap.Writer(g, linktype=101, nano=True)
        for ts, buf in dpkt.pcap.Reader(f):
            ip = dpkt.ip.IP(buf)
            plen = ip.len - ip.hl * 4
            head = bytes(dpkt.ip6.IP6(src=prefix + ip.src, dst=prefix + ip.dst, nxt=6, hlim=64))[:40]
            w.writepkt(head[:4] + plen.to_bytes(2, "big") + head[6:] + buf[ip.hl * 4 :], ts=float(ts))
    a, b = fit_capture(random_loss), fit_capture(v6)
    assert "[2001:db8::a01:1]:32768" in b.flow
    assert b.base_rtt.value == a.base_rtt.value and b.loss.value == a.loss.value
    assert b.rate.value == pytest.approx(a.rate.value * 1520 / 1500, rel=1e-3)


def test_trains_average_out_the_jitter_of_single_ack_gaps():
    """ACK gaps that jitter moves by half a packet time either way (0.5 and 1.5 ms for 1 ms packets):
    single pairs give 2 and 0.67 times the rate, trains of 8 consecutive ACKs the rate itself; a
    break in the ACK sequence ends a train, and shorter trains are taken when long ones are few."""
    bits = 10_000  # 1 ms at 10 Mbit/s
    pairs = [AckPair(0.0005 if i % 2 else 0.0015, 0.0, bits, 1, None, i) for i in range(240)]
    assert sorted(set(round(x / 1e6, 2) for x in queued_pairs(pairs, 0.001))) == [6.67, 20.0]
    assert train_rates(pairs) == [pytest.approx(10e6)] * 30
    broken = [AckPair(p.gap, 0.0, bits, 1, None, p.index + (p.index >= 4)) for p in pairs]
    # Runs of 4 and 236 pairs: 29 trains of 8 are too few (MIN_TRAINS 30), so trains of 4: 1 + 59.
    assert train_rates(broken) == [pytest.approx(10e6)] * 60
