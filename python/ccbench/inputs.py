"""What a scenario or campaign argument is: a file, a dict, or TOML text.

One rule for ccbench.run, ccbench.campaign, ccbench.emulate and the loaders
under them (ccbench.scenario.read, ccbench.campaigns.spec.read): a
pathlib.Path or a str names a file (a missing file is an error naming the
path), a mapping is the scenario or campaign itself, and TOML text is taken
only when marked as text: `TomlText(text)`, which `ccbench.run_toml(text)`
applies. A file name is never guessed to be text (nor text a file name) from
how it looks, so `ccbench.run("x.cfg")` reads x.cfg.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ccbench.traces import Opportunities

#: The types of numbers that are plain already.
PLAIN_NUMBERS = (int, float)


class TomlText(str):
    """A str that is TOML text, not the name of a file."""


#: How to give TOML text, per kind of input, for the hint of a missing "file" named like TOML text.
TEXT_WAYS = {"scenario": "ccbench.run_toml(text) or ccbench.TomlText(text)", "campaign": "ccbench.TomlText(text)"}


def file_path(value: Any, what: str) -> Path:
    """`value` (neither a mapping nor TomlText) as the path of a file; a
    TypeError names the kinds accepted for `what` ("scenario", "campaign")."""
    if isinstance(value, (str, Path)) and not isinstance(value, TomlText):
        return Path(value)
    raise TypeError(
        f"a {what} is a file path (str or pathlib.Path), a dict, or TOML text marked as "
        f"ccbench.TomlText(text); got {type(value).__name__}"
    )


def is_text(value: Any) -> bool:
    return isinstance(value, TomlText)


def is_mapping(value: Any) -> bool:
    return isinstance(value, Mapping)


def plain(value: Any, max_depth: int = 64) -> Any:
    """A scenario or campaign given as a dict, with what a notebook hands
    over turned into plain Python values: NumPy scalars and arrays (from
    np.arange, a DataFrame's cells) into numbers, bools, str and lists, a
    tuple into a list, every mapping into a new dict (the caller's is never
    changed). Without recursion; below `max_depth` levels values are left
    as they are, for the nesting check that follows to refuse."""
    root = [value]
    stack = [(root, 0, 0)]
    while stack:
        holder, key, depth = stack.pop()
        v = holder[key]
        if isinstance(v, Mapping):
            holder[key] = v = dict(v)
            children = list(v)
        elif isinstance(v, Opportunities):  # plain whole numbers, shared and never changed
            continue
        elif isinstance(v, (list, tuple)):
            holder[key] = v = list(v)
            if all(type(x) in PLAIN_NUMBERS for x in v):
                continue  # a trace's hundreds of thousands of numbers are not walked one by one
            children = range(len(v))
        else:
            if type(v).__module__ == "numpy" and hasattr(v, "tolist"):
                holder[key] = v.tolist()
            continue
        if depth < max_depth:
            stack.extend((v, k, depth + 1) for k in children)
    return root[0]


def missing_file_hint(name: str, what: str) -> str:
    """How to give TOML text, when a `what` file that could not be read is
    named like TOML text (a newline or '='); else ""."""
    if "\n" in name or "=" in name:
        return f"; to give TOML text instead of a file name, use {TEXT_WAYS[what]}"
    return ""
