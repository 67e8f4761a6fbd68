"""A campaign file (TOML or a dict): factors x levels x repetitions over a base
scenario, checked completely before anything runs.

    name = "reno vs cubic on two rates"
    repetitions = 5
    seed = 1
    base = "path.toml"            # relative to the campaign file; or an inline [scenario] table
    [factors]                     # a key is a scenario field path; every combination of levels runs
    "flows[0].cc" = ["reno", "cubic"]
    "downlink.rate" = ["10Mbit", "100Mbit"]
    [[exclude]]                   # combinations not to run
    "flows[0].cc" = "reno"
    "downlink.rate" = "100Mbit"

Also allowed: a named factor whose levels are tables merged into the scenario
(`[factors.condition]` with `clean = { duration = "20s", ... }`), `flows[*].cc`
(every flow), `common_seeds = [...]` (factors whose levels share seeds: common
random numbers), `[random]` (per-run values drawn from the run's seed),
`keep_tables` ("first": full tables of repetition 0, "none", "all"),
`kept_tables` (which of those runs' tables are saved: a list of names, default every table),
`[analysis]` (compare, objective, margin; see ccbench.campaigns.analysis),
`study` (a shipped study's name: its report section, ccbench.campaigns.study_report)
and `[quick]` (a documented reduction of the design, ccbench.campaigns.quick).

A run's seed is a stable hash (BLAKE2b of canonical JSON) of the campaign
seed, the run's levels and its repetition, so adding a level or a repetition
never changes an existing run. Every problem raises one CampaignFileError that
names the file, the field path, the value and what is allowed.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import itertools
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import tomllib

from ccbench import inputs, traces
from ccbench.campaigns import planning
from ccbench.campaigns.fields import CampaignFileError, is_level_of, parse_path, same_level, set_path, show
from ccbench.profiles import deep_merge
from ccbench.run_result import TABLES
from ccbench.scenario import ScenarioFileError
from ccbench.scenario import dumps as dump_scenario
from ccbench.scenario import load as load_scenario
from ccbench.scenario import read as read_scenario

TOP_LEVEL_KEYS = (
    "name",
    "repetitions",
    "seed",
    "base",
    "scenario",
    "factors",
    "exclude",
    "common_seeds",
    "random",
    "keep_tables",
    "kept_tables",
    "analysis",
    "study",
    "about",
    "quick",
    "allow_large",
)
#: How a campaign lifts the limits of ccbench.limits: in its file, which its directory keeps and
#: its report shows, so a rerun and the report's command lift them too (a command-line option
#: would have to be remembered by every rerun).
ALLOW_LARGE_IN_FILE = "allow_large = true in the campaign file"
KEEP_TABLES = ("first", "none", "all")
#: A campaign's seed: hashed through canonical JSON, so an integer JSON readers keep exactly.
MAX_SEED = 2**53 - 1
#: The name of the copy of the base scenario file (`base = "FILE"`) in a campaign directory.
SAVED_BASE = "base.toml"
#: Appended to the stored text of a quick form, so its directory is not the full form's.
QUICK_NOTE = "\n# (run with --quick: the [quick] table above applies)\n"
#: Column names of the tidy tables that a factor may not take.
RESERVED_COLUMNS = ("run", "rep", "seed", "flow", "cc", "group", "direction", "link")
#: `base = "FILE"` (or 'FILE') on a line of its own, the value in group 2.
_BASE_LINE = re.compile(r"""^([ \t]*(?:base|"base"|'base')[ \t]*=[ \t]*)("(?:[^"\\\n]|\\.)*"|'[^'\n]*')""", re.M)


def text_hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def stable_hash(obj: Any, digest_bytes: int = 8) -> bytes:
    return hashlib.blake2b(canonical_json(obj).encode("ascii"), digest_size=digest_bytes).digest()


def run_seed(campaign_seed: int, levels: Mapping[str, Any], rep: int) -> int:
    """The seed of one run: 53 bits of BLAKE2b over the campaign seed, the
    run's levels (by factor name) and its repetition (exact in JSON and float64)."""
    digest = stable_hash({"seed": campaign_seed, "levels": dict(levels), "rep": rep})
    return int.from_bytes(digest, "big") >> 11


