"""Statistics across repetitions, on data with known answers."""

import math

import numpy as np
import pytest
from ccbench import stats
from scipy import stats as sps


def test_summary_ci_uses_the_t_distribution():
    s = stats.summarize([1.0, 2.0, 3.0])
    assert (s.n, s.mean, s.std) == (3, 2.0, 1.0)
    assert s.ci95 == pytest.approx(4.302652729749464 / math.sqrt(3))  # t(0.975, 2) * 1 / sqrt 3
    assert stats.summarize([5.0]).n == 1 and math.isnan(stats.summarize([5.0]).ci95)
    assert stats.summarize([2.0, np.nan, 2.0]).ci95 == 0.0


def test_welch_matches_scipy_and_handles_zero_variance():
    a, b = [1.0, 2.0, 3.5], [2.0, 4.0, 5.0, 6.1]
    assert stats.welch_p(a, b) == pytest.approx(sps.ttest_ind(a, b, equal_var=False).pvalue)
    assert stats.welch_p([3, 3, 3], [3, 3]) == 1.0
    assert stats.welch_p([3, 3, 3], [4, 4]) == 0.0
    assert math.isnan(stats.welch_p([1.0], [1.0, 2.0]))


def test_holm_by_hand():
    # sorted p: 0.01 (x3 = 0.03), 0.02 (x2 = 0.04), 0.04 (x1 = 0.04)
    assert stats.holm([0.04, 0.01, 0.02]).tolist() == pytest.approx([0.04, 0.03, 0.04])
    # monotone: a larger raw p never gets a smaller adjusted p
    assert stats.holm([0.001, 0.03, 0.031]).tolist() == pytest.approx([0.003, 0.06, 0.06])
    adj = stats.holm([0.5, math.nan])
    assert adj[0] == 0.5 and math.isnan(adj[1])


def test_ranking_shows_ties_where_data_cannot_separate():
    samples = {
        "a": np.array([10.0, 10.1, 9.9, 10.0]),
        "b": np.array([9.9, 10.2, 10.0, 9.8]),  # indistinguishable from a
        "c": np.array([5.0, 5.1, 4.9, 5.0]),  # clearly worse
        "d": np.array([5.05, 4.95, 5.0, 5.1]),  # tied with c
    }
    r = stats.rank(samples).set_index("name")
    assert r.loc["a", "rank"] == 1 and r.loc["b", "rank"] == 1
    assert r.loc["c", "rank"] == 3 and r.loc["d", "rank"] == 3
    assert r.loc["b", "group_leader"] == "a"
    low = stats.rank(samples, higher_is_better=False).set_index("name")
    assert low.loc["c", "rank"] == 1 and low.loc["a", "rank"] == 3


def test_ranking_of_deterministic_results_and_missing_values():
    r = stats.rank({"x": [2.0, 2.0], "y": [1.0, 1.0], "z": [2.0, 2.0], "w": [np.nan, np.nan]}).set_index("name")
    assert r.loc["x", "rank"] == r.loc["z", "rank"] == 1
    assert r.loc["y", "rank"] == 3
    assert math.isnan(r.loc["w", "rank"])


def test_pairwise_family_is_corrected():
    samples = {k: np.arange(5.0) + i for i, k in enumerate("abc")}
    p = stats.pairwise(samples)
    assert len(p) == 3
    assert (p["p_holm"] >= p["p"]).all()
