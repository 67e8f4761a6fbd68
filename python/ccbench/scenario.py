"""Loading scenarios: TOML (or a dict) in, the Rust-validated normalized scenario out.

The schema is defined once, in Rust (crates/ccsim/src/scenario/). This module
only reads TOML with tomllib, expands named presets (network profiles) through
the single hook `expand_presets`, converts to JSON and lets Rust check every
field. Every problem becomes one `ScenarioFileError` whose message names the
field path, the bad value and what is allowed.
"""

from __future__ import annotations

import functools
import json
import math
import operator
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ccbench import _ccsim, inputs, limits, traces
from ccbench.json_pieces import Pieces


class ScenarioFileError(ValueError):
    """A scenario that cannot run: `source` (file or '<text>'), `path` (field
    path such as 'flows[0].cc', or 'line 3, column 7' for TOML syntax) and `detail`."""

    def __init__(self, source: str, path: str, detail: str):
        self.source, self.path, self.detail = source, path, limits.one_line(detail)
        where = f"{path}: " if path else ""
        super().__init__(limits.one_line(f"{source}: {where}{detail}"))


def expand_presets(raw: dict, base_dir: Path | None = None, allow_large: bool = False) -> dict:
    """THE hook point for named presets (network profiles such as `umts` or
    `trace:FILE`, a relative FILE looked up first in `base_dir`, the scenario
    file's folder; `allow_large` lifts the trace file's size limit): delegates
    to `ccbench.profiles.expand`."""
    from ccbench import profiles

    return profiles.expand(raw, base_dir=base_dir, allow_large=allow_large)


def load_trace_files(raw: dict, base_dir: Path, source: str, allow_large: bool = False) -> dict:
    """`trace = "FILE"` on a link (downlink, uplink or one of [[links]]) becomes the trace's data ({opportunities_ms,
    source}) read with ccbench.traces.trace_value: the simulator core reads no
    files. A relative FILE is taken from the scenario file's folder first, then
    from the working directory."""
    named = raw.get("links")
    places = [(key, raw, key) for key in ("downlink", "uplink")]
    if isinstance(named, list):
        places += [(f"links[{i}]", named, i) for i in range(len(named))]
    for key, holder, index in places:
        link = holder.get(index) if isinstance(holder, dict) else holder[index]
        if not (isinstance(link, dict) and isinstance(link.get("trace"), str)):
            continue
        name = link["trace"]
        path = Path(name)
        try:
            if not path.is_absolute() and (base_dir / path).exists():
                path = base_dir / path
            holder[index] = {**link, "trace": traces.trace_value(path, allow_large)}
        except (traces.TraceError, OSError, ValueError) as e:  # OSError: a name too long; ValueError: a NUL
            detail = e if isinstance(e, traces.TraceError) else getattr(e, "strerror", None) or "not a file name"
            raise ScenarioFileError(
                source,
                f"{key}.trace",
                f'cannot use the trace "{limits.shown(name, limits.SHOWN_PATH_CHARS)}": {detail}',
            ) from None
    return raw


def _read_toml(text: str, source: str) -> dict:
    return inputs.read_toml(text, source, ScenarioFileError)


def file_path(scenario: str | Path | Mapping[str, Any]) -> Path | None:
    """The scenario file's path when `scenario` names a file (the rule of
    ccbench.inputs: a str or Path); None for a dict or TOML text."""
    if inputs.is_mapping(scenario) or inputs.is_text(scenario):
        return None
    return inputs.file_path(scenario, "scenario")


def capture_dir(scenario: str | Path | Mapping[str, Any], given: str | Path | None) -> Path:
    """Where a run writes its packet capture (`record.pcap.path` is relative
    to it): `given`, else beside the scenario file, else the working directory."""
    if given is not None:
        return Path(given)
    file = file_path(scenario)
    return file.parent if file is not None else Path.cwd()


def create_capture_file(normalized: dict, directory: Path) -> str | None:
    """Creates the scenario's packet capture (`record.pcap.path`, a relative
    name the core checked) empty in `directory`, folders included, so a capture
    that cannot be written fails before the run starts. Returns why it cannot
    be created, or None (also when the scenario captures nothing)."""
    pcap = (normalized.get("record") or {}).get("pcap")
    if not pcap:
        return None
    target = directory / pcap["path"]
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.open("wb").close()
    except OSError as e:
        return e.strerror
    return None


