"""Which level of the compared factor to pick, per condition, from the runs table.

The compared factor (default: the one that sets a congestion control) is
compared within each condition (a combination of the other factors' levels).
What matters is an objective: one metric (goodput, p95 delay,
retransmissions, fairness) or a preset (throughput, latency, balanced).

Method (equivalence testing against the best, e.g. Wellek, Testing
Statistical Hypotheses of Equivalence, 2010; Lakens 2017):
- the leader is the candidate with the best mean; every other candidate is
  compared with the leader only (not all pairs), by the 95% confidence
  interval of the difference of means: paired (the t interval of the
  per-seed differences) over the runs that share a seed with the leader's
  (common random numbers: `common_seeds` gives every candidate the same
  seeds, so the pair differs only by the candidate and the between-run
  spread cancels; identical results are then exactly tied), else Welch's;
- a practical-equivalence margin m (default 5% of the leader's mean, at least
  an absolute floor per metric) says what difference does not matter:
  tied = the whole interval lies within +-m; worse = it lies beyond -m;
  undecided = it straddles a boundary, so more repetitions are needed;
  their number is estimated from the interval's half-width, which shrinks
  with the square root of the repetitions (at least 2 are needed to
  measure the spread at all);
- ranks are dense (1, 1, 2, 3, ...) over the table sorted by the objective:
  a candidate shares the rank of its group's leader unless it is worse than it;
- the pick is taken among the leader and those tied with it: within the
  margin of the best on each secondary metric in turn (e.g. for throughput:
  p95 delay, then retransmissions), the best on the objective; when that is
  not the leader, the metric that set them apart is stated (pick_reason);
- the Pareto front in the goodput vs p95-delay plane is marked.
Confidence intervals of the mean of a non-negative quantity are clipped at 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from ccbench.stats import summarize, t_quantile


@dataclass(frozen=True)
class Metric:
    column: str
    label: str
    unit: str
    scale: float
    decimals: int
    higher_is_better: bool
    #: differences smaller than this (in the column's units) never matter
    floor: float


METRICS = {
    "goodput_bps": Metric("goodput_bps", "goodput", "Mbit/s", 1e-6, 2, True, 0.0),
    "rtt_p95_ms": Metric("rtt_p95_ms", "p95 RTT", "ms", 1.0, 1, False, 1.0),
    "rtt_mean_ms": Metric("rtt_mean_ms", "mean RTT", "ms", 1.0, 1, False, 1.0),
    "queuing_mean_ms": Metric("queuing_mean_ms", "queuing delay", "ms", 1.0, 1, False, 1.0),
    "retrans_pct": Metric("retrans_pct", "retransmissions", "%", 1.0, 2, False, 0.1),
    "timeouts_per_100s": Metric("timeouts_per_100s", "timeouts", "/100 s", 1.0, 2, False, 0.1),
    "jain": Metric("jain", "Jain's fairness", "", 1.0, 3, True, 0.01),
    "utilization": Metric("utilization", "utilization", "%", 100.0, 1, True, 0.0),
    "power": Metric("power", "power (goodput / p95 RTT)", "Mbit/s per s", 1e-3, 2, True, 0.0),
    # Mean completion time of sized transfers (recommend's file and web workloads; harm.per_run).
    "completion_ms": Metric("completion_ms", "completion time", "ms", 1.0, 1, False, 1.0),
}


@dataclass(frozen=True)
class Objective:
    name: str
    metric: str
    secondary: tuple
    description: str
    #: candidates below this share of the best mean goodput are not eligible
    min_goodput_share: float = 0.0


OBJECTIVES = {
    "throughput": Objective(
        "throughput", "goodput_bps", ("rtt_p95_ms", "retrans_pct"), "highest goodput; ties go to lower p95 RTT"
    ),
    "latency": Objective(
        "latency",
        "rtt_p95_ms",
        ("goodput_bps", "retrans_pct"),
        "lowest p95 RTT among candidates with at least 80% of the best goodput",
        0.8,
    ),
    "balanced": Objective(
        "balanced", "power", ("retrans_pct", "rtt_p95_ms"), "highest power: goodput divided by p95 RTT (Kleinrock)"
    ),
    "goodput": Objective("goodput", "goodput_bps", ("rtt_p95_ms", "retrans_pct"), "highest goodput"),
    "delay": Objective("delay", "rtt_p95_ms", ("goodput_bps", "retrans_pct"), "lowest p95 RTT"),
    "retransmissions": Objective(
        "retransmissions", "retrans_pct", ("goodput_bps", "rtt_p95_ms"), "fewest retransmissions"
    ),
    "fairness": Objective("fairness", "jain", ("goodput_bps", "rtt_p95_ms"), "highest Jain's index between flows"),
}
#: Quantities that cannot exceed a bound (their CIs are clipped there).
UPPER_BOUNDS = {"jain": 1.0}
DEFAULT_OBJECTIVE = "throughput"
DEFAULT_MARGIN = 0.05
#: Repetitions estimate beyond this is reported as "many".
MAX_REPS_ESTIMATE = 1000


def compared_factor(factors: list[str]) -> str:
    """The factor that varies the congestion control (a path ending in 'cc'), else the first one."""
    for f in factors:
        if f == "cc" or f.endswith(".cc"):
            return f
    return factors[0]


def with_power(runs: pd.DataFrame) -> pd.DataFrame:
    """Adds `power`: goodput (bit/s) over p95 RTT (ms), per run."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p = runs["goodput_bps"].to_numpy(float) / runs["rtt_p95_ms"].to_numpy(float)
    return runs.assign(power=np.where(np.isfinite(p), p, np.nan))


