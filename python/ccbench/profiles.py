"""Named network profiles: documented presets for the networks of the studies.

A scenario says ``profile = "lte-edge"`` (or ``profile = { name = "lte-edge",
load = "evening" }``, or ``profile = "trace:PATH"`` for any Mahimahi trace) and
may override any field. `expand` turns the profile into ordinary scenario
fields *before* the Rust core validates the scenario, so the core's schema
(crates/ccsim/src/scenario/) stays the one definition of every field.

Profiles are data: one TOML file each in ``presets/profiles/`` with

- ``description`` and ``sources`` (where every number comes from: the studies
  of SPEC.md, 3GPP specifications, the Mahimahi traces, or "ours" for
  assumptions);
- ``[scenario]``: a fragment of a scenario (``downlink``, ``uplink``, ...),
  written with the core's own link fields (``loss``, ``arq``, ``jitter``,
  ``outage_process``, ...); a link's ``trace = "FILE"`` names a Mahimahi
  trace shipped in ``presets/traces/``;
- ``[flow_defaults]``: fields merged under every ``[[flows]]`` entry (and the
  background's TCP transfers), such as tuned buffers;
- ``[options.NAME]``: named knobs (``doc``, ``default``, and either
  ``when_true`` for a switch or ``values`` + ``target`` + ``template`` for a
  level such as the LTE cell load; ``targets`` sets one number at several
  places, ``unit`` appends a unit to it (``"pkt"``), ``range = [lo, hi]``
  bounds it, 0 to 10 when not given);
- ``extends = "_base"``: start from a shared base file (names beginning with
  ``_`` are bases, not profiles);
- ``[parameters]``: the source (or the assumption and its sensitivity) of
  every field the profile sets (profile_params.py; `ccbench profiles NAME`);
- ``nominal = { down = "384kbit", up = "64kbit" }``: the channel's nominal
  rates, which a study's utilization is relative to (`nominal_rate_bps`).

Merging is deep: tables merge key by key, and the scenario's own values win
over the profile's (lists are replaced whole). A profile's ``flow_defaults``
``tcp`` fields land in each flow's ``tcp`` table, so they win over the kernel
preset that table names (``tcp.kernel``, applied by the core to the fields
not written): kernel preset, then profile, then the flow's own fields, each
winning over the one before. A link's rate comes from one
of ``rate``, ``trace``, ``rate_process`` or ``dch``: the scenario naming one of them
drops the profile's others.

``trace:PATH`` reads any Mahimahi trace (PATH relative to `base_dir`, the
scenario file's folder, then to the working directory, then the shipped
``presets/traces/``) for the downlink, and PATH.up beside a PATH.down for the
uplink.
"""

from __future__ import annotations

import copy
import functools
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomllib

from ccbench import profile_params, traces
from ccbench._ccsim import did_you_mean

__all__ = ["ProfileError", "list_profiles", "expand", "profile_names", "PROFILE_DIR", "TRACE_DIR"]

PRESETS = Path(__file__).parent / "presets"
PROFILE_DIR = PRESETS / "profiles"
TRACE_DIR = PRESETS / "traces"

#: Keys of a link that each define its rate; at most one may be set.
RATE_KEYS = ("rate", "trace", "rate_process", "dch")
#: Top-level keys a profile file may have.
PROFILE_KEYS = {"description", "sources", "scenario", "flow_defaults", "options", "extends", "parameters", "nominal"}
#: Directions a profile's `nominal` may name.
NOMINAL_KEYS = ("down", "up")


class ProfileError(ValueError):
    """A profile that cannot be used: `path` is the scenario field ('profile',
    'profile.load', ...), `detail` says what is wrong and what is allowed."""

    def __init__(self, path: str, detail: str):
        self.path, self.detail = path, detail
        super().__init__(f"{path}: {detail}")


def deep_merge(base: dict, over: Mapping) -> dict:
    """A new dict: `base` with `over` merged in; `over` wins, tables merge key by key."""
    out = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


