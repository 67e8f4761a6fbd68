"""The recommendation, on data with known answers: comparisons against the
best with a practical-equivalence margin, repetitions to decide, objectives,
the Pareto front, dense ranks over a table sorted by the value shown, and
no confidence interval below zero."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from ccbench.campaigns import analysis


def runs_frame(rows: dict[str, dict[str, list[float]]]) -> pd.DataFrame:
    """A runs table: per candidate, per metric, one value per repetition."""
    out = []
    for name, metrics in rows.items():
        n = len(next(iter(metrics.values())))
        for i in range(n):
            row = {"cc": name, "rep": i, "flows": 1}
            defaults = {"goodput_bps": 5e6, "rtt_p95_ms": 50.0, "rtt_mean_ms": 45.0, "retrans_pct": 1.0}
            for col in analysis.METRICS:
                if col != "power":
                    row[col] = metrics.get(col, [defaults.get(col, 1.0)] * n)[i]
            out.append(row)
    return pd.DataFrame(out)


def one(rows, objective="throughput", margin=0.05) -> analysis.ConditionResult:
    runs = runs_frame(rows)
    factor, conditions = analysis.analyze(runs, ["cc"], {"cc": {}}, "cc", objective, margin)
    assert factor == "cc" and len(conditions) == 1
    return conditions[0]


def mbps(*values):
    return [v * 1e6 for v in values]


def test_a_much_worse_but_noisy_candidate_is_worse_not_tied():
    # the lossy-path case: 5.04 +- 1.07 against 9.50 was reported as a tie by Holm over all pairs
    c = one({"bbr": {"goodput_bps": mbps(9.4, 9.5, 9.6, 9.5)}, "ccp": {"goodput_bps": mbps(4.3, 5.9, 4.4, 5.56)}})
    t = c.table.set_index("name")
    assert t.loc["bbr", "verdict"] == "best" and t.loc["ccp", "verdict"] == "worse"
    assert c.pick == "bbr" and c.tied == [] and c.decided
    assert list(c.table["rank"]) == [1, 2]


def test_within_the_margin_is_tied_and_beyond_it_worse_even_when_both_are_significant():
    rows = {
        "a": {"goodput_bps": mbps(10.0, 10.02, 9.98, 10.0)},
        "b": {"goodput_bps": mbps(9.8, 9.82, 9.78, 9.8)},  # 2% below, precisely: tied at 5%
        "c": {"goodput_bps": mbps(9.0, 9.02, 8.98, 9.0)},  # 10% below: worse
    }
    c = one(rows)
    assert dict(zip(c.table["name"], c.table["verdict"])) == {"a": "best", "b": "tied", "c": "worse"}
    assert c.tied == ["b"]
    wide = one(rows, margin=0.15)
    assert wide.tied == ["b", "c"] or set(wide.tied) == {"b", "c"}


def test_undecided_says_how_many_repetitions_would_decide():
    c = one({"a": {"goodput_bps": mbps(10.0, 10.1, 9.9)}, "b": {"goodput_bps": mbps(9.9, 8.9, 10.6)}})
    assert c.undecided == ["b"] and not c.decided
    assert c.reps_needed is not None and c.reps_needed > 3
    assert "repetitions" in analysis.confidence_text(c, 0.05)
    # with that many repetitions of similar data the same check decides
    rng = np.random.default_rng(1)
    n = c.reps_needed + 2
    more = one(
        {
            "a": {"goodput_bps": list(rng.normal(10e6, 0.1e6, n))},
            "b": {"goodput_bps": list(rng.normal(9.8e6, 0.2e6, n))},
        }
    )
    assert more.decided


def test_ties_on_goodput_go_to_lower_delay_then_fewer_retransmissions():
    # the cellular case: vegas 0.3% below the best goodput with half its RTT
    c = one(
        {
            "cubic": {"goodput_bps": mbps(1.80, 1.81, 1.79), "rtt_p95_ms": [400, 410, 390]},
            "vegas": {"goodput_bps": mbps(1.795, 1.805, 1.785), "rtt_p95_ms": [200, 205, 195]},
        }
    )
    assert c.pick == "vegas" and c.tied == ["cubic"]
    # the long-RTT case: same goodput and delay, 25.6% against 2% retransmissions
    c = one(
        {
            "hybla": {"goodput_bps": mbps(8.0, 8.01, 7.99), "retrans_pct": [25.6, 25.0, 26.2]},
            "cubic": {"goodput_bps": mbps(7.99, 8.0, 7.98), "retrans_pct": [2.0, 2.1, 1.9]},
        }
    )
    assert c.pick == "cubic"


def test_table_sorted_by_value_with_dense_ranks():
    rows = {k: {"goodput_bps": mbps(v, v * 1.001, v * 0.999)} for k, v in zip("abcdef", [5, 10, 9.9, 7, 6.95, 1])}
    c = one(rows)
    assert list(c.table["name"]) == ["b", "c", "d", "e", "a", "f"]
    assert list(c.table["rank"]) == [1, 1, 2, 2, 3, 4]
    assert list(c.table["mean"]) == sorted(c.table["mean"], reverse=True)


def test_delay_objective_sorts_ascending_and_latency_needs_goodput():
    rows = {
        "fast": {"goodput_bps": mbps(10, 10, 10), "rtt_p95_ms": [100, 101, 99]},
        "calm": {"goodput_bps": mbps(9, 9, 9), "rtt_p95_ms": [40, 41, 39]},
        "idle": {"goodput_bps": mbps(1, 1, 1), "rtt_p95_ms": [20, 20, 20]},
    }
    assert one(rows, "delay").pick == "idle"
    lat = one(rows, "latency")
    assert lat.pick == "calm"
    assert lat.table.set_index("name").loc["idle", "verdict"] == "not eligible"
    bal = one(rows, "balanced")
    assert bal.pick == "calm"  # 9 Mbit/s / 40 ms beats 10 / 100 and 1 / 20


def test_pareto_front_by_hand():
    front = analysis.pareto_front(np.array([10, 9, 8, 7, 9]), np.array([100, 40, 50, 20, 40]))
    assert front.tolist() == [True, True, False, True, True]


def test_confidence_intervals_of_non_negative_quantities_stop_at_zero():
    n, mean, low, high = analysis.mean_ci([0.0, 0.0, 0.3])
    assert mean == pytest.approx(0.1) and low == 0.0 and high > 0.3
    c = one({"a": {"goodput_bps": mbps(1, 1.1, 0.9), "retrans_pct": [0.0, 0.0, 0.3], "jain": [0.9, 1.0, 1.0]}})
    assert (c.table["retrans_pct_low"] >= 0).all()
    assert c.table["jain_high"].iloc[0] == 1.0 and c.table["jain_low"].iloc[0] < 0.95  # Jain's index is at most 1


def test_default_compared_factor_is_the_one_setting_the_congestion_control():
    assert analysis.compared_factor(["downlink.rate", "flows[*].cc", "profile"]) == "flows[*].cc"
    assert analysis.compared_factor(["downlink.rate", "profile"]) == "downlink.rate"


def test_conditions_are_the_other_factors_in_file_order():
    runs = runs_frame({"a": {"goodput_bps": mbps(1, 2)}, "b": {"goodput_bps": mbps(2, 3)}})
    runs = pd.concat([runs.assign(rate="10Mbit"), runs.assign(rate="1Mbit")], ignore_index=True)
    order = {"cc": {"a": 0, "b": 1}, "rate": {"1Mbit": 0, "10Mbit": 1}}
    factor, conditions = analysis.analyze(runs, ["cc", "rate"], order)
    assert factor == "cc"
    assert [c.levels for c in conditions] == [{"rate": "1Mbit"}, {"rate": "10Mbit"}]


def test_an_undecided_row_without_a_repetition_count_renders():
    """reps_to_decide may give None (no estimate); the report's table cell then names no count."""
    from ccbench.campaigns import report

    row = pd.Series({"diff": -1e6, "diff_half": 2e6, "verdict": "undecided", "reps_needed": None}, dtype=object)
    cell = report._vs_best(row, analysis.METRICS["goodput_bps"])
    assert "undecided" in cell and "reps" not in cell
    row["reps_needed"] = 7
    assert "~7 reps" in report._vs_best(row, analysis.METRICS["goodput_bps"])


