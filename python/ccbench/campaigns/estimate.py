"""The expected running time of a campaign's runs, measured from its first
ones (`ccbench study NAME --full` prints it up front); in kernel mode known
before any run (KernelEstimate).

A run's cost is taken as proportional to the packets it can carry (its
duration times the rate of the link its data crosses, in 1500-byte packets;
at most what its transfers send), plus a fixed part per run. The campaign's
speed is the sum of its workers': a worker runs one run after another, so the
cost of the runs it finished after its first, over the time from its first
run's end to its last one's (by its own clock), is its speed, the gaps while
it waited for work included. Its first run is left out, and so is the time
before it (starting the workers, their start-up): counted as the runs', as
the estimate first did, they made it 10-16 times the real length of a
campaign of a few thousand short runs. Nor is the speed measured over the
driver's window between two reports: runs come back in batches, so a batch
is partly run before such a window opens and the next one partly inside it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from ccbench import limits

#: How long each worker is timed, at least, before the speed is taken (seconds).
MIN_WINDOW_S = 2.0
#: Fixed cost of a run, in packets: setting up, sampling, writing its files. Fitted to
#: `ccbench study hsdpa` (100 s runs): about 2 ms a run plus 0.45 us a packet.
RUN_OVERHEAD_PACKETS = 4000.0
#: How much more a packet costs on a path whose jitter reorders packets: the receiver then
#: ACKs every segment, each ACK with SACK work. Fitted to `ccbench study wan`: its 2000 s runs took
#: 8.4-10.4 s with jitter, 2.0-3.3 s without.
REORDERING_FACTOR = 3.5
#: Rate assumed for a link whose rate is not known before it runs (a trace of no opportunities): 10 Mbit/s.
UNKNOWN_RATE_BPS = 10e6


def _data_links(scenario: dict) -> list[dict]:
    """The links data crosses: of the dumbbell, the downlink if a flow,
    source or the background goes "down" and the uplink (the downlink's copy
    when it has none) if one goes "up"; every named link."""
    if scenario.get("links"):
        links = list(scenario["links"])
    else:
        background = [scenario["background"]] if scenario.get("background") else []
        senders = [*(scenario.get("flows") or []), *(scenario.get("udp") or []), *background]
        directions = {x.get("direction", "down") for x in senders} or {"down"}
        down = scenario.get("downlink")
        links = [link for d, link in (("down", down), ("up", scenario.get("uplink") or down)) if d in directions]
    return [link for link in links if isinstance(link, dict)]


def run_cost(scenario: dict) -> float:
    """The cost of one run (a normalized scenario) in packets: what the
    fastest link its data crosses carries in its duration (limits.link_rate_bps),
    at most what its flows send when each is a transfer of a given size (and
    nothing else sends), REORDERING_FACTOR times that if a link's jitter
    reorders, plus a fixed part."""
    duration = float(scenario.get("duration", 0.0))
    links = _data_links(scenario)
    rate = max((limits.link_rate_bps(link) for link in links), default=0.0) or UNKNOWN_RATE_BPS
    packets = duration * rate / 8 / limits.PACKET_BYTES
    flows = scenario.get("flows") or []
    if flows and all(f.get("size") for f in flows) and not scenario.get("udp") and not scenario.get("background"):
        sent = sum(int(f.get("count", 1)) * float(f["size"]) for f in flows)
        packets = min(packets, sent / limits.PACKET_BYTES)
    if any((link.get("jitter") or {}).get("reorder") for link in links):
        packets *= REORDERING_FACTOR
    return packets + RUN_OVERHEAD_PACKETS


def duration_text(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


@dataclass
class _Worker:
    """What one worker's finished runs say of its speed: its first run's end
    (and cost), its last run's end, and the runs after its first."""

    first_end: float
    first_cost: float
    last_end: float
    timed_cost: float = 0.0
    timed_runs: int = 0

    def add(self, end: float, cost: float) -> None:
        if end < self.first_end:  # an earlier run reported late: it is the first, the old first is timed
            end, self.first_end = self.first_end, end
            cost, self.first_cost = self.first_cost, cost
        self.timed_cost, self.timed_runs = self.timed_cost + cost, self.timed_runs + 1
        self.last_end = max(self.last_end, end)