def run_key(levels: Mapping[str, Any], rep: int) -> str:
    """A run's identity in the index and its file name: 16 hex digits."""
    return stable_hash({"levels": dict(levels), "rep": rep}).hex()


@dataclass(frozen=True)
class Factor:
    """One factor: `name` (its key in [factors], the column name), `levels`
    (scalars for a field factor, labels for a named factor), `tables` (the
    scenario fields each level of a named factor sets)."""

    name: str
    levels: tuple
    path: tuple | None = None
    tables: tuple | None = None

    @property
    def named(self) -> bool:
        return self.tables is not None

    def apply(self, raw: dict, level_index: int) -> dict:
        if self.named:
            return deep_merge(raw, self.tables[level_index])
        set_path(raw, list(self.path), self.levels[level_index])
        return raw


@dataclass(frozen=True)
class RandomField:
    """A per-run value drawn uniformly from [low, high] in `step`s, with an optional unit suffix."""

    name: str
    path: tuple
    low: float
    high: float
    step: float
    unit: str

    def draw(self, raw: dict, rng: np.random.Generator) -> None:
        count = 1
        if "*" in self.path:
            i = self.path.index("*")
            lst = raw
            for t in self.path[:i]:
                lst = lst[t] if isinstance(lst, (dict, list)) else None
            count = len(lst) if isinstance(lst, list) else 1
        values = rng.uniform(self.low, self.high, count)
        if self.step > 0:
            values = np.round(np.round(values / self.step) * self.step, 9)
        converted = [float(v) if not self.unit else f"{float(v):g}{self.unit}" for v in values]
        if "*" in self.path:
            i = self.path.index("*")
            for j, v in enumerate(converted):
                set_path(raw, list(self.path[:i]) + [j] + list(self.path[i + 1 :]), v)
        else:
            set_path(raw, list(self.path), converted[0])


@dataclass(frozen=True)
class Run:
    """One planned run: position in the plan, key, levels (factor name -> level), rep, seed, normalized scenario."""

    index: int
    key: str
    levels: dict
    rep: int
    seed: int
    scenario: dict = field(repr=False)

    @property
    def scenario_json(self) -> str:
        return dump_scenario(self.scenario, sort_keys=True)

    @property
    def scenario_hash(self) -> str:
        """What a campaign directory's index keeps to tell whether the run's
        scenario changed: the hash of `scenario_json` in which each trace's
        opportunities stand as their digest (a string), so a trace's
        megabytes are hashed once per campaign, not once per run."""
        return text_hash(dump_scenario(self.scenario, sort_keys=True, trace_text=_quoted_digest))

    @property
    def condition_hash(self) -> str:
        """The hash of the run's scenario without its seed: equal for the
        repetitions of one condition (and for runs whose random levels
        happen to be equal), different for any other change."""
        unseeded = {k: v for k, v in self.scenario.items() if k != "seed"}
        return text_hash(dump_scenario(unseeded, sort_keys=True, trace_text=_quoted_digest))

    @property
    def legacy_scenario_hash(self) -> str:
        """The hash directories made before 4 Dec 2026 keep: of the whole
        `scenario_json`, traces included (the same as `scenario_hash` for a
        scenario without a trace)."""
        return text_hash(self.scenario_json)


def _quoted_digest(trace: traces.Opportunities) -> str:
    return json.dumps(f"blake2b:{_trace_hash(trace.json)}")


#: text_hash of a trace's text, once per trace: its `json` is one string
#: object, whose own hash Python keeps, so a later lookup is immediate.
_trace_hash = functools.lru_cache(maxsize=8)(text_hash)


