"""Limits on what one campaign may plan, checked before its runs are built and
before anything is written (as ccbench.limits does for one scenario).

A campaign file is input from anywhere too: `repetitions = 1000000000`, ten
factors of ten levels (10^10 combinations) or a factor of 100,000 levels
would plan for minutes, grow the planner past gigabytes and then write an
index of millions of rows. The design's size is known from the factors'
level counts and the repetitions alone, so it is checked by arithmetic, in
microseconds, before a single run is built:

- `runs`: every combination of levels (exclusions not subtracted: they are
  applied while the plan is built) times the repetitions, at most MAX_RUNS;
- `index_bytes`: the run index's rows (INDEX_ROW_BYTES each plus the JSON of
  the run's levels), at most MAX_INDEX_BYTES.

Once the runs are built (each checked by the simulator's own checks, within
the scenario limits), their work is summed:

- `work_packets`: ccbench.campaigns.estimate.run_cost of every run (the
  packets its data link can carry plus a fixed part per run), at most
  MAX_WORK_PACKETS;
- `core_seconds`: that work at SECONDS_PER_PACKET, the time on one core.

`allow_large` (`allow_large = true` in the file, or `ccbench campaign
--allow-large`) lifts all of them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

#: Runs of one campaign. The planner keeps every run's normalized scenario in memory (2.8 KB a run
#: of one flow on one link, measured with tracemalloc over 2,000 planned runs; more with more flows
#: and links) and the index keeps a row per run: 50,000 runs are 140 MB of plan or more, and days of
#: running at the scenario limits. The shipped studies plan at most 1,960 runs.
MAX_RUNS = 50_000
#: The run index: SQLite rows of about INDEX_ROW_BYTES plus the run's levels as JSON.
MAX_INDEX_BYTES = 1 << 30
#: Bytes of an index row besides its levels: key, hashes, times, worker, status (measured: 246 bytes
#: a finished run with 45 bytes of levels, over 2,000 runs: so about 200, and 250 with margin).
INDEX_ROW_BYTES = 250
#: Work of all runs, in packets (estimate.run_cost): about 12 core-hours at SECONDS_PER_PACKET.
MAX_WORK_PACKETS = 1e11
#: Seconds of one core per packet of work: 0.45 us, estimate.py's fit to `ccbench study hsdpa`.
SECONDS_PER_PACKET = 0.45e-6

HINT = "; add --allow-large (or allow_large = true in the campaign file) if you mean it"


@dataclass(frozen=True)
class DesignSize:
    """The size of a design, known before its runs are built."""

    runs: int
    index_bytes: int

    def text(self) -> str:
        return f"{self.runs:,} runs, an index of {_bytes_text(self.index_bytes)}"


def _bytes_text(n: float) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} bytes"


def _json_length(value) -> int:
    """Characters of a level in JSON (a number's repr is its JSON but for a bool)."""
    if isinstance(value, str):
        return len(json.dumps(value))
    return 5 if isinstance(value, bool) else len(repr(value))


def design_size(levels: Sequence[Sequence], names: Sequence[str], repetitions: int) -> DesignSize:
    """The runs and index bytes of every combination of `levels` (one list per factor,
    named `names`) times `repetitions`: exact integers, whatever their size."""
    counts = [len(lv) for lv in levels]
    combinations = math.prod(counts)
    runs = combinations * repetitions
    # Each combination's levels JSON: {"name": level, ...}; a factor's level appears in
    # combinations / len(levels) combinations.
    level_bytes = 0
    for name, lv, n in zip(names, levels, counts):
        each = sum(map(_json_length, lv)) + n * (len(json.dumps(name)) + 2)
        level_bytes += each * (combinations // n)
    return DesignSize(runs, runs * INDEX_ROW_BYTES + level_bytes * repetitions)


def design_refusal(size: DesignSize) -> str | None:
    """Why a design of `size` is refused (the numbers and the limits), or None."""
    if size.runs > MAX_RUNS or size.index_bytes > MAX_INDEX_BYTES:
        return (
            f"the design plans {size.text()}, above the limits of {MAX_RUNS:,} runs and an index of "
            f"{_bytes_text(MAX_INDEX_BYTES)} (fewer levels, factors or repetitions){HINT}"
        )
    return None


def work(costs: Sequence[float]) -> tuple[float, float]:
    """(packets, seconds on one core) of runs of these costs (estimate.run_cost)."""
    packets = float(sum(costs))
    return packets, packets * SECONDS_PER_PACKET


def work_refusal(runs: int, packets: float) -> str | None:
    """Why planned runs of `packets` work in all are refused, or None."""
    if packets > MAX_WORK_PACKETS:
        from ccbench.campaigns.estimate import duration_text

        seconds = packets * SECONDS_PER_PACKET
        return (
            f"the {runs:,} runs are estimated at {packets:.3g} packets, about {duration_text(seconds)} on one core, "
            f"above the limit of {MAX_WORK_PACKETS:.3g} packets (shorter runs, lower rates or fewer runs){HINT}"
        )
    return None