@functools.cache
def _parsed_file(name: str) -> dict:
    """A shipped profile file, parsed once per process (a campaign expands
    the same profile for every run; the files do not change while it runs)."""
    path = PROFILE_DIR / f"{name}.toml"
    with open(path, "rb") as f:
        data = tomllib.load(f)
    unknown = set(data) - PROFILE_KEYS
    if unknown:
        raise ProfileError("profile", f"profile file {path.name} has unknown keys {sorted(unknown)}")
    for key, entry in data.get("parameters", {}).items():
        problem = profile_params.check_entry(name, key, entry)
        if problem:
            raise ProfileError("profile", problem)
    for key, rate in data.get("nominal", {}).items():
        if key not in NOMINAL_KEYS or profile_params.rate_bps(rate) is None:
            raise ProfileError(
                "profile", f"profile {name}: nominal.{key} = {rate!r}; allowed: down or up = a rate such as '384kbit'"
            )
    return data


def _read_file(name: str) -> dict:
    return copy.deepcopy(_parsed_file(name))


@functools.cache
def _resolved(name: str) -> dict:
    """_resolve(name), once per process like the files it reads; callers
    only read it and copy what they keep."""
    return _resolve(name)


def _resolve(name: str, seen: tuple[str, ...] = ()) -> dict:
    """A profile's data with its `extends` chain applied (sources accumulate)."""
    if name in seen:
        raise ProfileError("profile", f"profile '{name}' extends itself ({' -> '.join(seen + (name,))})")
    data = _read_file(name)
    base_name = data.pop("extends", None)
    if base_name is None:
        return data
    base = _resolve(base_name, seen + (name,))
    sources = list(base.get("sources", [])) + list(data.get("sources", []))
    merged = deep_merge(base, data)
    merged["sources"] = sources
    return merged


def profile_names() -> list[str]:
    """Every shipped profile (bases excluded), sorted."""
    return list(_shipped_names())


@functools.cache
def _shipped_names() -> tuple[str, ...]:
    return tuple(sorted(p.stem for p in PROFILE_DIR.glob("*.toml") if not p.stem.startswith("_")))


def list_profiles() -> list[dict]:
    """Every profile: name, description, parameters (flattened field -> value),
    options (name -> doc, default, allowed values) and sources."""
    out = []
    for name in profile_names():
        p = _resolved(name)
        params = profile_params.flatten(p.get("scenario", {}))
        for link in ("downlink", "uplink"):
            file = params.get(f"{link}.trace")
            if isinstance(file, str) and (TRACE_DIR / file).is_file():
                mean = traces.mean_rate_bps(traces.load_mahimahi(TRACE_DIR / file))
                params[f"{link}.trace"] = f"{file} (mean {mean / 1e6:.2f} Mbit/s)"
        params.update({f"flows.{k}": v for k, v in profile_params.flatten(p.get("flow_defaults", {})).items()})
        options = {}
        for opt, spec in p.get("options", {}).items():
            allowed = list(spec["values"]) + ["a number"] if "values" in spec else [True, False]
            options[opt] = {"doc": spec.get("doc", ""), "default": spec.get("default"), "allowed": allowed}
        out.append(
            {
                "name": name,
                "description": p.get("description", ""),
                "parameters": params,
                "table": parameter_table(name),
                "nominal": dict(p.get("nominal", {})),
                "options": options,
                "sources": list(p.get("sources", [])),
            }
        )
    out.append(
        {
            "name": "trace:PATH",
            "description": (
                "Any Mahimahi trace: PATH sets the downlink capacity; PATH.up next to a PATH.down sets the uplink"
            ),
            "parameters": {
                "downlink.trace": "PATH",
                "downlink.queue.size": "1000pkt",
                "uplink.trace": "PATH.up if present",
            },
            "table": [],
            "nominal": {},
            "options": {},
            "sources": [
                "Mahimahi mm-link trace format (Netravali et al., USENIX ATC 2015); deep buffers as cellular "
                "base stations have (Winstein et al., NSDI 2013)"
            ],
        }
    )
    return out


def _fields(name: str) -> dict[str, str]:
    """Every field profile `name` sets (options at their defaults, then what other levels add)."""

    def expand_option(opt, level):
        return _named_profile(name, {} if opt is None else {opt: level})

    return profile_params.set_fields(_resolved(name), expand_option)


def _optional_fields(name: str) -> set[str]:
    return {f"nominal.{k}" for k in _resolved(name).get("nominal", {})}