@dataclass
class Campaign:
    """A checked campaign: its design and every run it makes."""

    name: str
    source: str
    text: str
    repetitions: int
    seed: int
    factors: list[Factor]
    excluded: list[dict]
    common_seeds: list[str]
    random: list[RandomField]
    keep_tables: str
    analysis: dict
    runs: list[Run] = field(repr=False)
    study: str | None = None
    #: The tables saved of each run whose tables are kept (keep_tables).
    kept_tables: tuple[str, ...] = TABLES
    #: `base = "FILE"` as written, and the file's text (None for an inline [scenario]).
    base_name: str | None = None
    base_text: str | None = None
    #: The work of the runs (ccbench.campaigns.planning.work): packets, and seconds on one core.
    work: tuple[float, float] = (0.0, 0.0)
    #: The file's `[about]` table (what a study measured, its source and published numbers).
    about: dict = field(default_factory=dict)

    @property
    def text_hash(self) -> str:
        return text_hash(self.text)

    @property
    def base_hash(self) -> str:
        """The base file's hash ("" for an inline [scenario]): part of a campaign directory's identity."""
        return "" if self.base_text is None else text_hash(self.base_text)

    def saved_text(self) -> str:
        """The text saved as a campaign directory's campaign.toml: the file's,
        with `base = "FILE"` made `base = "base.toml"` (SAVED_BASE, the copy
        of FILE saved beside it), so the directory holds all it reruns from.
        Unchanged for an inline [scenario], for a dict, and for a base line
        that cannot be rewritten safely (checked by reading the result back)."""
        if self.base_text is None or self.source == "<dict>":
            return self.text
        rewritten = _BASE_LINE.sub(lambda m: m.group(1) + f'"{SAVED_BASE}"', self.text, count=1)
        try:
            same = tomllib.loads(rewritten) == {**tomllib.loads(self.text), "base": SAVED_BASE}
        except tomllib.TOMLDecodeError:
            same = False
        return rewritten if same else self.text

    @property
    def factor_names(self) -> list[str]:
        return [f.name for f in self.factors]

    def level_order(self) -> dict[str, dict]:
        return level_positions({f.name: list(f.levels) for f in self.factors})

    def design(self) -> dict:
        return {
            "name": self.name,
            "repetitions": self.repetitions,
            "seed": self.seed,
            "factors": {f.name: list(f.levels) for f in self.factors},
            "excluded": self.excluded,
            "common_seeds": self.common_seeds,
            "random": {r.name: {"min": r.low, "max": r.high, "step": r.step, "unit": r.unit} for r in self.random},
            "keep_tables": self.keep_tables,
            "kept_tables": list(self.kept_tables),
            "analysis": self.analysis,
            "study": self.study,
            "about": self.about,
            "level_names": {
                f.name: {lv: t["name"] for lv, t in zip(f.levels, f.tables) if isinstance(t.get("name"), str)}
                for f in self.factors
                if f.named
            },
            "runs": len(self.runs),
        }


def level_positions(factors: Mapping[str, list]) -> dict[str, dict]:
    """Per factor: level (and its text) -> position in the file, to sort tables in the file's order."""
    out = {}
    for name, levels in factors.items():
        pos = {str(v): i for i, v in reversed(list(enumerate(levels)))}
        pos.update({v: i for i, v in reversed(list(enumerate(levels)))})
        out[name] = pos
    return out


def _quote(name: str) -> str:
    return f'"{name}"' if not re.match(r"^[A-Za-z0-9_-]+$", name) else name


def _table(raw: dict, key: str, source: str, allowed: str) -> dict:
    """raw[key] when it is a table (an empty one when absent); else the error naming `key`."""
    value = raw.get(key, {})
    if not isinstance(value, dict):
        raise CampaignFileError(source, key, f"{show(value)} is not allowed; expected {allowed}")
    return value