def mean_ci(values, nonnegative: bool = True, upper: float = math.inf) -> tuple[int, float, float, float]:
    """(n, mean, low, high) of the 95% t interval; low clipped at 0 for a
    non-negative quantity, high at `upper` for a bounded one (Jain's index: 1)."""
    s = summarize(values)
    if not np.isfinite(s.ci95):
        return s.n, s.mean, math.nan, math.nan
    low = max(0.0, s.low) if nonnegative else s.low
    return s.n, s.mean, low, min(upper, s.high)


def difference_ci(a, b, seeds_a=None, seeds_b=None) -> tuple[float, float]:
    """Mean of b minus mean of a and the half-width of its 95% interval
    (paired when they share seeds, see difference_se; NaN with fewer than 2 each)."""
    d, se, df = difference_se(a, b, seeds_a, seeds_b)
    return d, _half_width(se, df)


def _half_width(se: float, df: float) -> float:
    """The half-width of a 95% t interval of standard error `se` (NaN without one)."""
    if not np.isfinite(se):
        return math.nan
    return 0.0 if se == 0 else float(t_quantile(0.975, df) * se)


def paired_values(a, b, seeds_a, seeds_b) -> tuple[np.ndarray, np.ndarray] | None:
    """The values of a and b of the runs with the same seed (both finite), in
    the same order; None without seeds or with fewer than 2 such pairs."""
    if seeds_a is None or seeds_b is None:
        return None
    first = {}
    for s, v in zip(np.asarray(seeds_a).tolist(), np.asarray(a, float)):
        if np.isfinite(v):
            first.setdefault(s, v)
    pairs = []
    for s, v in zip(np.asarray(seeds_b).tolist(), np.asarray(b, float)):
        if np.isfinite(v) and s in first:
            pairs.append((first.pop(s), v))
    if len(pairs) < 2:
        return None
    x, y = np.array(pairs, float).T
    return x, y


def difference_se(a, b, seeds_a=None, seeds_b=None) -> tuple[float, float, float]:
    """Mean of b minus mean of a, its standard error and degrees of freedom:
    paired over the runs of a and b that share a seed (at least 2: the same
    random numbers, so the between-run spread cancels and identical results
    give a zero-width interval), else Welch's for unpaired samples."""
    return _difference_se(a, b, paired_values(a, b, seeds_a, seeds_b))