def parameter_table(name: str) -> list[dict]:
    """The rows of profile `name`'s parameter table: field, value, source or
    assumed + sensitivity (None where the profile has no entry)."""
    fields = _fields(name) | {f: _resolved(name)["nominal"][f[8:]] for f in _optional_fields(name)}
    return profile_params.table(name, fields, _resolved(name).get("parameters", {}))


def parameter_problems(name: str) -> list[str]:
    """Fields of profile `name` without an entry, and entries naming no field it sets."""
    entries = _resolved(name).get("parameters", {})
    return profile_params.coverage_problems(name, _fields(name), entries, _optional_fields(name))


def nominal_rate_bps(name: str, direction: str) -> float | None:
    """The nominal rate (bit/s) profile `name` declares for `direction`
    ('down' or 'up'), None when it declares none."""
    if name not in profile_names():
        return None
    rate = _resolved(name).get("nominal", {}).get(direction)
    return None if rate is None else profile_params.rate_bps(rate)


def _apply_option(p: dict, opt: str, value: Any) -> dict:
    """The scenario fragment option `opt` = `value` adds."""
    spec = p["options"][opt]
    if "when_true" in spec:
        if not isinstance(value, bool):
            raise ProfileError(f"profile.{opt}", f"{value!r} is not allowed; allowed: true or false")
        return copy.deepcopy(spec["when_true"]) if value else {}
    values = spec["values"]
    if isinstance(value, str):
        if value not in values:
            raise ProfileError(
                f"profile.{opt}",
                f"unknown value '{value}'{did_you_mean(value, list(values))}; allowed: {', '.join(values)} or a number",
            )
        number = values[value]
        if isinstance(number, str):  # a level written with its own unit ("256KB")
            return _option_fragment(spec, number)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        number = value
    else:
        raise ProfileError(f"profile.{opt}", f"{value!r} is not allowed; allowed: {', '.join(values)} or a number")
    if isinstance(number, float) and number.is_integer():
        number = int(number)  # byte counts written as 8e6
    lo, hi = spec.get("range", [0, 10])
    if not (lo <= number <= hi):
        raise ProfileError(f"profile.{opt}", f"{number} is out of range; allowed: {lo:g} to {hi:g}")
    if number == 0:
        return {}
    return _option_fragment(spec, f"{number}{spec['unit']}" if "unit" in spec else number)


def _option_fragment(spec: dict, value: Any) -> dict:
    """The option's template with `value` at each of its targets."""
    fragment = copy.deepcopy(spec.get("template", {}))
    for target in spec.get("targets", [spec.get("target")]):
        node = fragment
        *parents, leaf = target.split(".")
        for key in parents:
            node = node.setdefault(key, {})
        node[leaf] = value
    return fragment


def _named_profile(name: str, options: dict) -> tuple[dict, dict]:
    """(scenario fragment, flow defaults) of a shipped profile with `options`."""
    known = profile_names()
    if name not in known:
        hint = did_you_mean(name, known + ["trace:PATH"])
        raise ProfileError("profile", f"unknown profile '{name}'{hint}; known: {', '.join(known)}, trace:PATH")
    p = _resolved(name)
    fragment = copy.deepcopy(p.get("scenario", {}))
    flow_defaults = copy.deepcopy(p.get("flow_defaults", {}))
    declared = p.get("options", {})
    for opt in options:
        if opt not in declared:
            allowed = ", ".join(["name"] + list(declared))
            raise ProfileError(
                f"profile.{opt}",
                f"profile '{name}' has no option '{opt}'{did_you_mean(opt, list(declared))}; allowed: {allowed}",
            )
    for opt, spec in declared.items():
        extra = _apply_option(p, opt, options.get(opt, spec.get("default")))
        flow_defaults = deep_merge(flow_defaults, extra.pop("flow_defaults", {}))
        fragment = deep_merge(fragment, extra)
    return fragment, flow_defaults


def _trace_data(path: Path, allow_large: bool = False) -> dict:
    """The core's trace value of a Mahimahi file (the size limit lifted with
    `allow_large`, as for a link's `trace`); a bad file is an error of `profile`."""
    try:
        return traces.trace_value(path, allow_large)
    except traces.TraceError as e:
        raise ProfileError("profile", str(e)) from None


def _trace_link(path: Path, allow_large: bool) -> dict:
    return {"trace": _trace_data(path, allow_large), "queue": {"size": "1000pkt"}}