def test_identical_results_over_common_seeds_are_tied_not_undecided():
    """With common seeds the runs pair up by seed: a candidate whose every run equals the best's
    (the spread between runs is large, the difference zero) is tied; unpaired, it never was."""
    spread = mbps(0.03, 0.1, 0.21, 0.1, 0.21, 0.05, 0.04, 0.3, 0.1, 0.05, 0.3, 0.05)
    runs = runs_frame({"tahoe": {"goodput_bps": spread}, "reno": {"goodput_bps": spread}})
    runs["seed"] = runs["rep"] * 7919 + 3  # the same seed for the same repetition of every candidate
    _, (c,) = analysis.analyze(runs, ["cc"], {"cc": {}}, "cc", "throughput", 0.05)
    assert dict(zip(c.table["name"], c.table["verdict"])) == {"tahoe": "best", "reno": "tied"}
    assert c.decided and c.tied == ["reno"]
    assert c.table.set_index("name").loc["reno", "paired"]
    # a candidate 1% below the best in every pair is tied too; 10% below, worse
    lower = runs.assign(cc="lower", goodput_bps=runs["goodput_bps"] * 0.99)
    much = runs[runs["cc"] == "tahoe"].assign(cc="much", goodput_bps=lambda r: r["goodput_bps"] * 0.9)
    _, (c,) = analysis.analyze(
        pd.concat([runs, lower[lower["cc"] == "lower"].drop_duplicates("rep"), much]),
        ["cc"],
        {"cc": {}},
        "cc",
        "throughput",
        0.05,
    )
    assert dict(zip(c.table["name"], c.table["verdict"]))["much"] == "worse"
    assert dict(zip(c.table["name"], c.table["verdict"]))["lower"] == "tied"