def read(campaign: str | Path | Mapping[str, Any], allow_large: bool = False) -> tuple[dict, str, str, Path]:
    """(raw dict, source name, text, folder for relative paths) of a campaign
    file path (str or Path), dict, or TOML text marked as
    ccbench.inputs.TomlText (the rule of ccbench.inputs). A file gets the
    checks of a scenario file first (ccbench.inputs: at most 1 MiB, UTF-8,
    dotted keys and nesting; `allow_large` raises the size limit). A file's
    text ends without QUICK_NOTE (the mark of a quick form's saved
    campaign.toml): the note is --quick's to add, so that file runs its full
    design without it."""
    if inputs.is_mapping(campaign):
        raw = inputs.plain(campaign)
        inputs.check_nesting(raw, "<dict>", CampaignFileError)
        return raw, "<dict>", canonical_json(raw), Path.cwd()
    if not inputs.is_text(campaign):
        path = inputs.file_path(campaign, "campaign")
        data = inputs.read_bytes(path, allow_large, "campaign", CampaignFileError)
        source, folder = str(path), path.resolve().parent
        text = inputs.decode(data, source, "campaign", CampaignFileError).removesuffix(QUICK_NOTE)
    else:
        source, folder = "<text>", Path.cwd()
        text = inputs.checked_text(str(campaign), allow_large, "campaign", CampaignFileError)
    return inputs.read_toml(text, source, CampaignFileError), source, text, folder


def _int_field(raw: dict, key: str, default: int, minimum: int, source: str, maximum: int | None = None) -> int:
    v = raw.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum or maximum is not None and v > maximum:
        allowed = f"an integer >= {minimum}" if maximum is None else f"an integer from {minimum} to {maximum}"
        raise CampaignFileError(source, key, f"{show(v)} is not allowed; expected {allowed}")
    return v


def _campaign_advice(detail: str) -> str:
    """A limit's message for a campaign: its way to lift the limits, not `ccbench run`'s option."""
    return detail.replace("--allow-large", ALLOW_LARGE_IN_FILE)


def _base(raw: dict, source: str, folder: Path, allow_large: bool) -> tuple[dict, Path, str | None]:
    """(base scenario, folder for its relative paths, the base file's text or None for an inline [scenario])."""
    has_base, has_inline = "base" in raw, "scenario" in raw
    if has_base == has_inline:
        raise CampaignFileError(
            source,
            "base",
            'give exactly one base scenario: base = "FILE.toml" (relative to this file) or an inline [scenario] table'
            + ("; both are given" if has_base else ""),
        )
    if has_inline:
        if not isinstance(raw["scenario"], dict):
            raise CampaignFileError(source, "scenario", f"{show(raw['scenario'])} is not allowed; expected a table")
        return copy.deepcopy(raw["scenario"]), folder, None
    name = raw["base"]
    if not isinstance(name, str):
        raise CampaignFileError(source, "base", f"{show(name)} is not allowed; expected a file name")
    path = Path(name) if Path(name).is_absolute() else folder / name
    try:
        scenario, _ = read_scenario(path, allow_large)
        text = path.read_text(encoding="utf-8")  # read_scenario has checked it is UTF-8
    except ScenarioFileError as e:
        detail = _campaign_advice(e.detail)
        raise CampaignFileError(source, "base", f'"{name}": {e.path + ": " if e.path else ""}{detail}') from None
    except OSError as e:
        raise CampaignFileError(source, "base", f'"{name}": cannot read the file: {e.strerror}') from None
    return scenario, path.resolve().parent, text


def _factors(raw: dict, source: str) -> list[Factor]:
    table = raw.get("factors", {})
    if not isinstance(table, dict):
        raise CampaignFileError(source, "factors", "expected a table of field path = [levels]")
    out = []
    for name, levels in table.items():
        where = f"factors.{_quote(name)}"
        if name in RESERVED_COLUMNS:
            raise CampaignFileError(
                source,
                where,
                f"'{name}' is a column of the result tables; allowed: a scenario field path or another name",
            )
        if isinstance(levels, dict):
            if not levels or not all(isinstance(v, dict) for v in levels.values()):
                raise CampaignFileError(
                    source, where, "a named factor is a table of level = { scenario fields }, with at least one level"
                )
            out.append(Factor(name, tuple(levels), tables=tuple(levels.values())))
            continue
        if not isinstance(levels, list) or not levels:
            raise CampaignFileError(
                source, where, f"{show(levels)} is not allowed; expected a non-empty list of levels"
            )
        try:
            path = tuple(parse_path(name))
        except ValueError as e:
            raise CampaignFileError(source, where, str(e)) from None
        for i, v in enumerate(levels):
            if not isinstance(v, (str, int, float, bool)) or isinstance(v, float) and not math.isfinite(v):
                raise CampaignFileError(
                    source, f"{where}[{i}]", f"{show(v)} is not allowed; a level is a string, number or boolean"
                )
        # The same level twice: equal values of the same type (canonical_json's identity for scalars).
        if len({(type(v), v) for v in levels}) != len(levels):
            raise CampaignFileError(source, where, f"{show(levels)}: a level is repeated")
        out.append(Factor(name, tuple(levels), path=path))
    if not out:
        raise CampaignFileError(
            source,
            "factors",
            "at least one factor is needed: the report compares its levels "
            '(repetitions of one scenario: a factor of one level, such as "flows[0].cc" = ["cubic"])',
        )
    return out


