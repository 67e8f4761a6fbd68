"""Loading scenarios: TOML (or a dict) in, the Rust-validated normalized scenario out.

The schema is defined once, in Rust (crates/ccsim/src/scenario/). This module
only reads TOML with tomllib, expands named presets (network profiles) through
the single hook `expand_presets`, converts to JSON and lets Rust check every
field. Every problem becomes one `ScenarioFileError` whose message names the
field path, the bad value and what is allowed.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomllib

from ccbench import _ccsim, traces


class ScenarioFileError(ValueError):
    """A scenario that cannot run: `source` (file or '<text>'), `path` (field
    path such as 'flows[0].cc', or 'line 3, column 7' for TOML syntax) and `detail`."""

    def __init__(self, source: str, path: str, detail: str):
        self.source, self.path, self.detail = source, path, detail
        where = f"{path}: " if path else ""
        super().__init__(f"{source}: {where}{detail}")


def expand_presets(raw: dict, base_dir: Path | None = None) -> dict:
    """THE hook point for named presets (network profiles such as `umts` or
    `trace:FILE`, a relative FILE looked up first in `base_dir`, the scenario
    file's folder): delegates to `ccbench.profiles.expand`."""
    from ccbench import profiles

    return profiles.expand(raw, base_dir=base_dir)


def load_trace_files(raw: dict, base_dir: Path, source: str) -> dict:
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
        if not path.is_absolute() and (base_dir / path).exists():
            path = base_dir / path
        try:
            holder[index] = {**link, "trace": traces.trace_value(path)}
        except traces.TraceError as e:
            raise ScenarioFileError(source, f"{key}.trace", f'cannot use the trace "{name}": {e}') from None
    return raw


def _read_toml(text: str, source: str) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        path = ""
        if "(at " in msg and msg.endswith(")"):
            msg, _, where = msg.rpartition(" (at ")
            path = where[:-1]
        raise ScenarioFileError(source, path, f"TOML syntax error: {msg}") from None


def read(scenario: str | Path | Mapping[str, Any]) -> tuple[dict, str]:
    """The raw scenario dict and a name for its source (file path or '<text>').
    `scenario` is a path to a TOML file, TOML text, or a dict."""
    if isinstance(scenario, Mapping):
        return dict(scenario), "<dict>"
    if isinstance(scenario, Path) or (
        isinstance(scenario, str) and "\n" not in scenario and scenario.endswith(".toml")
    ):
        path = Path(scenario)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise ScenarioFileError(str(path), "", f"cannot read the file: {e.strerror}") from None
        return _read_toml(text, str(path)), str(path)
    return _read_toml(str(scenario), "<text>"), "<text>"


def _jsonable(value: Any, path: str, source: str) -> Any:
    """TOML values as JSON; dates and infinities are not scenario values."""
    if isinstance(value, dict):
        return {k: _jsonable(v, f"{path}.{k}" if path else k, source) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v, f"{path}[{i}]", source) for i, v in enumerate(value)]
    if isinstance(value, float) and not math.isfinite(value):
        raise ScenarioFileError(source, path, f"{value} is not allowed; use a finite number")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise ScenarioFileError(source, path, f"{value!r} ({type(value).__name__}) is not allowed here")


def load(scenario: str | Path | Mapping[str, Any], seed: int | None = None, base_dir: Path | None = None) -> dict:
    """Reads, expands and validates a scenario; returns the normalized scenario
    (every default filled in) as a dict. Relative files (traces) are looked up
    in `base_dir`, by default the scenario file's folder (the working directory
    for text or a dict). Raises ScenarioFileError."""
    raw, source = read(scenario)
    if base_dir is None:
        base_dir = Path(source).parent if not source.startswith("<") else Path.cwd()
    try:
        raw = expand_presets(raw, base_dir)
    except ValueError as e:  # ccbench.profiles.ProfileError: names the field
        if hasattr(e, "path") and hasattr(e, "detail"):
            raise ScenarioFileError(source, e.path, e.detail) from None
        raise
    raw = load_trace_files(raw, base_dir, source)
    if seed is not None:
        raw["seed"] = int(seed)
    text = json.dumps(_jsonable(raw, "", source))
    try:
        return json.loads(_ccsim.validate(text))
    except _ccsim.ScenarioError as e:
        path = getattr(e, "path", "")
        raise ScenarioFileError(source, "" if path == "." else path, getattr(e, "detail", str(e))) from None
