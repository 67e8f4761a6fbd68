"""The metrics against values worked out by hand: the cross-run statistics
of ccbench.metrics, and the core's per-run metrics as a table that comes
without them (the kernel emulator's) gets them through the binding
(run_result.flow_metrics, rtt_stats_per_flow, link_metrics)."""

import math

import numpy as np
import pandas as pd
import pytest
from ccbench import metrics, run_result


def _flow_counters(**changes) -> dict:
    """A flows table's counters (run_result.FLOW_COUNTER_COLUMNS) of two flows:
    a bulk flow active 0..10 s and a 1 MB file completed in 2 s."""
    cols = {
        "start_s": [0.0, 1.0],
        "end_s": [10.0, 3.0],
        "completion_s": [math.nan, 2.0],
        "delivered_bytes": [10_000_000, 1_000_000],
        "bytes_sent": [11_000_000, 1_000_000],
        "retransmitted_segments": [3, 0],
        "segments_sent": [200, 50],
        "timeouts": [2, 0],
    }
    return {**cols, **changes}


def test_the_cores_flow_metrics_by_hand():
    """The binding's flow metrics (the core's record::summary) of a table
    without them: rates over the active time (a file's completion time),
    retransmissions in percent, timeouts per 100 s."""
    m = run_result.flow_metrics(_flow_counters())
    assert list(m) == run_result.FLOW_METRIC_COLUMNS
    assert list(m["active_s"]) == [10.0, 2.0]
    assert list(m["goodput_bps"]) == [8_000_000.0, 4_000_000.0]
    assert list(m["throughput_bps"]) == [8_800_000.0, 4_000_000.0]  # retransmissions counted
    assert list(m["retrans_pct"]) == [1.5, 0.0]
    assert list(m["timeouts_per_100s"]) == [20.0, 0.0]
    assert all(m[c].dtype == np.float64 for c in m)


def test_counters_the_kernel_does_not_report_and_empty_times_give_nan():
    m = run_result.flow_metrics(_flow_counters(timeouts=[math.nan, 1], start_s=[0.0, 3.0]))
    assert math.isnan(m["timeouts_per_100s"][0])  # tcpi_total_rto before Linux 6.7
    m = run_result.flow_metrics(_flow_counters(end_s=[0.0, 3.0], segments_sent=[0, 50]))
    assert math.isnan(m["goodput_bps"][0]) and math.isnan(m["retrans_pct"][0])


def test_the_cores_rtt_statistics_by_hand():
    rtt = {"flow": [0, 0, 0, 0, 0], "rtt_ms": [40.0, 50.0, 60.0, 70.0, 80.0]}
    s = {c: v[0] for c, v in run_result.rtt_stats_per_flow(rtt, [0]).items()}
    assert list(s) == run_result.RTT_STAT_COLUMNS
    assert s["rtt_samples"] == 5
    assert s["rtt_mean_ms"] == 60.0
    assert s["rtt_std_ms"] == pytest.approx(math.sqrt(200.0))  # population: (400+100+0+100+400)/5
    assert s["rtt_min_ms"] == 40.0
    # The core's sketch: within 1% of the lower sample (60 at rank 2, 70 at rank 3.6).
    assert s["rtt_p50_ms"] == pytest.approx(60.0, rel=0.01)
    assert s["rtt_p90_ms"] == pytest.approx(70.0, rel=0.01)
    assert s["rtt_max_ms"] == 80.0
    assert s["queuing_mean_ms"] == 20.0  # mean of 0, 10, 20, 30, 40


def test_rtt_stats_per_flow_keeps_flow_order_and_missing_flows():
    rtt = pd.DataFrame({"flow": [1, 0, 1], "rtt_ms": [10.0, 30.0, 20.0], "t": [0.1, 0.2, 0.3]})
    out = run_result.rtt_stats_per_flow(rtt, [0, 1, 2])
    assert list(out["rtt_mean_ms"][:2]) == [30.0, 15.0]
    assert out["rtt_samples"].tolist() == [1, 2, 0]
    assert math.isnan(out["rtt_mean_ms"][2])