def read(scenario: str | Path | Mapping[str, Any], allow_large: bool = False) -> tuple[dict, str]:
    """The raw scenario dict and a name for its source (file path or '<text>').
    `scenario` is a file path (str or Path), a dict, or TOML text marked as
    ccbench.inputs.TomlText (the rule of ccbench.inputs)."""
    if inputs.is_mapping(scenario):
        return _shared_traces_of(inputs.plain(scenario)), "<dict>"
    path = file_path(scenario)
    if path is not None:
        data = inputs.read_bytes(path, allow_large, "scenario", ScenarioFileError)
        return _read_toml(inputs.decode(data, str(path), "scenario", ScenarioFileError), str(path)), str(path)
    text = inputs.checked_text(str(scenario), allow_large, "scenario", ScenarioFileError)
    return _read_toml(text, "<text>"), "<text>"


def _shared_traces_of(raw: dict) -> dict:
    """`raw` with the opportunities of each link's trace, when they are plain
    whole numbers, held as one Opportunities: a scenario given back as a dict
    (one `load` returned, or a run's meta.json read) is then checked and
    encoded as a trace read from its file is, once, not number by number."""

    def shared(trace: dict) -> dict:
        o = trace["opportunities_ms"]
        if type(o) is list and all(type(t) is int for t in o):
            return {**trace, "opportunities_ms": traces.Opportunities(o)}
        return trace

    return traces.with_each_trace(raw, shared)


def _jsonable(value: Any, path: str, source: str) -> Any:
    """TOML values as JSON; dates and infinities are not scenario values."""
    if isinstance(value, traces.Opportunities):  # whole numbers, read and checked from a file
        return value
    if isinstance(value, dict):
        return {k: _jsonable(v, f"{path}.{k}" if path else k, source) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v, f"{path}[{i}]", source) for i, v in enumerate(value)]
    if isinstance(value, float) and not math.isfinite(value):
        raise ScenarioFileError(source, path, f"{value} is not allowed; use a finite number")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise ScenarioFileError(source, path, f"{value!r} ({type(value).__name__}) is not allowed here")


def whole_seed(seed: Any) -> int:
    """A seed given as an argument: an int (a NumPy integer too); a float, a
    str or a bool is a TypeError, never rounded or parsed into another seed.
    Its range is the core's to check, as a file's seed."""
    seed = inputs.plain(seed)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed: {seed!r} ({type(seed).__name__}) is not a whole number; give an int")
    return seed


def load(
    scenario: str | Path | Mapping[str, Any],
    seed: int | None = None,
    base_dir: Path | None = None,
    allow_large: bool = False,
) -> dict:
    """Reads, expands and validates a scenario; returns the normalized scenario
    (every default filled in) as a dict. Relative files (traces) are looked up
    in `base_dir`, by default the scenario file's folder (the working directory
    for text or a dict). The limits of ccbench.limits apply (lifted with
    `allow_large`). Raises ScenarioFileError (TypeError for a `seed` that is
    not an int)."""
    raw, source = read(scenario, allow_large)
    if source == "<dict>":
        inputs.check_nesting(raw, source, ScenarioFileError)
    if base_dir is None:
        base_dir = Path(source).parent if not source.startswith("<") else Path.cwd()
    try:
        raw = expand_presets(raw, base_dir, allow_large)
    except ValueError as e:  # ccbench.profiles.ProfileError: names the field
        if hasattr(e, "path") and hasattr(e, "detail"):
            raise ScenarioFileError(source, e.path, e.detail) from None
        raise
    raw = load_trace_files(raw, base_dir, source, allow_large)
    if seed is not None:
        raw["seed"] = whole_seed(seed)
    text, shared = text_for_core(_jsonable(raw, "", source))
    try:
        normalized = loads_sharing(_ccsim.validate(text, traces=[o.core for o in shared]), shared)
    except _ccsim.ScenarioError as e:
        path = getattr(e, "path", "")
        raise ScenarioFileError(source, "" if path == "." else path, getattr(e, "detail", str(e))) from None
    try:
        limits.check(normalized, allow_large)
    except limits.LimitError as e:
        raise ScenarioFileError(source, e.path, e.detail) from None
    return normalized


def dumps(
    scenario: Mapping[str, Any],
    sort_keys: bool = False,
    trace_text: Callable[[traces.Opportunities], str] = operator.attrgetter("json"),
) -> str:
    """A scenario as JSON text (what the core reads), each trace's
    opportunities spliced in as the text they were encoded to once (or as
    `trace_text` of them: a campaign's scenario hash puts in their digest)."""
    pieces = Pieces()

    def encoded_once(trace: dict) -> dict:
        o = trace["opportunities_ms"]
        return (
            {**trace, "opportunities_ms": pieces.stand_in(trace_text(o))}
            if isinstance(o, traces.Opportunities)
            else trace
        )

    return pieces.splice(json.dumps(traces.with_each_trace(scenario, encoded_once), sort_keys=sort_keys))