def _difference_se(a, b, pairs: tuple[np.ndarray, np.ndarray] | None) -> tuple[float, float, float]:
    """difference_se, given paired_values' result."""
    if pairs is not None:
        diffs = pairs[1] - pairs[0]
        d = float(diffs.mean())
        var = diffs.var(ddof=1) / diffs.size
        return d, (0.0 if var == 0 else math.sqrt(var)), float(diffs.size - 1)
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    if a.size < 2 or b.size < 2:
        return (float(b.mean() - a.mean()) if a.size and b.size else math.nan), math.nan, math.nan
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    d = float(b.mean() - a.mean())
    if va + vb == 0:
        return d, 0.0, math.inf
    df = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))
    return d, math.sqrt(va + vb), df


def verdict(diff: float, half: float, margin: float) -> str:
    """`diff` signed so that negative is worse: tied, worse or undecided."""
    if not (np.isfinite(diff) and np.isfinite(half)):
        return "undecided"
    if diff - half >= -margin and diff + half <= margin:
        return "tied"
    if diff + half < -margin:
        return "worse"
    return "undecided"


def reps_to_decide(diff: float, se: float, margin: float, n: int, paired: bool = False) -> int | None:
    """Repetitions per candidate after which the 95% interval of the
    difference would likely be narrow enough to decide, if the means and
    spreads stay as measured: the smallest n' with t(0.975, df) * se *
    sqrt(n/n') below the distance of the difference to the margin (df:
    n'-1 paired, 2n'-2 unpaired). None when it sits on the margin or would
    need more than MAX_REPS_ESTIMATE, and with fewer than 2 repetitions (no
    spread measured: any number would be a guess)."""
    if n < 2 or not np.isfinite(se):
        return None
    gap = abs(margin - abs(diff))
    if gap <= 1e-12 * max(1.0, abs(margin)):
        return None
    from scipy import special  # on first use: see ccbench.stats.t_quantile

    candidates = np.arange(n + 1, MAX_REPS_ESTIMATE + 1)
    df = candidates - 1 if paired else 2 * candidates - 2
    half = special.stdtrit(df, 0.975) * se * np.sqrt(n / candidates)
    ok = np.flatnonzero(half < gap)
    return int(candidates[ok[0]]) if ok.size else None


def pareto_front(goodput: np.ndarray, delay: np.ndarray) -> np.ndarray:
    """True where no other point has at least the goodput and at most the delay, one strictly."""
    g, d = np.asarray(goodput, float), np.asarray(delay, float)
    out = np.zeros(g.size, bool)
    for i in range(g.size):
        if not (np.isfinite(g[i]) and np.isfinite(d[i])):
            continue
        dominated = (g >= g[i]) & (d <= d[i]) & ((g > g[i]) | (d < d[i])) & np.isfinite(g) & np.isfinite(d)
        out[i] = not dominated.any()
    return out


@dataclass
class ConditionResult:
    """The analysis of one condition: `table` has one row per candidate,
    sorted by the objective (best first)."""

    key: str
    title: str
    levels: dict
    table: pd.DataFrame
    pick: str | None
    tied: list[str]
    undecided: list[str]
    reps: int
    reps_needed: int | None
    on_front: bool
    notes: list[str] = field(default_factory=list)
    #: why there is no pick (the data cannot answer), else None
    no_pick: str | None = None
    #: why the pick is not the best row (a tie broken on a secondary metric), else None
    pick_reason: str | None = None

    @property
    def decided(self) -> bool:
        """A pick, and no candidate left undecided (no pick is never decided)."""
        return self.pick is not None and not self.undecided


#: No pick: every run's goodput is zero (too short a run for the path: nothing arrived yet).
NOTHING_DELIVERED = "no flow delivered any data (goodput 0 in every run)"
#: Why the fairness objective cannot rank runs of one flow.
JAIN_NEEDS_TWO_FLOWS = "Jain's index needs at least two flows per run"


def check_fairness(flows_per_run: list[int], given: str = "--objective") -> None:
    """Refuses the fairness objective when every run has one flow: Jain's
    index between flows needs two, so no condition could have a pick."""
    if flows_per_run and max(flows_per_run) < 2:
        raise ValueError(f"{given} fairness: {JAIN_NEEDS_TWO_FLOWS}; these runs have one")