def _trace_profile(spec: str, base_dir: Path | None, allow_large: bool = False) -> dict:
    raw = spec[len("trace:") :]
    if not raw:
        raise ProfileError("profile", "trace: needs a file, as in 'trace:traces/Verizon-LTE-short.down'")
    path = Path(os.path.expanduser(raw))
    candidates = (
        [path] if path.is_absolute() else [*([base_dir / path] if base_dir is not None else []), path, TRACE_DIR / path]
    )
    path = next((c for c in candidates if c.is_file()), path)
    if not path.is_file():
        shipped = sorted(p.name for p in TRACE_DIR.glob("*") if p.is_file() and p.suffix != ".md")
        hint = f"; shipped traces: {', '.join(shipped)}" if shipped else ""
        raise ProfileError("profile", f"no trace file '{raw}'{hint}")
    fragment = {"downlink": _trace_link(path, allow_large)}
    if path.suffix == ".down" and path.with_suffix(".up").exists():
        fragment["uplink"] = _trace_link(path.with_suffix(".up"), allow_large)
    return fragment


def _load_shipped_traces(name: str, fragment: dict) -> None:
    """A profile link's `trace = "FILE"` becomes the data of presets/traces/FILE."""
    for link in ("downlink", "uplink"):
        spec = fragment.get(link)
        if isinstance(spec, dict) and isinstance(spec.get("trace"), str):
            file = TRACE_DIR / spec["trace"]
            if not file.is_file():
                raise ProfileError(
                    "profile",
                    f"profile '{name}' names the trace '{spec['trace']}', "
                    f"which is not in {TRACE_DIR} (a broken installation?)",
                )
            spec["trace"] = _trace_data(file)


def _drop_replaced_rates(fragment: dict, scenario: dict) -> None:
    """A link rate given by the scenario replaces the profile's, whichever key it uses."""
    for link in ("downlink", "uplink"):
        mine, theirs = fragment.get(link), scenario.get(link)
        if isinstance(mine, dict) and isinstance(theirs, dict) and any(k in theirs for k in RATE_KEYS):
            for k in RATE_KEYS:
                if k not in theirs:
                    mine.pop(k, None)


def expand(scenario: dict, base_dir: Path | str | None = None, allow_large: bool = False) -> dict:
    """The scenario with its `profile` expanded into ordinary fields (a new
    dict; a scenario without `profile` comes back unchanged). `base_dir` (the
    scenario file's folder) is where a relative trace:PATH is looked up first;
    `allow_large` lifts its trace files' size limit (--allow-large).
    Raises ProfileError naming the field."""
    if "profile" not in scenario:
        return scenario
    if "links" in scenario:
        raise ProfileError(
            "profile",
            "a profile sets the dumbbell's downlink and uplink, so it cannot be combined with [[links]]; "
            "give each link its values, or drop [[links]]",
        )
    scenario = dict(scenario)
    spec = scenario.pop("profile")
    if isinstance(spec, str):
        name, options = spec, {}
    elif isinstance(spec, dict):
        options = dict(spec)
        name = options.pop("name", None)
        if not isinstance(name, str):
            raise ProfileError("profile.name", 'missing; write profile = { name = "lte-edge", load = "evening" }')
    else:
        raise ProfileError(
            "profile",
            f'{spec!r} is not allowed; a profile name such as "umts", "trace:PATH", or {{ name = ..., option = ... }}',
        )
    if name.startswith("trace:"):
        if options:
            raise ProfileError(f"profile.{next(iter(options))}", "trace profiles have no options")
        fragment, flow_defaults = _trace_profile(name, None if base_dir is None else Path(base_dir), allow_large), {}
        _drop_replaced_rates(fragment, scenario)
    else:
        fragment, flow_defaults = _named_profile(name, options)
        _drop_replaced_rates(fragment, scenario)
        _load_shipped_traces(name, fragment)
    out = deep_merge(fragment, scenario)
    if flow_defaults:
        flows = out.get("flows")
        if isinstance(flows, list):
            out["flows"] = [deep_merge(flow_defaults, f) if isinstance(f, dict) else f for f in flows]
        bg = out.get("background")
        if isinstance(bg, dict) and "tcp" in flow_defaults:
            bg["tcp"] = deep_merge(flow_defaults["tcp"], bg.get("tcp", {}))
    return out