def test_jain_index():
    assert metrics.jain_index([5, 5, 5, 5]) == 1.0
    assert metrics.jain_index([10, 0]) == 0.5  # one flow takes everything: 1/N
    assert metrics.jain_index([1, 3]) == pytest.approx(16 / (2 * 10))  # (1+3)^2 / (2 * (1+9)) = 0.8
    assert math.isnan(metrics.jain_index([]))


def _links(flows: dict, duration: float = 10.0, tcp: dict | None = None) -> dict:
    """run_result.link_metrics of a one-link run ("downlink" at 64 kbit/s) whose flows' data all crosses it."""
    tcp = tcp or {"mss": 1448, "timestamps": True}
    n = len(flows["start_s"])
    scenario = {"duration": duration, "downlink": {}, "flows": [{"tcp": tcp}]}
    frame = pd.DataFrame({**flows, "group": [0] * n, "link": ["downlink"] * n})
    return run_result.link_metrics({"link": ["downlink"], "rate_bps": [64e3]}, frame, scenario)


def test_a_links_goodput_counts_the_time_its_flows_had_it_together():
    def goodput(start, active, delivered):
        return _links({"start_s": start, "active_s": active, "delivered_bytes": delivered})["goodput_bps"][0]

    assert goodput([0.0, 0.0], [2.0, 2.0], [1000, 3000]) == 16_000.0  # the sum of goodputs
    assert goodput([0.0, 5.0], [10.0, 5.0], [10_000, 5_000]) == 12_000.0  # 10 s, not 15
    assert goodput([0.0, 0.0], [1.0, 4.0], [1000, 1000]) == 4_000.0  # transfers done at 1 and 4 s
    assert math.isnan(goodput([], [], []))  # a link no flow's data crosses: not measured


def test_a_links_capacity_and_utilization_by_hand():
    m = _links({"start_s": [0.0], "active_s": [10.0], "delivered_bytes": [70_550]})
    assert list(m) == run_result.LINK_METRIC_COLUMNS
    # 56.44 of 64 kbit/s: 88.2% of the nominal rate, of a payload capacity of 64 x 1448/1500.
    assert m["offered_rate_bps"][0] == 64e3 and m["capacity_bps"][0] == 64e3 * 1448 / 1500
    assert m["goodput_bps"][0] == 56_440.0
    assert m["nominal_utilization"][0] == 56_440.0 / 64e3
    assert m["utilization"][0] == 56_440.0 / (64e3 * 1448 / 1500)
    nothing = {"start_s": [0.0], "active_s": [10.0], "delivered_bytes": [0]}
    without_timestamps = _links(nothing, tcp={"mss": 1460, "timestamps": False})
    assert without_timestamps["capacity_bps"][0] == 64e3 * 1460 / 1500


def test_interval_rates_and_windows():
    t = np.array([0.0, 0.5, 1.0, 1.5, 2.0])
    c = np.array([0, 62_500, 125_000, 125_000, 250_000])  # 1 Mbit/s, 1 Mbit/s, 0, 2 Mbit/s
    r = metrics.interval_rates(t, c)
    assert math.isnan(r[0])
    assert list(r[1:]) == [1e6, 1e6, 0.0, 2e6]
    assert metrics.counter_at(t, c, 1.2) == 125_000
    assert metrics.counter_at(t + 1.0, c, 0.5) == 0.0  # before the first sample
    assert metrics.window_rate_bps(t, c, 0.0, 2.0) == 1e6
    assert metrics.window_rate_bps(t, c, 1.0, 2.0) == 1e6
    assert metrics.recovery_ratio(5e6, 10e6) == 0.5
    assert math.isnan(metrics.recovery_ratio(5e6, 0.0))
    with pytest.raises(ValueError):
        metrics.window_rate_bps(t, c, 2.0, 1.0)


