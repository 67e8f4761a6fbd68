"""Limits on what one scenario may ask for, checked before anything runs.

A scenario file is input from anywhere: a typo (`duration = "99999h"`, a
delay of 1e18 s, a million flows) must not start a run that takes years or
exhausts memory. Each limit below is stated with its reason; `--allow-large`
(`allow_large=True` in Python) lifts the run limits for users who mean it and
multiplies the file limits by LARGE_FACTOR (files are still read whole, so
some bound stays). Values that do not fit the core's integers (u64
nanoseconds, bit/s, bytes) are refused by the core itself, with or without
the override.

The work estimate counts the packets the links can carry (rate x duration /
1500 bytes, summed over links and UDP sources) and the memory the recorded
tables need (RTT samples per packet, one series row per flow or link per
record.interval); above MAX_PACKETS or MAX_MEMORY_BYTES the run is refused
with the estimate in the message.
"""

from __future__ import annotations

from ccbench import _ccsim

#: A scenario file: 1 MiB is far beyond any hand-written scenario (20 MB of comments is not one).
MAX_SCENARIO_BYTES = 1 << 20
#: Nesting of tables and arrays in a scenario (the schema needs 4).
MAX_NESTING = 32
#: A trace file: 16 MiB is about 2 million opportunities (an hour of a 50 Mbit/s link).
MAX_TRACE_BYTES = 16 << 20
#: What --allow-large multiplies the file limits by.
LARGE_FACTOR = 16
#: Simulated time: one day.
MAX_DURATION_S = 86_400.0
#: One-way delay of a link or of a flow's access line: one minute.
MAX_DELAY_S = 60.0
#: A link or UDP rate: 100 Gbit/s.
MAX_RATE_BPS = 100e9
#: Flows (every `count`) plus UDP sources.
MAX_FLOWS = 1_000
#: Packets the links and sources may carry in one run (minutes of simulation on one core).
MAX_PACKETS = 50e6
#: Memory of the recorded tables.
MAX_MEMORY_BYTES = 4 << 30
#: Bytes per packet in the estimate (a full-size packet, the core's MTU_BYTES).
PACKET_BYTES = _ccsim.MTU_BYTES
#: Bytes the tables keep per RTT sample and per series row (several 8-byte columns).
RTT_SAMPLE_BYTES = 24
SERIES_ROW_BYTES = 96

ALLOW_LARGE_HINT = "; add --allow-large if you mean it"
#: Echoed values are cut to this many characters (then their length is said).
SHOWN_CHARS = 40


class LimitError(ValueError):
    """A scenario beyond a limit: `path` names the field, `detail` the limit."""

    def __init__(self, path: str, detail: str):
        self.path, self.detail = path, detail
        super().__init__(f"{path}: {detail}" if path else detail)


#: File names are shown longer.
SHOWN_PATH_CHARS = 200


def shown(value: str, max_chars: int = SHOWN_CHARS) -> str:
    """A value as an error message shows it: control characters escaped and at
    most `max_chars` characters, a longer value as its prefix and its length
    (as the core's `units::shown`)."""
    text = str(value)
    escaped = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text[:max_chars])
    return f"{escaped}... ({len(text)} characters)" if len(text) > max_chars else escaped


#: An error message longer than this keeps its start and end around a note of what was cut.
MAX_MESSAGE_CHARS = 500


def one_line(message: str) -> str:
    """An error message fit for a terminal: control characters (newlines, ESC)
    escaped, and at most about MAX_MESSAGE_CHARS characters (a value echoed
    back is cut in the middle, saying how much)."""
    text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in str(message))
    if len(text) <= MAX_MESSAGE_CHARS:
        return text
    head, tail = MAX_MESSAGE_CHARS * 3 // 5, MAX_MESSAGE_CHARS // 4
    return f"{text[:head]}... ({len(text) - head - tail} characters cut) ...{text[-tail:]}"


def links(s: dict) -> list[tuple[str, dict]]:
    """A scenario's links as (field path, table): [[links]], then downlink and uplink."""
    named = [(f"links[{i}]", link) for i, link in enumerate(s.get("links") or [])]
    return named + [(k, s[k]) for k in ("downlink", "uplink") if s.get(k)]