def _excluded(raw: dict, factors: list[Factor], source: str) -> list[dict]:
    rules = raw.get("exclude", [])
    if not isinstance(rules, list):
        raise CampaignFileError(source, "exclude", "expected [[exclude]] tables of factor = level")
    by_name = {f.name: f for f in factors}
    for i, rule in enumerate(rules):
        if not isinstance(rule, dict) or not rule:
            raise CampaignFileError(source, f"exclude[{i}]", "expected a table of factor = level")
        for k, v in rule.items():
            if k not in by_name:
                raise CampaignFileError(
                    source, f"exclude[{i}].{_quote(k)}", f"not a factor; factors: {', '.join(by_name) or 'none'}"
                )
            if not is_level_of(v, by_name[k].levels):
                allowed = ", ".join(show(x) for x in by_name[k].levels)
                raise CampaignFileError(
                    source, f"exclude[{i}].{_quote(k)}", f"{show(v)} is not a level; levels: {allowed}"
                )
    return rules


#: The bounds of a [random] field: far beyond any scenario value in its unit (a rate of 1e15 bit/s),
#: so the draw's arithmetic stays exact and finite.
MAX_RANDOM_MAGNITUDE = 1e15
#: The smallest step of a [random] field: drawn values are rounded to 9 decimals.
MIN_RANDOM_STEP = 1e-9
#: A [random] field's unit: a unit word such as ms, Mbit or KB, appended to the number.
_UNIT = re.compile(r"^[A-Za-z%/]{0,16}$")