def no_pick_reason(runs: pd.DataFrame, objective: Objective) -> str | None:
    """Why these runs cannot give a pick, or None: nothing was delivered, or
    no run has the objective's metric (Jain's index of a single flow)."""
    if "goodput_bps" in runs and not (runs["goodput_bps"].fillna(0) > 0).any():
        return NOTHING_DELIVERED
    if not np.isfinite(runs[objective.metric].to_numpy(float)).any():
        if objective.metric == "jain" and "flows" in runs and (runs["flows"] < 2).all():
            return f"{JAIN_NEEDS_TWO_FLOWS}; the runs under these conditions have one"
        return f"no run has a value of {METRICS[objective.metric].label}"
    return None


def _margin(metric: Metric, leader_mean: float, rel: float) -> float:
    return max(rel * abs(leader_mean), metric.floor) if np.isfinite(leader_mean) else math.nan


def compare_candidates(
    samples: dict[str, np.ndarray], metric: Metric, rel_margin: float, seeds: dict[str, np.ndarray] | None = None
) -> pd.DataFrame:
    """Candidates sorted by mean (best first) with n, mean, CI, difference to
    the leader with its interval (`paired`: over runs with the same seed, given
    `seeds` per candidate), verdict, dense rank and repetitions to decide."""
    seeds = seeds or {}
    sign = 1.0 if metric.higher_is_better else -1.0
    means = {k: (float(np.nanmean(v)) if np.isfinite(v).any() else math.nan) for k, v in samples.items()}
    order = sorted(samples, key=lambda k: (not np.isfinite(means[k]), -sign * means[k] if np.isfinite(means[k]) else 0))
    rows = []
    leader = order[0] if order and np.isfinite(means[order[0]]) else None
    margin = _margin(metric, means[leader], rel_margin) if leader else math.nan
    rank, group_leader = 0, None
    for k in order:
        n, mean, low, high = mean_ci(samples[k])
        row = {"name": k, "n": n, "mean": mean, "low": low, "high": high}
        if leader is None or not np.isfinite(mean):
            rows.append(
                {
                    **row,
                    "diff": math.nan,
                    "diff_half": math.nan,
                    "verdict": "no data",
                    "rank": math.nan,
                    "paired": False,
                }
            )
            continue
        pairs = paired_values(samples[leader], samples[k], seeds.get(leader), seeds.get(k))
        d, se, df = _difference_se(samples[leader], samples[k], pairs)
        paired = k != leader and pairs is not None
        half = _half_width(se, df)
        v = "best" if k == leader else verdict(sign * d, half, margin)
        if group_leader is None:
            rank, group_leader = 1, k
        elif k != group_leader:
            gd, gh = difference_ci(samples[group_leader], samples[k], seeds.get(group_leader), seeds.get(k))
            group_margin = _margin(metric, means[group_leader], rel_margin)
            if verdict(sign * gd, gh, group_margin) == "worse":
                rank, group_leader = rank + 1, k
        rows.append(
            {
                **row,
                "diff": d,
                "diff_half": half,
                "verdict": v,
                "rank": rank,
                "paired": paired,
                "reps_needed": reps_to_decide(sign * d, se, margin, len(pairs[0]) if paired else n, paired)
                if v == "undecided"
                else None,
            }
        )
    out = pd.DataFrame(rows)
    out.attrs["margin"] = margin
    return out


def _condition_title(levels: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in levels.items()) or "all runs"


