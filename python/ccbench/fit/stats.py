"""The small statistics the fit needs, each with where its interval comes from."""

from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval


def median_ci(xs: list[float]) -> tuple[float, float, float]:
    """The median and its distribution-free 95% interval: the order statistics at
    n/2 -/+ 1.96 sqrt(n)/2 (the normal approximation of the binomial count of samples below the
    median; Conover, "Practical Nonparametric Statistics", 3rd ed., section 3.2)."""
    s = sorted(xs)
    n = len(s)
    mid = s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
    half = Z95 * math.sqrt(n) / 2
    lo = max(0, math.floor(n / 2 - half))
    hi = min(n - 1, math.ceil(n / 2 + half) - 1)
    return mid, s[lo], s[hi]


def wilson(k: int, n: int) -> tuple[float, float]:
    """Wilson's 95% score interval of a binomial proportion k/n (Wilson 1927; Brown, Cai and
    DasGupta, Statistical Science 2001, recommend it for small k)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def quantile(xs: list[float], q: float) -> float:
    """The q-quantile by linear interpolation between order statistics (numpy's default)."""
    s = sorted(xs)
    at = q * (len(s) - 1)
    i = int(math.floor(at))
    j = min(i + 1, len(s) - 1)
    return s[i] + (s[j] - s[i]) * (at - i)


@dataclass(frozen=True)
class Gilbert:
    """The simple Gilbert model fitted to a loss sequence (Gilbert 1960; the two-state Markov
    chain with a loss-free Good and an all-loss Bad state, as RFC 3611 section 4.7.2 and the
    scenario's `gilbert` loss use it). Maximum likelihood: p = P(loss | previous delivered),
    r = P(delivered | previous lost). `lr` is the likelihood-ratio statistic against independent
    (Bernoulli) loss, chi-squared with 1 degree of freedom under independence."""

    losses: int
    frames: int
    bursts: int
    p: float
    r: float
    lr: float
    burst_mean: float
    burst_lo: float
    burst_hi: float

    @property
    def mean_loss(self) -> float:
        return self.losses / self.frames if self.frames else 0.0

    @property
    def bursty(self) -> bool:
        """Independence rejected at the 1% level (chi-squared, 1 d.f.: 6.635) and bursts longer than
        one frame on average: a Gilbert model explains the sequence better than random loss."""
        return self.lr > 6.635 and self.burst_lo > 1.0


def _xlogy(x: float, y: float) -> float:
    return 0.0 if x == 0 else x * math.log(y)


def fit_gilbert(lost: list[bool]) -> Gilbert:
    n = len(lost)
    k = sum(lost)
    n00 = n01 = n10 = n11 = 0
    bursts: list[int] = []
    run = 0
    for prev, cur in zip(lost, lost[1:]):
        if prev:
            n11 += cur
            n10 += not cur
        else:
            n01 += cur
            n00 += not cur
    for x in lost:
        if x:
            run += 1
        elif run:
            bursts.append(run)
            run = 0
    if run:
        bursts.append(run)
    p = n01 / (n00 + n01) if n00 + n01 else 0.0
    r = n10 / (n10 + n11) if n10 + n11 else 1.0
    ll_markov = _xlogy(n00, 1 - p) + _xlogy(n01, p) + _xlogy(n10, r) + _xlogy(n11, 1 - r)
    q = k / n if n else 0.0
    m = n - 1
    lost_next = n01 + n11
    ll_bern = _xlogy(lost_next, q) + _xlogy(m - lost_next, 1 - q)
    lr = max(0.0, 2 * (ll_markov - ll_bern))
    mean = sum(bursts) / len(bursts) if bursts else 0.0
    if len(bursts) > 1:
        sd = math.sqrt(sum((b - mean) ** 2 for b in bursts) / (len(bursts) - 1))
        half = Z95 * sd / math.sqrt(len(bursts))
    else:
        half = float("inf")
    return Gilbert(k, n, len(bursts), p, r, lr, mean, max(1.0, mean - half), mean + half)