#: A trace of 2 s: 3 opportunities a ms for its first second, 1 for its second.
BURSTY_TRACE = {"opportunities_ms": [ms for ms in range(1, 2001) for _ in range(3 if ms <= 1000 else 1)]}


@pytest.mark.parametrize(
    "downlink, tcp",
    [
        ({"rate": "8Mbit", "delay": "15ms", "loss": {"model": "bernoulli", "p": 0.01}}, {}),
        # A run shorter than its trace: the rate offered then is not the trace's mean.
        ({"trace": BURSTY_TRACE, "delay": "15ms"}, {}),
        # Flows of different segment sizes: the link's payload share weighs them by what each delivered.
        ({"rate": "8Mbit", "delay": "15ms"}, {"mss": 200, "timestamps": False}),
    ],
)
def test_the_kernel_modes_metrics_are_the_simulators(downlink, tcp):
    """The simulator core computes the per-run metrics of its tables; a table
    without them (the kernel emulator's) gets them from the same code through
    the binding: fed a simulated run's counters and RTT samples, it gives the
    simulator's numbers, bit for bit (the RTT percentiles from the same sketch)."""
    import json

    from ccbench import _ccsim, scenario
    from ccbench.run_result import (
        FLOW_METRIC_COLUMNS,
        LINK_METRIC_COLUMNS,
        RTT_STAT_COLUMNS,
        flow_summary,
        link_summary,
        raw_columns,
    )

    spec = {
        "duration": "3s" if "rate" in downlink else "1s",
        "downlink": downlink,
        "flows": [{"cc": "cubic"}, {"cc": "reno", "size": "300KB", "start": "0.5s", "tcp": tcp}],
        "record": {"rtt_samples": "all"},
    }
    normalized = scenario.load(spec)
    raw = raw_columns(_ccsim.run(json.dumps(normalized)))
    core = flow_summary(raw["flows"], raw["rtt"], normalized, raw["links"])
    bare = {k: v for k, v in raw["flows"].items() if k not in FLOW_METRIC_COLUMNS + RTT_STAT_COLUMNS}
    python = flow_summary(bare, raw["rtt"], normalized, raw["links"])
    for c in FLOW_METRIC_COLUMNS + RTT_STAT_COLUMNS:
        # The rtt table orders a flow's samples of one instant by value, not as the simulator added
        # them: the running mean (so std and queuing mean) can differ in the last bit.
        rel = 1e-12 if c in ("rtt_mean_ms", "rtt_std_ms", "queuing_mean_ms") else 0
        np.testing.assert_allclose(core[c].to_numpy(float), python[c].to_numpy(float), rtol=rel, err_msg=c)
    links = pd.DataFrame(dict(raw["links"]))
    core_links = link_summary(links, core, normalized)
    python_links = link_summary(links.drop(columns=LINK_METRIC_COLUMNS), python, normalized)
    for c in LINK_METRIC_COLUMNS:
        np.testing.assert_array_equal(core_links[c].to_numpy(float), python_links[c].to_numpy(float), err_msg=c)
    # Only ACKs cross the uplink: its goodput and utilization are not measured (they read 0).
    not_measured = ["goodput_bps", "utilization", "nominal_utilization"]
    for frame in (core_links, python_links):
        assert frame.loc[1, "link"] == "uplink" and frame.loc[1, not_measured].isna().all()
    if "trace" in downlink:
        # The first second offers 3 x 1504 bytes a ms, twice the trace's mean.
        rate, offered = core_links.loc[0, ["rate_bps", "offered_rate_bps"]]
        assert offered == pytest.approx(3 * 1504 * 8 * 1000, rel=1e-3) and offered == pytest.approx(1.5 * rate)
        assert 0 < core_links.loc[0, "utilization"] <= 1
