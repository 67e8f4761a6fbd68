"""The `[quick]` table of a campaign file: a documented, seeded reduction of
its design for a fast first look (`ccbench study NAME --quick`).

    [quick]
    repetitions = 1                              # fewer repetitions
    time_scale = 0.1                             # every duration, start and stop times 0.1
    levels = { "flows[*].cc" = ["reno"] }        # keep only these levels of a factor
    tables.direction = { down = { ... } }        # replace a named factor's level tables
    scenario = { downlink = { rate = "100Mbit" } }   # merged into the base scenario

The full form ignores the table. `reduce` returns the campaign with the
reduction applied (and the table removed), so the quick form is an ordinary
campaign: same seeds for the same levels and repetitions.

An edited file keeps running: `levels` keeps those of its levels the factor
still has, and a factor none of whose listed levels is left (its levels or
the duration were changed) keeps its first level (`stale_levels` says which).
"""

from __future__ import annotations

import copy
from typing import Any

from ccbench import limits
from ccbench.campaigns.fields import CampaignFileError, is_level_of, parse_path, show

QUICK_KEYS = ("repetitions", "time_scale", "levels", "tables", "scenario")
#: The quick form's repetitions when the table does not say (and when a file has no table).
DEFAULT_REPETITIONS = 1
#: Scenario fields that are times and scale with `time_scale`.
TIME_KEYS = ("duration", "start", "stop")


def _error(source: str, path: str, detail: str):
    return CampaignFileError(source, path, detail)


def check(raw: dict, factors: list, source: str) -> None:
    """Raises CampaignFileError naming the field if `[quick]` cannot apply to this campaign."""
    quick = raw.get("quick")
    if quick is None:
        return
    if not isinstance(quick, dict):
        raise _error(source, "quick", f"expected a table with any of {', '.join(QUICK_KEYS)}")
    for k in quick:
        if k not in QUICK_KEYS:
            raise _error(source, f"quick.{k}", f"unknown field; allowed: {', '.join(QUICK_KEYS)}")
    reps = quick.get("repetitions", DEFAULT_REPETITIONS)
    if isinstance(reps, bool) or not isinstance(reps, int) or reps < 1:
        shown = limits.shown(repr(reps))
        raise _error(source, "quick.repetitions", f"{shown} is not allowed; expected an integer >= 1")
    scale = quick.get("time_scale", 1.0)
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 < scale <= 1:
        raise _error(source, "quick.time_scale", f"{limits.shown(repr(scale))} is not allowed; a number in (0, 1]")
    for key, allowed in (("levels", "factor = [levels]"), ("tables", "named factor = { level = { fields } }")):
        if not isinstance(quick.get(key, {}), dict):
            raise _error(source, f"quick.{key}", f"{show(quick[key])} is not allowed; expected a table of {allowed}")
    by_name = {f.name: f for f in factors}
    for name, keep in quick.get("levels", {}).items():
        if name not in by_name:
            raise _error(source, f'quick.levels."{name}"', f"not a factor; factors: {', '.join(by_name)}")
        if not isinstance(keep, list) or not keep:
            raise _error(source, f'quick.levels."{name}"', "expected a non-empty list of the factor's levels")
    for name, tables in quick.get("tables", {}).items():
        if name not in by_name or not by_name[name].named:
            named = ", ".join(f.name for f in factors if f.named) or "none"
            raise _error(source, f'quick.tables."{name}"', f"not a named factor; named factors: {named}")
        if not isinstance(tables, dict) or not all(isinstance(t, dict) for t in tables.values()):
            raise _error(source, f'quick.tables."{name}"', "expected a table of level = { scenario fields }")
    if not isinstance(quick.get("scenario", {}), dict):
        raise _error(source, "quick.scenario", "expected a table of scenario fields")


def scale_time(value: Any, scale: float) -> Any:
    """'100s' * 0.1 -> '10s', '2min' * 0.1 -> '12s' (read by the core's duration
    parser, so every unit it accepts scales); a number of seconds stays a number.
    A value the parser refuses is returned unchanged, for the scenario check to
    report with its field path."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value * scale
    if isinstance(value, str):
        from ccbench import _ccsim

        try:
            seconds = _ccsim.duration_seconds(value)
        except ValueError:
            return value
        return f"{seconds * scale:.12g}s"
    return value


def scale_times(obj: Any, scale: float) -> Any:
    """A copy of a scenario (or part) with every duration, start and stop scaled."""
    if isinstance(obj, dict):
        return {k: scale_time(v, scale) if k in TIME_KEYS else scale_times(v, scale) for k, v in obj.items()}
    if isinstance(obj, list):
        return [scale_times(v, scale) for v in obj]
    return obj


def reduce(raw: dict) -> dict:
    """The quick form of a campaign (a raw campaign dict, already checked by `check`)."""
    from ccbench.profiles import deep_merge

    quick = raw.get("quick") or {}
    out = {k: copy.deepcopy(v) for k, v in raw.items() if k != "quick"}
    out["repetitions"] = quick.get("repetitions", DEFAULT_REPETITIONS)
    scale = float(quick.get("time_scale", 1.0))
    scenario = deep_merge(out.get("scenario", {}), quick.get("scenario", {}))
    if "scenario" in out:
        out["scenario"] = scale_times(scenario, scale)
    factors = out.get("factors", {})
    for name, tables in quick.get("tables", {}).items():
        factors[name] = {lv: {**factors[name].get(lv, {}), **t} for lv, t in tables.items()}
    for name, keep in quick.get("levels", {}).items():
        levels = factors[name]
        # A level the file no longer has is left out (stale_levels lists it); none left: the first level.
        kept = [v for v in levels if is_level_of(v, keep)] or list(levels)[:1]
        factors[name] = {k: levels[k] for k in kept} if isinstance(levels, dict) else kept
    for name, levels in factors.items():
        if isinstance(levels, dict):
            factors[name] = {lv: scale_times(t, scale) for lv, t in levels.items()}
        elif str(parse_path(name)[-1]) in TIME_KEYS:
            factors[name] = [scale_time(v, scale) for v in levels]
    kept = {n: list(lv) for n, lv in factors.items()}
    out["exclude"] = [r for r in out.get("exclude", []) if all(is_level_of(v, kept.get(k, ())) for k, v in r.items())]
    if not out["exclude"]:
        del out["exclude"]
    return out


def stale_levels(raw: dict) -> dict[str, list]:
    """Per factor, the levels `[quick] levels` lists that the factor no longer
    has (the file was edited after the table was written)."""

    quick = raw.get("quick") or {}
    factors = raw.get("factors", {})
    out = {}
    for name, keep in quick.get("levels", {}).items():
        missing = [v for v in keep if not is_level_of(v, list(factors.get(name, ())))]
        if missing:
            out[name] = missing
    return out
