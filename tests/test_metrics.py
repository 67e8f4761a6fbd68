"""The metric functions against values worked out by hand."""

import math

import numpy as np
import pandas as pd
import pytest
from ccbench import metrics


def test_rates_over_active_time_and_file_completion():
    # a bulk flow active 0..10 s delivering 10 MB: 8 Mbit/s; a file of 1 MB completed in 2 s: 4 Mbit/s
    active = metrics.active_seconds([0.0, 1.0], [10.0, 3.0], [math.nan, 2.0])
    assert list(active) == [10.0, 2.0]
    assert list(metrics.rate_bps([10_000_000, 1_000_000], active)) == [8_000_000.0, 4_000_000.0]
    # throughput counts retransmissions: 11 MB sent over 10 s
    assert metrics.rate_bps(11_000_000, 10.0) == 8_800_000.0
    assert math.isnan(float(metrics.rate_bps(5, 0.0)))


def test_retransmissions_and_timeouts_per_100s():
    assert list(metrics.retransmission_pct([3, 0], [200, 50])) == [1.5, 0.0]
    assert math.isnan(float(metrics.retransmission_pct(0, 0)))
    # 2 timeouts in 40 s of activity = 5 per 100 s
    assert float(metrics.per_100s(2, 40.0)) == 5.0


def test_rtt_statistics_by_hand():
    s = metrics.rtt_stats([40.0, 50.0, 60.0, 70.0, 80.0])
    assert s["rtt_samples"] == 5
    assert s["rtt_mean_ms"] == 60.0
    assert s["rtt_std_ms"] == pytest.approx(math.sqrt(200.0))  # population: (400+100+0+100+400)/5
    assert s["rtt_min_ms"] == 40.0
    assert s["rtt_p50_ms"] == 60.0
    assert s["rtt_p90_ms"] == 70.0  # the lower sample at position 3.6
    assert s["rtt_max_ms"] == 80.0
    assert s["queuing_mean_ms"] == 20.0  # mean of 0, 10, 20, 30, 40
    empty = metrics.rtt_stats([])
    assert empty["rtt_samples"] == 0 and math.isnan(empty["rtt_mean_ms"])


def test_rtt_stats_per_flow_keeps_flow_order_and_missing_flows():
    rtt = pd.DataFrame({"flow": [1, 0, 1], "rtt_ms": [10.0, 30.0, 20.0], "t": [0.1, 0.2, 0.3]})
    out = metrics.rtt_stats_per_flow(rtt, [0, 1, 2])
    assert list(out["rtt_mean_ms"][:2]) == [30.0, 15.0]
    assert out["rtt_samples"].tolist() == [1, 2, 0]


def test_jain_index():
    assert metrics.jain_index([5, 5, 5, 5]) == 1.0
    assert metrics.jain_index([10, 0]) == 0.5  # one flow takes everything: 1/N
    assert metrics.jain_index([1, 3]) == pytest.approx(16 / (2 * 10))  # (1+3)^2 / (2 * (1+9)) = 0.8
    assert math.isnan(metrics.jain_index([]))


def test_payload_share_and_utilization():
    assert metrics.payload_share(1448, True) == 1448 / 1500
    assert metrics.payload_share(1460, False) == 1460 / 1500
    assert metrics.utilization(7.5e6, 10e6) == 0.75
    assert math.isnan(metrics.utilization(1e6, 0.0))


def test_a_links_goodput_counts_the_time_its_flows_had_it_together():
    assert metrics.link_goodput_bps([0.0, 0.0], [2.0, 2.0], [1000, 3000]) == 16_000.0  # the sum of goodputs
    assert metrics.link_goodput_bps([0.0, 5.0], [10.0, 5.0], [10_000, 5_000]) == 12_000.0  # 10 s, not 15
    assert metrics.link_goodput_bps([0.0, 0.0], [1.0, 4.0], [1000, 1000]) == 4_000.0  # transfers done at 1 and 4 s
    assert math.isnan(metrics.link_goodput_bps([], [], []))  # a link no flow's data crosses: not measured


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
def test_the_core_metrics_are_these_definitions(downlink, tcp):
    """The simulator core computes the per-run metrics; the Python definitions
    (used for the kernel emulator's tables) give the same numbers."""
    import json

    from ccbench import _ccsim, scenario
    from ccbench.run_result import FLOW_METRIC_COLUMNS, LINK_METRIC_COLUMNS, flow_summary, link_summary, raw_columns

    spec = {
        "duration": "3s" if "rate" in downlink else "1s",
        "downlink": downlink,
        "flows": [{"cc": "cubic"}, {"cc": "reno", "size": "300KB", "start": "0.5s", "tcp": tcp}],
        "record": {"rtt_samples": "all"},
    }
    normalized = scenario.load(spec)
    raw = raw_columns(_ccsim.run(json.dumps(normalized)))
    core = flow_summary(raw["flows"], raw["rtt"], normalized, raw["links"])
    bare = {k: v for k, v in raw["flows"].items() if k not in FLOW_METRIC_COLUMNS + metrics.RTT_STAT_COLUMNS}
    python = flow_summary(bare, raw["rtt"], normalized, raw["links"])
    for c in FLOW_METRIC_COLUMNS + metrics.RTT_STAT_COLUMNS:
        rel = 0.01 if c.startswith("rtt_p") else 1e-9
        np.testing.assert_allclose(core[c].to_numpy(float), python[c].to_numpy(float), rtol=rel, err_msg=c)
    links = pd.DataFrame(dict(raw["links"]))
    core_links = link_summary(links, core, normalized)
    python_links = link_summary(links.drop(columns=LINK_METRIC_COLUMNS), python, normalized)
    for c in LINK_METRIC_COLUMNS:
        np.testing.assert_allclose(core_links[c].to_numpy(float), python_links[c].to_numpy(float), rtol=1e-9)
    # Only ACKs cross the uplink: its goodput and utilization are not measured (they read 0).
    not_measured = ["goodput_bps", "utilization", "nominal_utilization"]
    for frame in (core_links, python_links):
        assert frame.loc[1, "link"] == "uplink" and frame.loc[1, not_measured].isna().all()
    if "trace" in downlink:
        # The first second offers 3 x 1504 bytes a ms, twice the trace's mean.
        rate, offered = core_links.loc[0, ["rate_bps", "offered_rate_bps"]]
        assert offered == pytest.approx(3 * 1504 * 8 * 1000, rel=1e-3) and offered == pytest.approx(1.5 * rate)
        assert 0 < core_links.loc[0, "utilization"] <= 1
