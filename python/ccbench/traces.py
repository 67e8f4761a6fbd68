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
before handing the scenario over. Reading the file is done here; parsing and
checking its text, and the mean rate, are the core's
(crates/ccsim/src/net/channel/trace.rs), so Python and the simulator agree on
what a usable trace is.
"""

from __future__ import annotations

import functools
import json
import os
import stat
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ccbench import _ccsim
from ccbench.limits import LARGE_FACTOR, MAX_TRACE_BYTES, SHOWN_PATH_CHARS, shown

#: Bytes one opportunity carries in Mahimahi (its largest TUN payload).
MAHIMAHI_BYTES_PER_OPPORTUNITY: int = _ccsim.MAHIMAHI_BYTES_PER_OPPORTUNITY

__all__ = [
    "TraceError",
    "Opportunities",
    "load_mahimahi",
    "trace_value",
    "with_each_trace",
    "mean_rate_bps",
    "MAHIMAHI_BYTES_PER_OPPORTUNITY",
]


class TraceError(ValueError):
    """A trace file that cannot be used; the message names the file and line."""


class Opportunities(list):
    """A trace's opportunities (milliseconds) as a scenario carries them: a
    list to every reader (JSON, a schema validator, ==), but shared and never
    changed, so every copy of a scenario holds the same one (a campaign plans,
    checks and keeps a scenario per run, and a real trace has hundreds of
    thousands of lines: copied number by number, they took most of a trace
    campaign's time and memory). Changing it in place is a TypeError."""

    def __deepcopy__(self, memo: dict) -> Opportunities:
        return self

    def __copy__(self) -> Opportunities:
        return self

    def __reduce__(self):
        return (Opportunities, (list(self),))  # without the cached `json` and `core`

    @functools.cached_property
    def json(self) -> str:
        """The list as json.dumps writes it, encoded once (a scenario's text
        is what it always was)."""
        return json.dumps(self)

    @functools.cached_property
    def core(self) -> _ccsim.SharedTrace:
        """The list read into the core once (per process), handed to each run
        over it instead of written into the run's text (scenario.text_for_core)."""
        return _ccsim.SharedTrace(self)

    def _shared(self, *args, **kwargs):
        raise TypeError("a trace's opportunities are shared by the scenarios that hold them; change a copy: list(...)")

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _shared
    append = extend = insert = pop = remove = clear = sort = reverse = _shared


def with_each_trace(scenario: Mapping[str, Any], change: Callable[[dict], dict]) -> dict:
    """A shallow copy of `scenario` in which each link's trace that holds
    opportunities is change(trace) (the links changed are copied, everything
    else is shared)."""

    def changed(link):
        trace = link.get("trace") if isinstance(link, dict) else None
        return {**link, "trace": change(trace)} if isinstance(trace, dict) and "opportunities_ms" in trace else link

    out = dict(scenario)
    for key in ("downlink", "uplink"):
        if isinstance(out.get(key), dict):
            out[key] = changed(out[key])
    if isinstance(out.get("links"), list):
        out["links"] = [changed(link) for link in out["links"]]
    return out


def _core_error(e: _ccsim.TraceError, source: str) -> TraceError:
    where = source if e.entry is None else f"{source}:{e.entry + 1}"
    return TraceError(f"{where}: {e.detail}")


def load_mahimahi(path: str | os.PathLike[str], allow_large: bool = False) -> list[int]:
    """Reads a Mahimahi trace file into its list of millisecond timestamps.

    Checks what Mahimahi's link queue checks: every line is a non-negative
    integer (surrounding spaces and a final newline are fine; blank lines are
    not), timestamps never decrease, there is at least one, and the last is
    above 0 (it is the period). Only a regular file of at most
    MAX_TRACE_BYTES (LARGE_FACTOR times more with `allow_large`) is read.
    Errors name the file and the line, never the file's content.
    """
    name = shown(str(path), SHOWN_PATH_CHARS)
    return list(_parsed(_read_text(path, name, allow_large), name))


def trace_value(path: str | os.PathLike[str], allow_large: bool = False) -> dict:
    """A scenario link's `trace` as the core takes it, from a Mahimahi file:
    ``{opportunities_ms, source}`` (source: the file's name, for reports).
    A text parsed before is not parsed again (a campaign names the file in
    every run), and every scenario given it shares its Opportunities."""
    name = shown(str(path), SHOWN_PATH_CHARS)
    return {"opportunities_ms": _parsed(_read_text(path, name, allow_large), name), "source": os.path.basename(path)}


def _read_text(path: str | os.PathLike[str], name: str, allow_large: bool) -> str:
    """The text of a trace file, which must be a regular ASCII file within the size limit."""
    max_bytes = MAX_TRACE_BYTES * (LARGE_FACTOR if allow_large else 1)
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; only a regular
        # file is read (not a FIFO, a device such as /dev/zero, a directory).
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise TraceError(f"{name}: no such trace file") from None
    except OSError as e:
        raise TraceError(f"{name}: cannot read the trace: {e.strerror}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise TraceError(f"{name}: not a regular file (a trace is a text file)")
    with os.fdopen(fd, "rb") as f:
        if info.st_size > max_bytes:
            raise TraceError(
                f"{name}: {info.st_size} bytes is more than the limit of {max_bytes} bytes for a trace"
                + ("" if allow_large else " (--allow-large raises it)")
            )
        try:
            data = f.read(max_bytes + 1)
        except OSError as e:
            raise TraceError(f"{name}: cannot read the trace: {e.strerror}") from None
    if len(data) > max_bytes:
        raise TraceError(f"{name}: more than the limit of {max_bytes} bytes for a trace")
    try:
        return data.decode("ascii")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise TraceError(f"{name}:{line}: not a text trace (byte {e.start} is not ASCII)") from None


@functools.lru_cache(maxsize=8)
def _parsed(text: str, name: str) -> Opportunities:
    """The opportunities of a trace's text (parsed by the core), remembered by
    the text itself: an edited file is parsed again, however soon."""
    try:
        return Opportunities(_ccsim.parse_mahimahi_trace(text))
    except _ccsim.TraceError as e:
        raise _core_error(e, name) from None


def mean_rate_bps(
    opportunities_ms: Sequence[int], bytes_per_opportunity: int = MAHIMAHI_BYTES_PER_OPPORTUNITY
) -> float:
    """Mean capacity of a trace over one period, in bit/s."""
    return _trace_call(_ccsim.trace_mean_rate_bps, list(opportunities_ms), bytes_per_opportunity)


def window_rate_bps(
    opportunities_ms: Sequence[int],
    from_s: float,
    to_s: float,
    bytes_per_opportunity: int = MAHIMAHI_BYTES_PER_OPPORTUNITY,
) -> float:
    """Mean capacity of a trace over (from_s, to_s] of a run, in bit/s: the
    opportunities it offers then (a run shorter than the trace's period plays
    only part of it); the period's mean for an empty interval."""
    return _trace_call(_ccsim.trace_window_rate_bps, list(opportunities_ms), from_s, to_s, bytes_per_opportunity)


def _trace_call(function, opportunities_ms: list[int], *args):
    """A core trace function's value, its errors as TraceError (the last
    argument is bytes_per_opportunity)."""
    try:
        return function(opportunities_ms, *args)
    except _ccsim.TraceError as e:
        raise _core_error(e, "trace") from None
    except OverflowError:
        raise TraceError(f"trace: bytes_per_opportunity {args[-1]} is out of range") from None