def dumps_sharing(scenario: Mapping[str, Any], shared: list[traces.Opportunities]) -> str:
    """`dumps` with each trace (an Opportunities) as the stand-in
    `"shared:N"` of its place N in `shared` (appended when not there yet):
    the text of a scenario whose traces travel beside it, each once, not in
    every text (the core's `run` and `validate`, a campaign's batch of runs).
    loads_sharing reads it back."""

    def stand_in(o: traces.Opportunities) -> str:
        n = next((i for i, known in enumerate(shared) if known is o), None)
        if n is None:
            shared.append(o)
            n = len(shared) - 1
        return json.dumps(f"{_ccsim.SHARED_TRACE_PREFIX}{n}")

    return dumps(scenario, trace_text=stand_in)


def loads_sharing(text: str, shared: Sequence[traces.Opportunities]) -> dict:
    """A scenario's JSON text (dumps_sharing's, or the core's normalized text
    of it) as a dict in which each trace's stand-in `"shared:N"` is the
    Opportunities shared[N]: the scenarios of a campaign share one trace
    instead of each holding a list of its own."""
    scenario = json.loads(text)
    if not shared:
        return scenario

    def restored(trace: dict) -> dict:
        o = trace["opportunities_ms"]
        if isinstance(o, str) and o.startswith(_ccsim.SHARED_TRACE_PREFIX):
            return {**trace, "opportunities_ms": shared[int(o[len(_ccsim.SHARED_TRACE_PREFIX) :])]}
        return trace

    return traces.with_each_trace(scenario, restored)


def text_for_core(scenario: Mapping[str, Any]) -> tuple[str, list[traces.Opportunities]]:
    """A scenario as the core's `run` and `validate` take it: dumps_sharing's
    text and the traces its stand-ins stand for, in order; the core is handed
    `[o.core for o in traces]`, each read into it once per process. Reading a
    measured trace's numbers again took most of a campaign run's time in the
    core. A trace the core cannot hold (a negative or huge number) is written
    out, for the core to name the bad entry; so is every trace of a scenario
    whose opportunities are given as a string anywhere (no list: an error),
    lest the core take a string such as "shared:0" for a stand-in."""
    given_as_text = False

    def held(trace: dict) -> dict:
        nonlocal given_as_text
        o = trace["opportunities_ms"]
        given_as_text |= isinstance(o, str)
        if isinstance(o, traces.Opportunities):
            try:
                _ = o.core  # read into the core now (kept with the trace)
            except (OverflowError, TypeError):
                return {**trace, "opportunities_ms": list(o)}
        return trace

    checked = traces.with_each_trace(scenario, held)
    if given_as_text:
        return dumps(checked), []
    shared: list[traces.Opportunities] = []
    return dumps_sharing(checked, shared), shared


@functools.lru_cache(maxsize=8)
def decoded_trace(encoded: str) -> traces.Opportunities:
    """A trace's opportunities from their JSON text (`Opportunities.json`),
    decoded once per process: a campaign's worker is sent each trace's text
    with every batch of runs over it."""
    return traces.Opportunities(json.loads(encoded))


#: Flow entries a scenario's summary names; the rest it counts.
SUMMARY_FLOW_ENTRIES = 4


def summary(normalized: Mapping[str, Any]) -> str:
    """A normalized scenario in a few words, for `ccbench validate` and a
    run's repr: its name (or "unnamed"), its flows' algorithms, duration and
    seed: "unnamed: 3 flows (cubic x2, reno), 2 s, seed 1"."""
    entries = normalized.get("flows") or []
    n = sum(int(f.get("count", 1)) for f in entries)
    named = [f["cc"] + (f" x{f['count']}" if f.get("count", 1) > 1 else "") for f in entries[:SUMMARY_FLOW_ENTRIES]]
    more = ", ..." if len(entries) > SUMMARY_FLOW_ENTRIES else ""
    return (
        f"{limits.shown(normalized.get('name') or '') or 'unnamed'}: {n} flow{'' if n == 1 else 's'} "
        f"({', '.join(named)}{more}), {normalized.get('duration', 0):g} s, seed {normalized.get('seed')}"
    )
