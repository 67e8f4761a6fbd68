"""Statistics across repetitions: summaries with 95% confidence intervals,
pairwise tests of difference with Holm's correction, and a ranking with ties.

- CI: mean +/- t(0.975, n-1) * s / sqrt(n), s the sample standard deviation.
- Test: Welch's unequal-variance t-test (two-sided). With only a few
  repetitions a rank test (Mann-Whitney U) cannot reach p < 0.05 for n = 3, so
  Welch's is the useful choice. Simulations are often deterministic (zero
  variance): then equal means give p = 1 and different means p = 0.
- Holm (1979): sort the m p-values ascending; adjusted p_(i) =
  max over j <= i of min(1, (m - j + 1) * p_(j)).
- Ranking: sort by mean (best first); the best algorithm and every algorithm
  not significantly different from it (adjusted p >= alpha) share its rank;
  repeat with the best of the rest. Ranks are competition ranks (1, 1, 3, ...).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Summary:
    n: int
    mean: float
    std: float
    ci95: float  # half-width of the 95% confidence interval

    @property
    def low(self) -> float:
        return self.mean - self.ci95

    @property
    def high(self) -> float:
        return self.mean + self.ci95


def t_quantile(q: float, df: float) -> float:
    """Quantile of Student's t distribution (scipy.special: much lighter to
    import than scipy.stats, which matters for a CLI; imported on first use,
    so parsing a campaign file does not wait for it)."""
    from scipy import special

    return float(special.stdtrit(df, q))


def summarize(values) -> Summary:
    """n, mean, sample std (ddof 1) and the t-based 95% CI half-width of the finite values."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    n = int(x.size)
    if n == 0:
        return Summary(0, math.nan, math.nan, math.nan)
    mean = float(x.mean())
    if n == 1:
        return Summary(1, mean, math.nan, math.nan)
    std = float(x.std(ddof=1))
    return Summary(n, mean, std, float(t_quantile(0.975, n - 1) * std / math.sqrt(n)))


def welch_p(a, b) -> float:
    """Two-sided p-value of Welch's t-test; exact 0/1 when both samples have no variance."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    if a.size < 2 or b.size < 2:
        return math.nan
    if np.ptp(a) == 0 and np.ptp(b) == 0:
        return 1.0 if a[0] == b[0] else 0.0
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    t = (a.mean() - b.mean()) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))
    from scipy import special

    return float(2.0 * special.stdtr(df, -abs(t)))


def holm(pvalues) -> np.ndarray:
    """Holm-adjusted p-values (NaN stays NaN and does not count in m)."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    m = ok.size
    running = 0.0
    for rank, i in enumerate(ok[np.argsort(p[ok], kind="stable")]):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def _mean(values) -> float:
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    return float(x.mean()) if x.size else math.nan


def pairwise(samples: dict[str, np.ndarray]) -> pd.DataFrame:
    """Every pair (a, b) of groups: means, Welch p and Holm-adjusted p over all pairs."""
    names = list(samples)
    rows = [
        (a, b, _mean(samples[a]), _mean(samples[b]), welch_p(samples[a], samples[b]))
        for a, b in itertools.combinations(names, 2)
    ]
    df = pd.DataFrame(rows, columns=["a", "b", "mean_a", "mean_b", "p"])
    df["p_holm"] = holm(df["p"]) if len(df) else []
    return df


def _adjusted_lookup(pairs: pd.DataFrame) -> dict[frozenset, float]:
    return {frozenset((a, b)): p for a, b, p in zip(pairs["a"], pairs["b"], pairs["p_holm"])}


def rank(samples: dict[str, np.ndarray], higher_is_better: bool = True, alpha: float = 0.05) -> pd.DataFrame:
    """Ranking with ties: columns name, mean, rank, group_leader (the
    group's leader name): groups where the data cannot separate the members.
    Groups without a single finite value come last with rank NaN."""
    means = {k: _mean(v) for k, v in samples.items()}
    sign = -1.0 if higher_is_better else 1.0
    order = sorted(means, key=lambda k: (math.isnan(means[k]), sign * means[k] if not math.isnan(means[k]) else 0, k))
    adj = _adjusted_lookup(pairwise(samples))
    remaining = [k for k in order if not math.isnan(means[k])]
    rows = []
    while remaining:
        leader = remaining[0]
        position = len(rows) + 1
        group = [k for k in remaining if k == leader or not (adj.get(frozenset((leader, k)), math.nan) < alpha)]
        rows += [(k, means[k], position, leader) for k in group]
        remaining = [k for k in remaining if k not in group]
    rows += [(k, math.nan, math.nan, "") for k in order if math.isnan(means[k])]
    return pd.DataFrame(rows, columns=["name", "mean", "rank", "group_leader"])