class Estimate:
    """Fed the campaign's progress (runner.Progress) at each batch of
    outcomes, it returns the line to print once every worker has run long
    enough to measure. It reads only the outcomes that are new since the
    last call: a campaign of many thousand runs reports thousands of times."""

    def __init__(self, campaign, jobs: int, clock: Callable[[], float] = time.perf_counter):
        self.costs = {r.key: run_cost(r.scenario) for r in campaign.runs}
        self.workers = max(jobs, 1)
        self.clock = clock
        self.started = clock()
        self.printed = False
        self._progress = None  # the runner.Progress read so far, and what it said
        self._read = 0
        self._copied_read = 0  # of p.copied: runs done without a worker, whose cost is not left
        self._by_worker: dict[str, _Worker] = {}
        self._finished_cost = 0.0
        self._todo_cost = 0.0

    def _read_new(self, p) -> None:
        if p is not self._progress:
            self._progress, self._read, self._by_worker, self._finished_cost = p, 0, {}, 0.0
            self._todo_cost = sum(self.costs[k] for k in p.todo)
            self._copied_read = 0
        for key in p.copied[self._copied_read :]:
            self._todo_cost -= self.costs[key]
        self._copied_read = len(p.copied)
        for key, worker, end in p.finished[self._read :]:
            cost = self.costs[key]
            self._finished_cost += cost
            if worker in self._by_worker:
                self._by_worker[worker].add(end, cost)
            else:
                self._by_worker[worker] = _Worker(first_end=end, first_cost=cost, last_end=end)
        self._read = len(p.finished)

    def speed(self, p) -> tuple[float, int] | None:
        """The cost the workers run per second and how many runs measured it;
        None until every worker has run at least two runs after its first and
        for MIN_WINDOW_S."""
        self._read_new(p)
        if len(self._by_worker) < self.workers:
            return None
        total, runs = 0.0, 0
        for w in self._by_worker.values():
            span = w.last_end - w.first_end
            if w.timed_runs < 2 or span < MIN_WINDOW_S or span <= 0:
                return None
            total, runs = total + w.timed_cost / span, runs + w.timed_runs
        return total, runs

    def remaining_seconds(self, p) -> float | None:
        """Wall seconds the runs this session has still to run need, or None
        while the workers' speed is not measured."""
        return self._remaining(self.speed(p))

    def _remaining(self, measured: tuple[float, int] | None) -> float | None:
        if measured is None or measured[0] <= 0:
            return None
        return max(self._todo_cost - self._finished_cost, 0.0) / measured[0]

    def update(self, p, at_least_s: float = 0.0) -> str | None:
        """The line to print, the first time the speed is measured, if the
        runs then take `at_least_s` or more in all (a short campaign's line
        would only be noise)."""
        measured = None if self.printed else self.speed(p)
        remaining = self._remaining(measured)
        if measured is None or remaining is None:
            return None
        self.printed = True
        elapsed = self.clock() - self.started
        if elapsed + remaining < at_least_s:
            return None
        return (
            f"expected running time: about {duration_text(elapsed + remaining)} in all, "
            f"{duration_text(remaining)} to go (measured from {measured[1]} runs on {self.workers} "
            f"worker{'s' if self.workers > 1 else ''})"
        )


#: Setting up and removing one kernel-mode run (namespaces, the emulator, the
#: agents), beyond its duration: 4 runs of 3 s took 3.64-3.76 s each in a
#: `ccbench campaign --mode emulate` on the 2-core development machine.
KERNEL_RUN_OVERHEAD_S = 0.7


class KernelEstimate:
    """The kernel executor's estimate: a run takes its duration in real time
    (plus KERNEL_RUN_OVERHEAD_S), one run at a time, whatever it carries, so
    the running time is known before the first run ends. The same interface
    as Estimate's."""

    def __init__(self, campaign):
        self.seconds = {r.key: float(r.scenario["duration"]) + KERNEL_RUN_OVERHEAD_S for r in campaign.runs}
        self.printed = False
        self._progress = None  # the runner.Progress read so far
        self._read = 0
        self._left = 0.0

    def remaining_seconds(self, p) -> float:
        """Wall seconds the runs this session has still to run need."""
        if p is not self._progress:
            self._progress, self._read = p, 0
            self._left = sum(self.seconds[k] for k in p.todo)
        self._left -= sum(self.seconds[key] for key, _, _ in p.finished[self._read :])
        self._read = len(p.finished)
        return max(self._left, 0.0)

    def update(self, p, at_least_s: float = 0.0) -> str | None:
        """The line to print, once, if the runs take `at_least_s` or more."""
        if self.printed:
            return None
        self.printed = True
        left = self.remaining_seconds(p)
        if left < at_least_s:
            return None
        return (
            f"expected running time: about {duration_text(left)} (kernel mode runs one run at a time, "
            f"each in its duration of real time plus about {KERNEL_RUN_OVERHEAD_S:g} s)"
        )
