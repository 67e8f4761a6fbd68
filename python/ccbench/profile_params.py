"""A profile's parameter table: every scenario field it sets, with its source.

Each profile file has a ``[parameters]`` table keyed by the dotted path of a
field it sets (``[parameters."downlink.queue.size"]``); flow defaults are
``flows.tcp.rmem_max``, the fields an option can set are listed as well. An
entry either names where the value comes from, ``source = "..."`` (a 3GPP or
IETF section, a paper, a datasheet, a kernel file at its release, a
measurement), or says it is ``assumed = "why this value"`` together with
``sensitivity = "what moves when it is halved or doubled"``; ``unit`` names
the unit of a bare number. An entry for a table (``downlink.loss``) covers
every field inside it. Bases (``_lte``, ...) hold entries their profiles
inherit, as they inherit the fields.
"""

from __future__ import annotations

import re
from typing import Any

#: Keys an entry may have.
ENTRY_KEYS = {"source", "assumed", "sensitivity", "unit"}
#: Units of the fields written as bare numbers (an entry's `unit` wins).
UNITS = {
    "rmem_max": "bytes",
    "wmem_max": "bytes",
    "p": "probability",
    "max_retries": "retries",
    "load": "share of the downlink rate",
}

_RATE = re.compile(r"^(\d+(?:\.\d+)?)\s*(bit|kbit|Mbit|Gbit)$")
_RATE_FACTOR = {"bit": 1.0, "kbit": 1e3, "Mbit": 1e6, "Gbit": 1e9}


def rate_bps(text: Any) -> float | None:
    """A rate such as '384kbit' in bit/s (a bare number is bit/s); None if it is not one."""
    if isinstance(text, (int, float)) and not isinstance(text, bool) and text > 0:
        return float(text)
    m = _RATE.match(text) if isinstance(text, str) else None
    return float(m.group(1)) * _RATE_FACTOR[m.group(2)] if m and float(m.group(1)) > 0 else None


def check_entry(profile: str, key: str, entry: Any) -> str | None:
    """What is wrong with one entry of `profile`'s [parameters], or None."""
    where = f'profile {profile}: parameters."{key}"'
    if not isinstance(entry, dict):
        return f"{where} is {entry!r}; it must be a table with source = ... or assumed = ... and sensitivity = ..."
    unknown = set(entry) - ENTRY_KEYS
    if unknown:
        return f"{where} has unknown keys {sorted(unknown)}; allowed: {', '.join(sorted(ENTRY_KEYS))}"
    if not all(isinstance(v, str) and v.strip() for v in entry.values()):
        return f"{where}: every value must be a non-empty string"
    if ("source" in entry) == ("assumed" in entry):
        return f"{where} needs exactly one of source = ... or assumed = ..."
    if "assumed" in entry and "sensitivity" not in entry:
        return f"{where} is assumed, so it needs sensitivity = what moves when it is halved or doubled"
    return None


def flatten(d: dict, prefix: str = "") -> dict[str, Any]:
    """A nested table as {dotted path: leaf value}; an empty table is a leaf."""
    out: dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict) and v:
            out.update(flatten(v, key))
        else:
            out[key] = v
    return out


def _fields_of(fragment: dict, flow_defaults: dict) -> dict[str, Any]:
    out = flatten(fragment)
    out.update({f"flows.{k}": v for k, v in flatten(flow_defaults).items()})
    return out


def set_fields(resolved: dict, expand_option) -> dict[str, str]:
    """Field -> the value it shows in the table: the profile's own fields with
    its options at their defaults, then the fields only another option level
    sets ("46777216 (tuned = true)"). `expand_option(opt, value)` returns the
    (fragment, flow defaults) of the profile with that one option set."""
    fields = {k: _show(k, v) for k, v in _fields_of(*expand_option(None, None)).items()}
    for opt, spec in resolved.get("options", {}).items():
        levels = [True] if "when_true" in spec else list(spec.get("values", {}))
        for level in levels:
            for k, v in _fields_of(*expand_option(opt, level)).items():
                if k not in fields:
                    shown = "true" if level is True else level
                    fields[k] = f"{_show(k, v)} (with {opt} = {shown})"
    return fields


def _show(field: str, value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    unit = UNITS.get(field.rsplit(".", 1)[-1])
    if isinstance(value, (int, float)) and unit:
        return f"{value} {unit}"
    return str(value)


def covering(field: str, entries: dict) -> str | None:
    """The most specific entry key that covers `field` (itself or a table holding it)."""
    parts = field.split(".")
    for n in range(len(parts), 0, -1):
        key = ".".join(parts[:n])
        if key in entries:
            return key
    return None


def coverage_problems(profile: str, fields: dict, entries: dict, optional: set[str]) -> list[str]:
    """Fields with no entry, and entries that name no field the profile sets
    (`optional`: fields that may have an entry but need none, as `nominal.down`)."""
    problems = [f"profile {profile}: {f} has no entry in [parameters]" for f in fields if covering(f, entries) is None]
    known = set(fields) | optional
    for key in entries:
        if not any(f == key or f.startswith(key + ".") for f in known):
            problems.append(f'profile {profile}: parameters."{key}" names a field the profile does not set')
    return problems


def table(profile: str, fields: dict, entries: dict) -> list[dict]:
    """Rows of `profiles NAME`: field, value (with unit), source or assumed + sensitivity."""
    rows = []
    for field, value in fields.items():
        key = covering(field, entries)
        entry = entries.get(key, {}) if key else {}
        unit = entry.get("unit") if key == field else None
        rows.append(
            {
                "field": field,
                "value": f"{value} {unit}" if unit else value,
                "source": entry.get("source"),
                "assumed": entry.get("assumed"),
                "sensitivity": entry.get("sensitivity"),
            }
        )
    return rows