def link_rate_bps(link: dict) -> float:
    """A link's largest rate: its constant rate, a trace's mean, the fastest state of a rate process
    or the highest bearer of a DCH."""
    if link.get("rate"):
        return float(link["rate"])
    trace = link.get("trace")
    if isinstance(trace, dict) and trace.get("opportunities_ms"):
        ops = trace["opportunities_ms"]
        per_opportunity = float(trace.get("bytes_per_opportunity", _ccsim.MAHIMAHI_BYTES_PER_OPPORTUNITY))
        return len(ops) * per_opportunity * 8 * 1000 / max(ops[-1], 1)
    process = link.get("rate_process")
    if isinstance(process, dict):
        return max((float(st["rate"]) for st in process.get("states", [])), default=0.0)
    dch = link.get("dch")
    if isinstance(dch, dict):
        return max((float(b) for b in dch.get("bearers", [])), default=0.0)
    return 0.0


def rtt_samples_kept(setting, samples: float, flows: int) -> float:
    """How many of `samples` RTT samples the `rtt` table keeps under
    `record.rtt_samples` ("all", "none", or at most N per flow; a normalized
    scenario always has it, and without it the estimate counts them all)."""
    if setting in ("all", True, None):
        return samples
    if setting in ("none", False):
        return 0.0
    return min(samples, float(setting) * flows)


def estimate(s: dict) -> dict:
    """The work of a normalized scenario: `packets` the links and UDP sources
    can carry and `memory_bytes` of the recorded tables."""
    duration = float(s["duration"])
    packets = sum(link_rate_bps(link) * duration / 8 / PACKET_BYTES for _, link in links(s))
    for u in s.get("udp") or []:
        active = (float(u["stop"]) if u.get("stop") is not None else duration) - float(u["start"])
        packets += float(u["rate"]) * max(active, 0.0) / 8 / max(float(u["packet_size"]), 1.0)
    record = s.get("record") or {}
    flows = sum(int(f["count"]) for f in s["flows"])
    rows = (flows + len(links(s))) * duration / max(float(record.get("interval", 0.1)), 1e-3)
    # Each series row of the CSV tables carries the scenario's name.
    row_bytes = SERIES_ROW_BYTES + len(str(s.get("name") or ""))
    memory = rows * row_bytes + rtt_samples_kept(record.get("rtt_samples"), packets, flows) * RTT_SAMPLE_BYTES
    return {"packets": packets, "memory_bytes": memory}


def check(s: dict, allow_large: bool = False) -> None:
    """Raises LimitError if the normalized scenario `s` goes beyond a run
    limit (none with `allow_large`)."""
    if allow_large:
        return
    if float(s["duration"]) > MAX_DURATION_S:
        raise LimitError(
            "duration", f"{float(s['duration']):g} s is longer than {MAX_DURATION_S:g} s{ALLOW_LARGE_HINT}"
        )
    for path, link in links(s):
        if float(link.get("delay", 0)) > MAX_DELAY_S:
            raise LimitError(
                f"{path}.delay", f"{float(link['delay']):g} s is longer than {MAX_DELAY_S:g} s{ALLOW_LARGE_HINT}"
            )
        if link_rate_bps(link) > MAX_RATE_BPS:
            raise LimitError(
                f"{path}.rate", f"{link_rate_bps(link):g} bit/s is above {MAX_RATE_BPS:g}{ALLOW_LARGE_HINT}"
            )
    for i, f in enumerate(s["flows"]):
        if float(f.get("access_delay", 0)) > MAX_DELAY_S:
            raise LimitError(
                f"flows[{i}].access_delay",
                f"{float(f['access_delay']):g} s is longer than {MAX_DELAY_S:g} s{ALLOW_LARGE_HINT}",
            )
    for i, u in enumerate(s.get("udp") or []):
        if float(u["rate"]) > MAX_RATE_BPS:
            raise LimitError(
                f"udp[{i}].rate", f"{float(u['rate']):g} bit/s is above {MAX_RATE_BPS:g}{ALLOW_LARGE_HINT}"
            )
    flows = sum(int(f["count"]) for f in s["flows"]) + len(s.get("udp") or [])
    if flows > MAX_FLOWS:
        raise LimitError("flows", f"{flows} flows and UDP sources are more than {MAX_FLOWS}{ALLOW_LARGE_HINT}")
    work = estimate(s)
    if work["packets"] > MAX_PACKETS or work["memory_bytes"] > MAX_MEMORY_BYTES:
        raise LimitError(
            "",
            f"the run is estimated at {work['packets']:.3g} packets and {work['memory_bytes'] / 2**30:.3g} GiB "
            f"of tables, above the limits of {MAX_PACKETS:.3g} packets and {MAX_MEMORY_BYTES / 2**30:g} GiB "
            f"(shorten duration or lower the rates){ALLOW_LARGE_HINT}",
        )
