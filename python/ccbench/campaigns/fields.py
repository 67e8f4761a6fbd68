"""The vocabulary a campaign file is written in, shared by its parts (the
design in ccbench.campaigns.spec, the [quick] reduction in
ccbench.campaigns.quick): field paths such as 'flows[0].cc', what makes a
value one of a factor's levels, how a value is shown in a message, and the
error that names the field.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Sequence
from typing import Any

from ccbench import limits

_SEGMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)((?:\[(?:\d+|\*)\])*)$")
_INDEX = re.compile(r"\[(\d+|\*)\]")


class CampaignFileError(ValueError):
    """A campaign that cannot run: `source` (file or '<dict>'), `path` (field
    path in the campaign file, such as 'factors."flows[0].cc"[1]') and `detail`;
    `scenario_detail`: for an error of the base scenario, its detail without
    the levels it was built with (which `detail` names)."""

    def __init__(self, source: str, path: str, detail: str, scenario_detail: str | None = None):
        self.source, self.path, self.detail = source, path, limits.one_line(detail)
        self.scenario_detail = scenario_detail
        super().__init__(limits.one_line(f"{source}: {path + ': ' if path else ''}{detail}"))


def parse_path(text: str) -> list[str | int]:
    """'flows[0].cc' -> ['flows', 0, 'cc']; '[*]' is the string '*'. ValueError if malformed."""
    tokens: list[str | int] = []
    for part in text.split("."):
        m = _SEGMENT.match(part)
        if not m:
            raise ValueError(f'"{text}" is not a field path such as "downlink.rate" or "flows[0].cc"')
        tokens.append(m.group(1))
        for idx in _INDEX.findall(m.group(2)):
            tokens.append("*" if idx == "*" else int(idx))
    return tokens


def set_path(target: dict, tokens: list[str | int], value: Any, where: str = "") -> None:
    """Sets a field path in a raw scenario, creating missing tables; '*'
    sets every element of a list. ValueError naming the missing element."""
    head, rest = tokens[0], tokens[1:]
    where = f"{where}[{head}]" if isinstance(head, int) or head == "*" else (f"{where}.{head}" if where else head)
    if head == "*" or isinstance(head, int):
        if not isinstance(target, list):
            raise ValueError(f"{where}: the base scenario has no list here")
        if head == "*":
            indices = range(len(target))
        elif head < len(target):
            indices = range(head, head + 1)
        else:
            raise ValueError(f"{where}: the base scenario has only {len(target)} element(s) here")
        for i in indices:
            if rest:
                set_path(target[i], rest, value, f"{where[: where.rfind('[')]}[{i}]")
            else:
                target[i] = copy.deepcopy(value)
        return
    if not isinstance(target, dict):
        raise ValueError(f"{where}: the base scenario has no table here")
    if not rest:
        target[head] = copy.deepcopy(value)
        return
    nxt = rest[0]
    if head not in target or target[head] is None:
        if isinstance(nxt, int) or nxt == "*":
            raise ValueError(f"{where}: the base scenario has no list '{head}'")
        target[head] = {}
    set_path(target[head], rest, value, where)


def show(value: Any) -> str:
    """A value as a message shows it: JSON for a scalar, cut to limits.SHOWN_CHARS."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"an integer of about {int(value.bit_length() * math.log10(2)) + 1} digits"
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):  # a date, or an integer of thousands of digits inside a list
        text = repr(value)
    return limits.shown(text, limits.SHOWN_CHARS * 2)


def same_level(a: Any, b: Any) -> bool:
    """Whether `a` names the level `b`: equal values of the same kind (true is not the level 1, as
    Python's True == 1 would have it; 1 and 1.0 are the same number)."""
    return isinstance(a, bool) == isinstance(b, bool) and isinstance(a, str) == isinstance(b, str) and a == b


def is_level_of(value: Any, levels: Sequence) -> bool:
    return any(same_level(value, level) for level in levels)