def _pick(table: pd.DataFrame, objective: Objective, rel_margin: float) -> tuple[str | None, str | None]:
    """(pick, why it is not the best row: None when it is). The pool is the
    best and those tied with it; each secondary metric in turn keeps those
    within the margin of the pool's best on it; the first left is the pick."""
    pool = table[table["verdict"].isin(["best", "tied"])]
    if pool.empty:
        return None, None
    leader = pool.iloc[0]
    reason = None
    for col in objective.secondary:
        m = METRICS[col]
        vals = pool[f"{col}"]
        if not vals.notna().any():
            continue
        best = vals.max() if m.higher_is_better else vals.min()
        tol = max(rel_margin * abs(best), m.floor)
        keep = ((vals >= best - tol) if m.higher_is_better else (vals <= best + tol)).fillna(False)
        pool = pool[keep]
        if reason is None and leader["name"] not in set(pool["name"]):
            reason = col
    pick = pool.iloc[0]
    if reason is None:
        return str(pick["name"]), None
    m, label = shown(METRICS[reason], table[reason]), METRICS[objective.metric].label
    better = "higher" if m.higher_is_better else "lower"
    unit = f" {m.unit}" if m.unit not in ("", "%") else m.unit
    return str(pick["name"]), (
        f"{pick['name']} and {leader['name']} are tied on {label}; {pick['name']} has the {better} {m.label} "
        f"({fmt(pick[reason], m)} against {fmt(leader[reason], m)}{unit})"
    )


def _rows_by_level(column: pd.Series) -> dict[str, np.ndarray]:
    """The positions of the rows of each value of `column` (named as text), in
    order of first appearance: one pass, where a boolean mask per value made
    most of the analysis' time."""
    codes, levels = pd.factorize(column, sort=False)
    return {str(level): np.flatnonzero(codes == i) for i, level in enumerate(levels)}


def analyze_condition(
    runs: pd.DataFrame, factor: str, objective: Objective, rel_margin: float, key: str, levels: dict
) -> ConditionResult:
    metric = METRICS[objective.metric]
    groups = _rows_by_level(runs[factor])

    def values(col: str, dtype=float) -> dict[str, np.ndarray]:
        """Column `col` of each candidate's runs, in the runs' order."""
        column = runs[col].to_numpy(dtype)
        return {k: column[rows] for k, rows in groups.items()}

    notes = []
    eligible = list(groups)
    if objective.min_goodput_share > 0:
        good = {k: float(pd.Series(v).mean()) for k, v in values("goodput_bps").items()}
        top = max((v for v in good.values() if np.isfinite(v)), default=math.nan)
        eligible = [k for k in groups if np.isfinite(good[k]) and good[k] >= objective.min_goodput_share * top]
        if len(eligible) < len(groups):
            notes.append(
                f"not eligible (mean goodput below {objective.min_goodput_share:.0%} of the best): "
                + ", ".join(k for k in groups if k not in eligible)
            )
    seeds = values("seed", None) if "seed" in runs.columns else None
    objective_values = values(objective.metric)
    table = compare_candidates({k: objective_values[k] for k in eligible}, metric, rel_margin, seeds)
    margin = table.attrs.get("margin", math.nan)
    rest = [k for k in groups if k not in eligible]
    if rest:
        extra = pd.DataFrame(
            [
                {
                    "name": k,
                    "n": len(groups[k]),
                    "mean": float(pd.Series(objective_values[k]).mean()),
                    "verdict": "not eligible",
                }
                for k in rest
            ]
        )
        table = pd.concat([table, extra], ignore_index=True)
    columns = {}
    for col in METRICS:
        if col in runs.columns:
            upper = UPPER_BOUNDS.get(col, math.inf)
            per_candidate = values(col)
            stats = [mean_ci(per_candidate[k], upper=upper) for k in table["name"]]
            columns[col] = [s[1] for s in stats]
            columns[f"{col}_low"] = [s[2] for s in stats]
            columns[f"{col}_high"] = [s[3] for s in stats]
    table = pd.concat([table, pd.DataFrame(columns, index=table.index, dtype=float)], axis=1)
    table["pareto"] = pareto_front(table["goodput_bps"].to_numpy(), table["rtt_p95_ms"].to_numpy())
    no_pick = no_pick_reason(runs, objective)
    if no_pick:  # no verdicts either: nothing to compare
        table["verdict"], table["rank"], table["reps_needed"] = "no data", math.nan, None
    pick, pick_reason = (None, None) if no_pick else _pick(table, objective, rel_margin)
    tied = [n for n, v in zip(table["name"], table["verdict"]) if v in ("best", "tied") and n != pick]
    undecided = [n for n, v in zip(table["name"], table["verdict"]) if v == "undecided"]
    needs = [table.loc[table["name"] == n, "reps_needed"].iloc[0] for n in undecided]
    reps = int(table["n"].min()) if len(table) else 0
    on_front = bool(table.loc[table["name"] == pick, "pareto"].iloc[0]) if pick else False
    table.attrs["margin"] = margin
    return ConditionResult(
        key=key,
        title=_condition_title(levels),
        levels=levels,
        table=table,
        pick=pick,
        tied=tied,
        undecided=undecided,
        reps=reps,
        reps_needed=None if not needs or any(x is None or not np.isfinite(x) for x in needs) else int(max(needs)),
        on_front=on_front,
        notes=notes,
        no_pick=no_pick,
        pick_reason=pick_reason,
    )


