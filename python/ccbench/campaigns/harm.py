"""What each candidate of `ccbench recommend` does for its own flows and to
the others on the path, from the tidy flows table of its campaign.

The flows of a run are two groups: group 0, the user's flows (the
candidate), and group 1, the others (the incumbent, e.g. cubic). The
settings of the campaign (recommend.settings) are: the candidate alone, the
candidate with the incumbent, the candidate with its own kind (group 0 twice
as many flows) and the incumbent alone (run once, as the baseline).

Harm follows Ware, Mukerjee, Seshan, Sherry, "Beyond Jain's Fairness Index:
Setting the Bar for the Deployment of Congestion Control Algorithms", HotNets
2019, section 3: for a metric where more is better (throughput), harm =
(x - y) / x; where less is better (delay), harm = (y - x) / y; x is the
others' performance alone on the path, y with the candidate beside them. 0 is
no harm, 1 all of it; a negative harm is a gain. The bar to meet is the harm
the incumbent does to itself in the same setting (cubic to cubic), which the
same campaign measures.

The confidence interval of a harm is the t interval over the repetitions of
y (each repetition's harm against the mean of x): the spread of x is not in
it (its runs share no seed with y's), which makes it narrower than the truth
by that spread; the report says so.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ccbench.campaigns.analysis import mean_ci

#: The settings a candidate runs in (levels of recommend's `setting` factor; sized workloads add " (SIZE)").
ALONE, SELF = "alone", "vs itself"


class RecommendError(ValueError):
    """A bad option of `ccbench recommend`: `option` names it."""

    def __init__(self, option: str, detail: str):
        self.option, self.detail = option, detail
        super().__init__(f"{option}: {detail}")


#: The user's flows and the others' in a run (the order of recommend's flow groups).
USER, OTHERS = 0, 1


def per_run(flows: pd.DataFrame, factor: str) -> pd.DataFrame:
    """One row per run and group: setting, candidate, rep, group, flows,
    goodput_bps (mean per flow), rtt_p95_ms and retrans_pct (means over the
    flows), completion_ms (mean completion time of a sized transfer; one that
    did not finish counts its time so far, a lower bound, and `unfinished`
    counts them), jain (Jain's index of the group's goodputs; NaN for one flow)."""
    f = flows.assign(
        _fct=np.where(np.isfinite(flows["completion_s"]), flows["completion_s"], flows["end_s"] - flows["start_s"])
        * 1e3,
        _unfinished=(flows["size_bytes"].notna() & ~np.isfinite(flows["completion_s"])).astype(int),
        _x=flows["goodput_bps"],
        _xx=flows["goodput_bps"] ** 2,
    )
    g = f.groupby(["run", "group"], sort=False)
    out = g.agg(
        setting=("setting", "first"),
        cc=(factor, "first"),
        rep=("rep", "first"),
        flows=("goodput_bps", "size"),
        goodput_bps=("goodput_bps", "mean"),
        rtt_p95_ms=("rtt_p95_ms", "mean"),
        retrans_pct=("retrans_pct", "mean"),
        completion_ms=("_fct", "mean"),
        unfinished=("_unfinished", "sum"),
        sized=("size_bytes", lambda s: bool(s.notna().any())),
        _x=("_x", "sum"),
        _xx=("_xx", "sum"),
    ).reset_index()
    with np.errstate(divide="ignore", invalid="ignore"):
        jain = out["_x"] ** 2 / (out["flows"] * out["_xx"])
    out["jain"] = jain.where((out["flows"] > 1) & (out["_xx"] > 0))
    out.loc[~out["sized"], "completion_ms"] = math.nan
    return out.drop(columns=["_x", "_xx", "sized"])


def harm_values(solo, with_candidate, higher_is_better: bool) -> np.ndarray:
    """Ware et al.'s harm of each value of `with_candidate` against the mean of `solo`."""
    x = float(np.nanmean(solo)) if np.isfinite(np.asarray(solo, float)).any() else math.nan
    y = np.asarray(with_candidate, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = (x - y) / x if higher_is_better else (y - x) / y
    return np.where(np.isfinite(h), h, math.nan)


def interval(values, nonnegative: bool = False, upper: float = math.inf) -> dict:
    """{mean, low, high, n} of the 95% t interval of `values` (NaN where undefined)."""
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    if not v.size:
        return {"mean": math.nan, "low": math.nan, "high": math.nan, "n": 0}
    n, mean, low, high = mean_ci(v, nonnegative=nonnegative, upper=upper)
    return {"mean": float(mean), "low": float(low), "high": float(high), "n": int(n)}


def harms(runs: pd.DataFrame, together: str, baseline: str) -> dict[str, dict]:
    """Per candidate, the harm it does to the others (group 1) in setting
    `together` against the others alone in setting `baseline`: throughput
    (goodput) and delay (p95 RTT) intervals. Several settings (one per
    transfer size) are averaged per repetition first."""
    solo = runs[runs["setting"].isin(_matching(runs, baseline))]  # the others alone: their only group
    others = runs[runs["group"] == OTHERS]
    out = {}
    for cc, sub in others[others["setting"].isin(_matching(others, together))].groupby("cc", sort=False):
        per_rep = sub.groupby("rep")[["goodput_bps", "rtt_p95_ms"]].mean()
        out[str(cc)] = {
            "throughput": interval(harm_values(solo["goodput_bps"], per_rep["goodput_bps"], True)),
            "delay": interval(harm_values(solo["rtt_p95_ms"], per_rep["rtt_p95_ms"], False)),
            "others_goodput_bps": interval(per_rep["goodput_bps"], nonnegative=True),
        }
    return out


def _matching(runs: pd.DataFrame, prefix: str) -> list[str]:
    """The settings named `prefix` or `prefix (SIZE)`."""
    names = pd.unique(runs["setting"])
    return [s for s in names if s == prefix or str(s).startswith(prefix + " (")]


def user_samples(runs: pd.DataFrame, setting: str) -> pd.DataFrame:
    """The user's flows (group 0) in `setting` (every size of it), one row per
    candidate and repetition: the metrics averaged over the sizes. `seed` is
    the repetition: every candidate's runs of a repetition share their seeds
    (common random numbers), so candidates are paired by it."""
    user = runs[(runs["group"] == USER) & runs["setting"].isin(_matching(runs, setting))]
    cols = ["goodput_bps", "rtt_p95_ms", "retrans_pct", "completion_ms", "jain", "unfinished"]
    out = user.groupby(["cc", "rep"], sort=False)[cols].mean().reset_index()
    return out.assign(seed=out["rep"])
