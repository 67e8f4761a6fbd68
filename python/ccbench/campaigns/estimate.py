"""The expected running time of a campaign, measured from its first runs
(`ccbench study NAME --full` prints it up front).

A run's cost is taken as proportional to the packets it can carry: its
duration times the rate of its fastest link (in 1500-byte packets), plus a
fixed part per run. After the first runs finish (at least two per worker),
the wall time they took per unit of cost gives the time of the rest, assuming
runs finish roughly in the plan's order (they are handed out in that order).
"""

from __future__ import annotations

import time

#: Fixed cost of a run, in packets: setting up, writing its files.
RUN_OVERHEAD_PACKETS = 2000.0
#: Rate assumed for a link whose rate is not a number (a trace): 10 Mbit/s.
UNKNOWN_RATE_BPS = 10e6


def _rates(scenario: dict) -> list[float]:
    links = [scenario.get("downlink"), scenario.get("uplink"), *(scenario.get("links") or [])]
    out = []
    for link in links:
        if isinstance(link, dict):
            rate = link.get("rate")
            out.append(
                float(rate) if isinstance(rate, (int, float)) and not isinstance(rate, bool) else UNKNOWN_RATE_BPS
            )
    return out or [UNKNOWN_RATE_BPS]


def run_cost(scenario: dict) -> float:
    """The cost of one run (a normalized scenario) in packets."""
    duration = float(scenario.get("duration", 0.0))
    return duration * max(_rates(scenario)) / (8 * 1500) + RUN_OVERHEAD_PACKETS


def duration_text(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class Estimate:
    """Feed it the number of runs finished in this session; it returns the
    line to print once, when enough runs have finished to measure."""

    def __init__(self, campaign, jobs: int):
        self.costs = [run_cost(r.scenario) for r in campaign.runs]
        self.total = sum(self.costs)
        self.needed = max(2 * jobs, 3)
        self.started = time.perf_counter()
        self.first_done: int | None = None
        self.printed = False

    def update(self, executed: int, done: int | None = None) -> str | None:
        """`executed`: runs finished in this session; `done`: finished in all (default: `executed`)."""
        done = executed if done is None else done
        if self.printed or executed < min(self.needed, len(self.costs)) or executed == 0:
            return None
        self.printed = True
        elapsed = time.perf_counter() - self.started
        cost_done = sum(self.costs[:done])
        cost_now = sum(self.costs[done - executed : done])
        per_cost = elapsed / cost_now if cost_now > 0 else 0.0
        remaining = (self.total - cost_done) * per_cost
        return (
            f"expected running time: about {duration_text(elapsed + remaining)} in all, {duration_text(remaining)} "
            f"to go (measured from the first {executed} runs: {elapsed:.1f} s)"
        )
