"""bench/suite.py's issue-55 scenarios: each ccbench scenario file and the
ns-3 arguments beside it describe the same path and flows, and the pair
and per-algorithm lines summarize what they are given."""

import pandas as pd
import pytest
from ccbench import scenario as ccbench_scenario

NS3_CC = {"NewReno": "newreno", "Cubic": "cubic", "Vegas": "vegas", "WestwoodPlus": "westwood+", "Bbr": "bbr"}


def ns3_flows(args: dict) -> list[str]:
    """Each flow's algorithm as ccbench names it, in ns-3's order."""
    if "cc_list" in args:
        items = [item.split(":") for item in args["cc_list"].split(",")]
        return [NS3_CC[name] for name, count in items for _ in range(int(count))]
    return [NS3_CC[args["cc"]]] * args["flows"]


@pytest.mark.parametrize("key", ["u1", "u2", "u4"])
def test_the_two_sides_run_the_same_scenario(bench_module, key):
    suite = bench_module("suite")
    case = next(c for c in suite.CASES if c.key == key)
    s = ccbench_scenario.load(case.scenario, allow_large=True)
    args = case.ns3
    link = s["downlink"]
    assert link["rate"] == pytest.approx(args["rate_mbps"] * 1e6)
    assert link["delay"] == pytest.approx(args["delay_ms"] / 1000)
    assert s["duration"] == args["duration_s"]
    loss = link.get("loss") or {}
    assert loss.get("p", 0.0) == args.get("loss_rate", 0.0)
    ours = [f["cc"] for f in s["flows"] for _ in range(f["count"])]
    assert ours == ns3_flows(args)
    assert len(ours) == args["flows"]
    # What the ns-3 dumbbell sets (its header comment; MinRto from ns3_runner's default).
    for f in s["flows"]:
        tcp = f["tcp"]
        assert (tcp["sack"], tcp["timestamps"], tcp["min_rto"], tcp["init_cwnd"]) == (True, True, 0.2, 10)
        assert (tcp["delack_segments"], tcp["delack_timeout"]) == (2, 0.04)


def test_quartiles_of_one_and_of_several(bench_module):
    suite = bench_module("suite")
    assert suite.quartiles([7.0]) == (7.0, 7.0, 7.0)
    assert suite.quartiles([1.0, 2.0, 3.0, 4.0, 5.0]) == (2.0, 3.0, 4.0)


def test_pairs_line_gives_median_and_quartiles_of_the_ratios(bench_module):
    suite = bench_module("suite")
    pairs = [
        {"pps_cpu": 10.0, "ccbench_alongside_process_pps_cpu": [p], "ccbench_alongside_pps_cpu": [2 * p]}
        for p in (1000.0, 2000.0, 3000.0)
    ]
    line = suite.pairs_line(pairs)
    assert "3 pairs" in line
    assert "by process CPU time 200x [150x, 250x]" in line
    assert "by simulation CPU time 400x [300x, 500x]" in line


def test_per_algorithm_goodput_sums_each_algorithms_flows_on_both_sides(bench_module):
    suite = bench_module("suite")
    flows = pd.DataFrame({"cc": ["newreno", "newreno", "cubic"], "goodput_bps": [1e6, 2e6, 4e6]})
    ns3 = {"per_flow_goodput_bps": [0.5e6, 0.5e6, 6e6]}
    assert suite.per_algorithm_line(flows, ns3) == (
        "per algorithm, Mbit/s (ccbench / ns-3): newreno 3.00 / 1.00, cubic 4.00 / 6.00"
    )
    assert suite.per_algorithm_line(flows[flows.cc == "cubic"], ns3) is None