def analyze(
    runs: pd.DataFrame,
    factors: list[str],
    level_order: dict[str, dict],
    factor: str | None = None,
    objective: str = DEFAULT_OBJECTIVE,
    margin: float = DEFAULT_MARGIN,
) -> tuple[str, list[ConditionResult]]:
    """(compared factor, one ConditionResult per condition in the file's level order)."""
    factor = factor or compared_factor(factors)
    obj = OBJECTIVES[objective]
    runs = with_power(runs)
    others = [f for f in factors if f != factor]
    if not others:
        return factor, [analyze_condition(runs, factor, obj, margin, "all", {})]
    out = []
    keys = runs[others[0]].astype(str)
    for f in others[1:]:
        keys = keys + " | " + runs[f].astype(str)
    firsts = runs.assign(_key=keys).drop_duplicates("_key")
    order = sorted(
        range(len(firsts)),
        key=lambda i: tuple(level_order[f].get(firsts[f].iloc[i], 0) for f in others),
    )
    for n, i in enumerate(order):
        levels = {f: firsts[f].iloc[i] for f in others}
        sub = runs[keys == firsts["_key"].iloc[i]]
        out.append(analyze_condition(sub, factor, obj, margin, f"c{n}", levels))
    return factor, out


def fmt(value: float, metric: Metric) -> str:
    return "–" if not np.isfinite(value) else number_text(value * metric.scale, f".{metric.decimals}f")


def number_text(value: float, spec: str) -> str:
    """`value` formatted by `spec`, where what rounds to zero from below
    (-0.0, or a mean less its minimum: -1e-15) prints as 0."""
    text = format(value, spec)
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def shown(metric: Metric, values) -> Metric:
    """`metric` with the decimals that show the largest of `values` to three
    significant digits, if its own show fewer: goodputs of a UMTS path (0.121,
    0.118 Mbit/s) all read 0.12 at the two decimals that suit Mbit/s paths."""
    v = np.abs(np.asarray(values, dtype=float) * metric.scale)
    v = v[np.isfinite(v) & (v > 0)]
    if not v.size:
        return metric
    return replace(metric, decimals=max(metric.decimals, 2 - math.floor(math.log10(v.max()))))


def confidence_text(c: ConditionResult, margin: float) -> str:
    """One sentence: how sure the pick is, or why there is none."""
    if c.pick is None:
        return f"No pick: {c.no_pick or 'no candidate has data'}."
    if c.decided:
        return (
            f"Decided with {c.reps} repetitions: every other candidate is either within {margin:.0%} "
            "of the best (tied) or worse by more than that, at 95% confidence."
        )
    if c.reps < 2:
        more = "at least 2 repetitions per candidate are needed to estimate the spread of the results"
    elif c.reps_needed:
        more = f"about {c.reps_needed} repetitions per candidate would likely decide"
    else:
        more = f"deciding would take more than {MAX_REPS_ESTIMATE} repetitions (a difference close to the margin)"
    return (
        f"Not decided with {c.reps} repetitions: {', '.join(c.undecided)} cannot yet be told apart from the best "
        f"by more or less than {margin:.0%}; {more}."
    )
