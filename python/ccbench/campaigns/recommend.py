"""`ccbench recommend`: the campaign that answers "which congestion control
on my network?" (every algorithm on one network profile, the user's
direction, number of flows and workload), run with more repetitions until
the leaders are separated or shown tied (or a cap is reached).

Repetitions are added, not restarted: run seeds do not depend on the
number of repetitions, so raising it only runs the new ones.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from ccbench.campaigns import analysis, runner, spec
from ccbench.campaigns.storage import RUN_TABLES_READ

WORKLOAD = re.compile(r"^(bulk|file:(.+))$")
FIRST_REPS = 3
MAX_REPS = 12


class RecommendError(ValueError):
    """A bad option: `option` names it."""

    def __init__(self, option: str, detail: str):
        self.option, self.detail = option, detail
        super().__init__(f"{option}: {detail}")


def campaign_dict(
    profile: str,
    direction: str = "down",
    flows: int = 1,
    workload: str = "bulk",
    reps: int = FIRST_REPS,
    duration: str = "20s",
    seed: int = 1,
    algorithms: list[str] | None = None,
    allow_large: bool = False,
) -> dict:
    """The campaign: every algorithm on `profile`, `flows` flows of the
    same algorithm in `direction`, bulk transfers or files of SIZE;
    `allow_large` lifts the limits (ccbench.limits), as --allow-large."""
    from ccbench.compare import algorithm_names

    if direction not in ("down", "up"):
        raise RecommendError("--direction", f"'{direction}' is not allowed; down or up")
    if flows < 1:
        raise RecommendError("--flows", f"{flows} is not allowed; at least 1")
    m = WORKLOAD.match(workload)
    if not m:
        raise RecommendError("--workload", f"'{workload}' is not allowed; bulk or file:SIZE (e.g. file:2MB)")
    flow = {"cc": "reno", "count": flows, "direction": direction}
    if m.group(2):
        flow["size"] = m.group(2)
    large = {"allow_large": True} if allow_large else {}  # absent otherwise: earlier directories resume
    return {
        **large,
        "name": f"recommend: {profile}, {direction}link, {flows} flow(s), {workload}",
        "repetitions": reps,
        "seed": seed,
        "common_seeds": ["flows[0].cc"],
        "keep_tables": "first",
        "kept_tables": list(RUN_TABLES_READ),
        "scenario": {"profile": profile, "duration": duration, "flows": [flow]},
        "factors": {"flows[0].cc": list(algorithms or algorithm_names())},
        "random": {"flows[*].access_delay": {"min": 0, "max": 2, "step": 0.1, "unit": "ms"}},
        "analysis": {"compare": "flows[0].cc", "objective": "throughput", "margin": analysis.DEFAULT_MARGIN},
    }


def parse(raw: dict) -> spec.Campaign:
    """The campaign checked; a scenario error is reported against the option that caused it."""
    try:
        return spec.parse(raw)
    except spec.CampaignFileError as e:
        for option, field in (("--profile", "profile"), ("--workload", "size"), ("--duration", "duration")):
            if field in e.path or field in e.detail.split(":")[0]:
                # The option's error, not the algorithm's the scenario was built with (the first).
                raise RecommendError(option, e.scenario_detail or e.detail) from None
        raise


def run_until_decided(
    raw: dict,
    out: Path,
    jobs: int | None = None,
    executor: str = "local",
    address: str | None = None,
    max_reps: int = MAX_REPS,
    on_round: Callable[[int], Callable] = lambda reps: lambda p: None,
) -> tuple[analysis.ConditionResult, int]:
    """Runs the campaign, adding repetitions while more would decide (at
    most `max_reps`); returns the analysis and the repetitions reached. The
    report is (re)built at the end."""
    parsed = parse(raw)  # errors named by option
    _, source, text, folder = spec.read(raw)
    _, conditions, reps = runner.run_until_decided(
        raw,
        source,
        text,
        folder,
        out,
        jobs,
        executor,
        address,
        force=True,
        max_reps=max_reps,
        on_round=on_round,
        preload=runner.REPORT_MODULES,
        parsed=parsed,
    )
    from ccbench.campaigns.report import build  # imported (preload) while the first round ran

    build(out, jobs=jobs)
    return conditions[0], reps