def _random_number(spec: dict, key: str, where: str, source: str) -> float:
    v = spec[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not abs(v) <= MAX_RANDOM_MAGNITUDE:
        raise CampaignFileError(
            source,
            f"{where}.{key}",
            f"{show(v)} is not allowed; a number from {-MAX_RANDOM_MAGNITUDE:g} to {MAX_RANDOM_MAGNITUDE:g}",
        )
    return float(v)


def _random(raw: dict, source: str) -> list[RandomField]:
    table = _table(raw, "random", source, "a table of field path = { min, max, step, unit }")
    out = []
    for name, spec in table.items():
        where = f"random.{_quote(name)}"
        allowed = 'expected { min = NUMBER, max = NUMBER, step = NUMBER, unit = "ms" } (step and unit optional)'
        if not isinstance(spec, dict) or set(spec) - {"min", "max", "step", "unit"} or not {"min", "max"} <= set(spec):
            raise CampaignFileError(source, where, f"{show(spec)} is not allowed; {allowed}")
        try:
            path = tuple(parse_path(name))
        except ValueError as e:
            raise CampaignFileError(source, where, f"{e}; {allowed}") from None
        low, high = _random_number(spec, "min", where, source), _random_number(spec, "max", where, source)
        step = _random_number(spec, "step", where, source) if "step" in spec else 0.0
        if not low <= high:
            raise CampaignFileError(source, where, f"min {low:g} is above max {high:g}; {allowed}, min <= max")
        if step != 0 and not MIN_RANDOM_STEP <= step:
            raise CampaignFileError(
                source,
                f"{where}.step",
                f"{show(spec['step'])} is not allowed; 0 (none) or from {MIN_RANDOM_STEP:g} "
                "(values are rounded to 9 decimals)",
            )
        unit = spec.get("unit", "")
        if not isinstance(unit, str) or not _UNIT.match(unit):
            raise CampaignFileError(
                source, f"{where}.unit", f'{show(unit)} is not allowed; a unit such as "ms" or "Mbit" (letters)'
            )
        out.append(RandomField(name, path, low, high, step, unit))
    return out


def _analysis(raw: dict, factors: list[Factor], source: str) -> dict:
    from ccbench.campaigns.analysis import OBJECTIVES

    allowed_keys = ("compare", "objective", "margin")
    table = _table(raw, "analysis", source, f"a table with any of {', '.join(allowed_keys)}")
    for k in table:
        if k not in allowed_keys:
            raise CampaignFileError(source, f"analysis.{k}", f"unknown field; allowed: {', '.join(allowed_keys)}")
    out = {}
    if "compare" in table:
        if not isinstance(table["compare"], str) or table["compare"] not in [f.name for f in factors]:
            names = ", ".join(f.name for f in factors)
            raise CampaignFileError(
                source, "analysis.compare", f"{show(table['compare'])} is not a factor; factors: {names}"
            )
        out["compare"] = table["compare"]
    if "objective" in table:
        if not isinstance(table["objective"], str) or table["objective"] not in OBJECTIVES:
            raise CampaignFileError(
                source,
                "analysis.objective",
                f"{show(table['objective'])} is not allowed; one of {', '.join(OBJECTIVES)}",
            )
        out["objective"] = table["objective"]
    if "margin" in table:
        m = table["margin"]
        if isinstance(m, bool) or not isinstance(m, (int, float)) or not 0 <= m < 1:
            raise CampaignFileError(
                source, "analysis.margin", f"{show(m)} is not allowed; a fraction from 0 to below 1 (0.05 = 5%)"
            )
        out["margin"] = float(m)
    return out


def _about(raw: dict, source: str) -> dict:
    """The `[about]` table: what the campaign (a study) measured and its source, as text, and the
    study's own published numbers (`reference`, a table the study's report reads)."""
    from ccbench.campaigns.studies import ABOUT_FIELDS

    about = raw.get("about", {})
    if not isinstance(about, dict):
        raise CampaignFileError(source, "about", f"{show(about)} is not allowed; expected a table")
    allowed = (*ABOUT_FIELDS, "reference")
    for k, v in about.items():
        if k not in allowed:
            raise CampaignFileError(source, f"about.{_quote(k)}", f"unknown field; allowed: {', '.join(allowed)}")
        if k == "reference" and not isinstance(v, dict):
            raise CampaignFileError(source, "about.reference", f"{show(v)} is not allowed; expected a table")
        if k != "reference" and not isinstance(v, str):
            raise CampaignFileError(source, f"about.{k}", f"{show(v)} is not allowed; expected a string")
    return about


def _study(raw: dict, factors: list[str], source: str) -> str | None:
    from ccbench.campaigns.studies import STUDIES

    if "study" not in raw:
        return None
    name = raw["study"]
    if not isinstance(name, str) or name not in STUDIES:
        raise CampaignFileError(source, "study", f"{show(name)} is not allowed; one of {', '.join(STUDIES)}")
    # The study's report section reads the factors of its shipped file: a campaign without them
    # would run every run and then fail to draw its report.
    shipped = tomllib.loads(STUDIES[name].text()).get("factors", {})
    missing = [f for f in shipped if f not in factors]
    if missing:
        raise CampaignFileError(
            source,
            "study",
            f"{show(name)}: the study's report needs its factors {', '.join(_quote(f) for f in shipped)}; "
            f"this campaign lacks {', '.join(_quote(f) for f in missing)} (drop study = ... for an ordinary report)",
        )
    return name


def _is_excluded(levels: dict, rules: list[dict]) -> bool:
    return any(all(same_level(v, levels[k]) for k, v in rule.items()) for rule in rules)


def _scenario_error(
    source: str, e: ScenarioFileError, factors: list[Factor], levels: dict, idx: tuple
) -> CampaignFileError:
    """Names the factor level that made the scenario invalid when the field path is a factor's;
    `scenario_detail` keeps the scenario's own words (for recommend, which has no campaign file)."""
    detail = _campaign_advice(e.detail)
    for f, i in zip(factors, idx):
        if not f.named and e.path:
            pattern = re.escape(f.name).replace(r"\[\*\]", r"\[\d+\]")
            if re.match(f"^{pattern}(\\.|\\[|$)", e.path):
                return CampaignFileError(
                    source, f"factors.{_quote(f.name)}[{i}]", f"level {show(f.levels[i])}: {e.path}: {detail}"
                )
    combo = ", ".join(f"{k} = {show(v)}" for k, v in levels.items())
    where = f"scenario.{e.path}" if e.path else "scenario"
    return CampaignFileError(source, where, f"{detail} (with {combo or 'the base scenario'})", e.detail)


def parse(campaign: str | Path | Mapping[str, Any], allow_large: bool = False) -> Campaign:
    """Reads and checks a campaign (file path, TOML text or dict) and plans
    every run, validating each run's scenario with the simulator's own
    checks, within the limits of ccbench.limits and
    ccbench.campaigns.planning (`allow_large` lifts them, as the file's
    `allow_large = true` does). Raises CampaignFileError."""
    return parse_raw(*read(campaign, allow_large), allow_large=allow_large)


def parse_study(campaign: str | Path | Mapping[str, Any], quick: bool = False, allow_large: bool = False) -> Campaign:
    """`parse`, or with `quick` the file's [quick] reduction (ccbench.campaigns.quick) of the design."""
    if not quick:
        return parse(campaign, allow_large)
    from ccbench.campaigns.quick import reduce

    parse(campaign, allow_large)  # checks the whole file, [quick] included
    raw, source, text, folder = read(campaign, allow_large)
    return parse_raw(reduce(raw), source, text + QUICK_NOTE, folder, allow_large=allow_large)


def parse_raw(
    raw: dict, source: str, text: str, folder: Path, planned: Sequence[Run] = (), allow_large: bool = False
) -> Campaign:
    """`parse` of a campaign already read (`read`), e.g. changed by `ccbench
    compare`. `planned`: runs of this same campaign planned before with fewer
    repetitions (run_until_decided's earlier round), taken as they are
    instead of being validated again. `allow_large`: lifts the limits as the
    file's `allow_large = true` does."""
    already = {r.key: r for r in planned}
    for k in raw:
        if k not in TOP_LEVEL_KEYS:
            raise CampaignFileError(source, k, f"unknown field; allowed: {', '.join(TOP_LEVEL_KEYS)}")
    name = raw.get("name", Path(source).stem if not source.startswith("<") else "campaign")
    if not isinstance(name, str):
        raise CampaignFileError(source, "name", f"{show(name)} is not allowed; expected a string")
    repetitions = _int_field(raw, "repetitions", 1, 1, source)
    seed = _int_field(raw, "seed", 1, 0, source, MAX_SEED)
    in_file = raw.get("allow_large", False)
    if not isinstance(in_file, bool):
        raise CampaignFileError(source, "allow_large", f"{show(in_file)} is not allowed; true or false")
    allow_large = allow_large or in_file
    base, base_dir, base_text = _base(raw, source, folder, allow_large)
    factors = _factors(raw, source)
    excluded = _excluded(raw, factors, source)
    common = raw.get("common_seeds", [])
    if not isinstance(common, list):
        raise CampaignFileError(source, "common_seeds", f"{show(common)} is not allowed; expected a list of factors")
    for i, c in enumerate(common):
        if not isinstance(c, str) or c not in [f.name for f in factors]:
            names = ", ".join(f.name for f in factors)
            raise CampaignFileError(source, f"common_seeds[{i}]", f"{show(c)} is not a factor; factors: {names}")
    random_fields = _random(raw, source)
    keep = raw.get("keep_tables", "first")
    if not isinstance(keep, str) or keep not in KEEP_TABLES:
        raise CampaignFileError(source, "keep_tables", f"{show(keep)} is not allowed; one of {', '.join(KEEP_TABLES)}")
    kept_tables = _kept_tables(raw, source)
    analysis = _analysis(raw, factors, source)
    study = _study(raw, [f.name for f in factors], source)
    about = _about(raw, source)
    from ccbench.campaigns.quick import check as check_quick

    check_quick(raw, factors, source)
    size = planning.design_size([f.levels for f in factors], [f.name for f in factors], repetitions)
    if not allow_large and (why := planning.design_refusal(size)):
        raise CampaignFileError(source, "", why)

    ordered = [f for f in factors if f.named] + [f for f in factors if not f.named]
    runs: list[Run] = []
    for idx in itertools.product(*(range(len(f.levels)) for f in factors)):
        levels = {f.name: f.levels[i] for f, i in zip(factors, idx)}
        if _is_excluded(levels, excluded):
            continue
        combo = copy.deepcopy(base)
        combo.setdefault("seed", seed)
        for f in ordered:
            try:
                combo = f.apply(combo, idx[factors.index(f)])
            except ValueError as e:
                raise CampaignFileError(source, f"factors.{_quote(f.name)}", str(e)) from None
        seed_levels = {k: v for k, v in levels.items() if k not in common}
        # Without random fields the repetitions of a combination differ in
        # their seed alone, which changes nothing else of the normalized
        # scenario: the combination is read and checked once (with a trace,
        # that is most of the planning).
        checked: dict | None = None
        for rep in range(repetitions):
            key = run_key(levels, rep)
            if (before := already.get(key)) is not None:
                runs.append(replace(before, index=len(runs)))
                continue
            s = run_seed(seed, seed_levels, rep)
            if checked is not None:
                runs.append(Run(len(runs), key, levels, rep, s, {**copy.deepcopy(checked), "seed": s}))
                continue
            scenario_raw = combo
            if random_fields:
                scenario_raw = copy.deepcopy(combo)
                rng = np.random.default_rng([s, 7])
                for r in random_fields:
                    try:
                        r.draw(scenario_raw, rng)
                    except (ValueError, KeyError, TypeError) as e:
                        raise CampaignFileError(source, f"random.{_quote(r.name)}", str(e)) from None
            try:
                normalized = load_scenario(
                    copy.deepcopy(scenario_raw), seed=s, base_dir=base_dir, allow_large=allow_large
                )
            except ScenarioFileError as e:
                raise _scenario_error(source, e, factors, levels, idx) from None
            if not random_fields:
                checked = normalized
            runs.append(Run(len(runs), key, levels, rep, s, normalized))
    if not runs:
        raise CampaignFileError(source, "exclude", "every combination is excluded: nothing to run")
    from ccbench.campaigns.estimate import run_cost

    work = planning.work([run_cost(r.scenario) for r in runs])
    if not allow_large and (why := planning.work_refusal(len(runs), work[0])):
        raise CampaignFileError(source, "", why)
    return Campaign(
        name,
        source,
        text,
        repetitions,
        seed,
        factors,
        excluded,
        list(common),
        random_fields,
        keep,
        analysis,
        runs,
        study,
        kept_tables,
        raw["base"] if base_text is not None else None,
        base_text,
        work,
        about,
    )


def _kept_tables(raw: dict, source: str) -> tuple[str, ...]:
    """`kept_tables`: the names of the tables saved of a kept run, in TABLES'
    order (default: all of them)."""
    kept = raw.get("kept_tables", list(TABLES))
    if not isinstance(kept, list) or not kept:
        raise CampaignFileError(source, "kept_tables", f"{show(kept)} is not allowed; expected a list of table names")
    for i, name in enumerate(kept):
        if not isinstance(name, str) or name not in TABLES:
            allowed = ", ".join(TABLES)
            raise CampaignFileError(source, f"kept_tables[{i}]", f"{show(name)} is not a table; one of {allowed}")
    return tuple(t for t in TABLES if t in kept)