def test_without_shared_seeds_the_comparison_stays_unpaired():
    a, b = mbps(1, 2, 3), mbps(1, 2, 3)
    assert analysis.paired_values(a, b, [1, 2, 3], [4, 5, 6]) is None
    d, se, df = analysis.difference_se(a, b, [1, 2, 3], [4, 5, 6])
    assert d == 0 and se > 0  # Welch: the spread between runs counts
    assert analysis.difference_se(a, b, [1, 2, 3], [1, 2, 3])[1] == 0.0


def test_nothing_delivered_gives_no_pick_and_says_why():
    """Runs too short for anything to arrive: every value is 0, which is no ground for a pick."""
    c = one({"tahoe": {"goodput_bps": [0.0, 0.0, 0.0]}, "reno": {"goodput_bps": [0.0, 0.0, 0.0]}})
    assert c.pick is None and c.tied == [] and c.undecided == [] and not c.decided
    assert c.no_pick == analysis.NOTHING_DELIVERED
    assert set(c.table["verdict"]) == {"no data"}
    assert analysis.confidence_text(c, 0.05).startswith("No pick: no flow delivered any data")


def test_fairness_of_single_flow_runs_gives_no_pick_saying_why():
    nan = float("nan")
    c = one(
        {"a": {"goodput_bps": mbps(1, 2), "jain": [nan, nan]}, "b": {"goodput_bps": mbps(1, 2), "jain": [nan, nan]}},
        "fairness",
    )
    assert c.pick is None and not c.decided
    assert c.no_pick == "Jain's index needs at least two flows per run; the runs under these conditions have one"


