"""Link traces in the Mahimahi ``mm-link`` format.

A trace lists delivery opportunities, one per line: an integer timestamp in
milliseconds from the start of the trace, non-decreasing. Each line is one
opportunity for one MTU-sized packet to leave the bottleneck queue (Mahimahi's
link queue counts 1504 bytes per opportunity, and a smaller packet uses only
part of one); a timestamp repeated k times is k opportunities in that
millisecond; the trace repeats with a period equal to its last timestamp. A
file holding just ``1`` is a 12 Mbit/s link (12.032 Mbit/s at 1504 bytes).

The simulator core reads no files: the scenario loader turns
``trace = "path/file"`` into ``trace = {opportunities_ms = load_mahimahi(path)}``
before handing the scenario over.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

#: Bytes one opportunity carries in Mahimahi (its largest TUN payload).
MAHIMAHI_BYTES_PER_OPPORTUNITY = 1504

__all__ = ["TraceError", "load_mahimahi", "mean_rate_bps", "MAHIMAHI_BYTES_PER_OPPORTUNITY"]


class TraceError(ValueError):
    """A trace file that cannot be used; the message names the file and line."""


def load_mahimahi(path: str | os.PathLike[str]) -> list[int]:
    """Reads a Mahimahi trace file into its list of millisecond timestamps.

    Checks what Mahimahi's link queue checks: every line is a non-negative
    integer (surrounding spaces and a final newline are fine; blank lines are
    not), timestamps never decrease, there is at least one, and the last is
    above 0 (it is the period).
    """
    try:
        with open(path, encoding="ascii", errors="strict") as f:
            text = f.read()
    except FileNotFoundError:
        raise TraceError(f"{path}: no such trace file") from None
    except UnicodeDecodeError as e:
        raise TraceError(f"{path}: not a text trace (byte {e.start} is not ASCII)") from None
    except OSError as e:
        raise TraceError(f"{path}: cannot read the trace: {e.strerror}") from None

    lines = text.split("\n")
    if lines and lines[-1].strip() == "":
        lines.pop()  # the newline that ends the last line
    opportunities: list[int] = []
    previous = 0
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            raise TraceError(f"{path}:{number}: empty line; every line must be one millisecond timestamp")
        if not line.isdigit():
            raise TraceError(
                f"{path}:{number}: {raw.strip()!r} is not a timestamp; "
                "expected a non-negative integer number of milliseconds"
            )
        ms = int(line)
        if ms < previous:
            raise TraceError(f"{path}:{number}: {ms} comes after {previous}; timestamps must not decrease")
        opportunities.append(ms)
        previous = ms
    if not opportunities:
        raise TraceError(f"{path}: the trace is empty; it needs at least one millisecond timestamp")
    if opportunities[-1] == 0:
        raise TraceError(f"{path}: the last timestamp is 0; a trace must last at least 1 ms (its period)")
    return opportunities


def mean_rate_bps(
    opportunities_ms: Sequence[int], bytes_per_opportunity: int = MAHIMAHI_BYTES_PER_OPPORTUNITY
) -> float:
    """Mean capacity of a trace over one period, in bit/s."""
    if not opportunities_ms:
        raise TraceError("the trace is empty")
    period_ms = opportunities_ms[-1]
    if period_ms <= 0:
        raise TraceError("the last timestamp is 0; a trace must last at least 1 ms (its period)")
    if bytes_per_opportunity <= 0:
        raise TraceError(f"bytes_per_opportunity must be positive (got {bytes_per_opportunity})")
    return len(opportunities_ms) * bytes_per_opportunity * 8 * 1000.0 / period_ms