def test_a_pick_that_is_not_the_best_row_says_which_metric_broke_the_tie():
    """latency: reno has the lowest p95 RTT, bbr is tied with it and picked for its goodput; the headline says so."""
    from ccbench.campaigns import report

    c = one(
        {
            "reno": {"goodput_bps": mbps(8.0, 8.01, 7.99), "rtt_p95_ms": [82.3, 82.4, 82.2]},
            "bbr": {"goodput_bps": mbps(9.0, 9.01, 8.99), "rtt_p95_ms": [83.9, 84.0, 83.8]},
        },
        "latency",
    )
    assert list(c.table["name"][:2]) == ["reno", "bbr"] and c.pick == "bbr" and c.tied == ["reno"]
    assert c.pick_reason == "bbr and reno are tied on p95 RTT; bbr has the higher goodput (9.00 against 8.00 Mbit/s)"
    html = report.recommendation_html(c, analysis.OBJECTIVES["latency"], 0.05, "cc")
    assert c.pick_reason in html
    # The table labels the pick as the pick, not the leader as "best" (the pick was bbr, row 1 said "best" for reno).
    table = report.condition_table(c, analysis.OBJECTIVES["latency"], False, "cc")
    rows = table.split("<tr")[2:]
    assert "reno" in rows[0] and 'best mean<span class="pm">tied with the pick' in rows[0] and ">best<" not in table
    assert "bbr" in rows[1] and "<b>the pick</b>" in rows[1]
    # the best row picked: nothing to explain
    assert one({"a": {"goodput_bps": mbps(10, 10.1, 9.9)}, "b": {"goodput_bps": mbps(5, 5.1, 4.9)}}).pick_reason is None


def test_no_tie_with_undecided_candidates_close_by_does_not_claim_none_comes_within_the_margin():
    """lte --quick: cubic picked at 21.24 Mbit/s, compound 21.06 and reno 21.02 undecided; the old
    text said no other comes within 5%."""
    from ccbench.campaigns import report

    c = one(
        {
            "cubic": {"goodput_bps": mbps(21.24, 22.24, 20.24)},
            "compound": {"goodput_bps": mbps(21.06, 19.06, 23.06)},
            "reno": {"goodput_bps": mbps(21.02, 18.02, 24.02)},
        }
    )
    assert c.pick == "cubic" and c.tied == [] and c.undecided == ["compound", "reno"]
    html = report.recommendation_html(c, analysis.OBJECTIVES["throughput"], 0.05, "cc")
    assert "comes within" not in html
    assert (
        "No other cc is shown to be within 5% of it yet; not decided (more repetitions would tell): "
        "compound 0.8% lower, reno 1.0% lower goodput." in html
    )
    worse = one({"a": {"goodput_bps": mbps(10, 10.1, 9.9)}, "b": {"goodput_bps": mbps(5, 5.1, 4.9)}})
    assert "No other cc comes within 5% of it." in report.recommendation_html(
        worse, analysis.OBJECTIVES["throughput"], 0.05, "cc"
    )


def test_one_repetition_asks_for_a_second_instead_of_guessing_a_number():
    c = one({"a": {"goodput_bps": mbps(10)}, "b": {"goodput_bps": mbps(9.9)}})
    assert c.undecided == ["b"] and c.reps == 1 and c.reps_needed is None
    text = analysis.confidence_text(c, 0.05)
    assert "at least 2 repetitions per candidate are needed to estimate the spread" in text
    assert "about 3" not in text
    assert analysis.reps_to_decide(-0.1, float("nan"), 0.5, 1) is None


def test_shown_decimals_give_the_largest_value_three_significant_digits():
    """A UMTS condition's goodputs (0.121, 0.118 Mbit/s) all read 0.12 at the
    two decimals that suit Mbit/s paths; a fast path keeps its two."""
    goodput = analysis.METRICS["goodput_bps"]
    slow = analysis.shown(goodput, [121_400.0, 118_200.0, np.nan])
    assert [analysis.fmt(v, slow) for v in (121_400.0, 118_200.0)] == ["0.121", "0.118"]
    assert analysis.shown(goodput, [961.5e6, 12e6]).decimals == 2
    assert analysis.shown(goodput, [np.nan, 0.0]) == goodput
    retrans = analysis.METRICS["retrans_pct"]
    assert analysis.shown(retrans, [0.042]).decimals == 4 and analysis.shown(retrans, [17.6]).decimals == 2
