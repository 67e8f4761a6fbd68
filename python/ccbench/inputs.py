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

import os
import re
import stat
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import tomllib

from ccbench import limits
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


# The checks every input file gets before anything parses it further (scenario
# and campaign files alike): size, encoding, dotted-key length, nesting. Each
# raises `error(source, path, detail)` (ScenarioFileError or CampaignFileError),
# so both kinds of file give the same one-line refusals.
ErrorType = Callable[[str, str, str], Exception]


def max_bytes(allow_large: bool) -> int:
    """The largest input file (MAX_SCENARIO_BYTES, LARGE_FACTOR times that with `allow_large`)."""
    return limits.MAX_SCENARIO_BYTES * (limits.LARGE_FACTOR if allow_large else 1)


def read_bytes(path: Path, allow_large: bool, what: str, error: ErrorType) -> bytes:
    """A `what` file's bytes: a regular file (opened without waiting on a
    FIFO) of at most max_bytes, read no further than that."""
    source, limit = str(path), max_bytes(allow_large)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except (OSError, ValueError) as e:  # ValueError: a NUL in the name
        shown = limits.shown(source, limits.SHOWN_PATH_CHARS)
        reason = getattr(e, "strerror", None) or "not a file name"
        raise error(shown, "", f"cannot read the file: {reason}{missing_file_hint(source, what)}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise error(source, "", "not a regular file")
    with os.fdopen(fd, "rb") as f:
        try:
            data = f.read(limit + 1)
        except OSError as e:
            raise error(source, "", f"cannot read the file: {e.strerror}") from None
    if len(data) > limit:
        hint = "" if allow_large else " (--allow-large raises it)"
        raise error(source, "", f"the file is larger than the limit of {limit} bytes{hint}")
    return data


def decode(data: bytes, source: str, what: str, error: ErrorType) -> str:
    """UTF-8 text (a leading byte-order mark is skipped); a clean error naming
    the line for other bytes (Latin-1, UTF-16) or a NUL."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise error(source, f"line {line}", f"not a UTF-8 text file (a TOML {what} is UTF-8 text)") from None
    nul = text.find("\0")
    if nul >= 0:
        raise error(source, f"line {text.count(chr(10), 0, nul) + 1}", f"a NUL character; a {what} is text")
    return text


def checked_text(text: str, allow_large: bool, what: str, error: ErrorType) -> str:
    """TOML text given as text (TomlText): the same size and encoding checks as a file's."""
    if len(text) > max_bytes(allow_large):
        raise error("<text>", "", f"{len(text)} characters is more than the limit of {max_bytes(allow_large)}")
    return decode(text.encode("utf-8", "surrogatepass"), "<text>", what, error)


#: A key segment of TOML: bare, "basic" or 'literal'.
_KEY_SEGMENT = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')"""
#: A dotted key of more than MAX_NESTING parts where a key may start: at a line's start, after
#: `[` (a table header) or after `{` or `,` (an inline table).
_LONG_DOTTED_KEY = re.compile(
    rf"(?:^|[\[{{,])[ \t]*(?:{_KEY_SEGMENT}[ \t]*\.[ \t]*){{{limits.MAX_NESTING},}}{_KEY_SEGMENT}", re.M
)
#: What opens a string or a comment in TOML (outside of one), and what ends each.
_OPENERS = re.compile(r"\"\"\"|'''|\"|'|#")
_CLOSERS = {
    '"""': re.compile(r'(?:[^"\\]|\\.|"(?!""))*"""', re.S),
    "'''": re.compile(r"(?:[^']|'(?!''))*'''"),
    '"': re.compile(r'(?:[^"\\\n]|\\.)*"'),
    "'": re.compile(r"[^'\n]*'"),
    "#": re.compile(r"[^\n]*"),
}


def _in_string_or_comment(text: str, position: int) -> bool:
    """Whether `position` of TOML text is inside a string or a comment (one pass from the start)."""
    i = 0
    while (m := _OPENERS.search(text, i)) is not None and m.start() <= position:
        end = _CLOSERS[m.group()].match(text, m.end())
        i = end.end() if end else len(text)
        if i > position:
            return True
    return False


def check_dotted_keys(text: str, source: str, error: ErrorType) -> None:
    """Refuses a dotted key of more than MAX_NESTING parts before tomllib reads
    it: tomllib's time and memory grow with the square of a dotted key's length
    (20,000 parts took 40 s and 1.5 GB), and nesting that deep is refused anyway."""
    for m in _LONG_DOTTED_KEY.finditer(text):
        start = m.start() + (m.group()[:1] in "[{,")
        if not _in_string_or_comment(text, start):
            line = text.count("\n", 0, start) + 1
            raise error(
                source,
                f"line {line}",
                f"a dotted key of more than {limits.MAX_NESTING + 1} parts: "
                f"nested deeper than {limits.MAX_NESTING} levels",
            )


def check_nesting(value: Any, source: str, error: ErrorType) -> None:
    """Refuses tables and arrays nested deeper than MAX_NESTING (checked
    without recursion, before anything recursive walks the value)."""
    stack = [(value, 0, "")]
    while stack:
        v, depth, path = stack.pop()
        if depth > limits.MAX_NESTING:
            raise error(source, limits.shown(path), f"nested deeper than {limits.MAX_NESTING} levels")
        if isinstance(v, dict):
            stack.extend((x, depth + 1, f"{path}.{k}" if path else str(k)) for k, x in v.items())
        elif isinstance(v, Opportunities):
            stack.extend((x, depth + 1, f"{path}[0]") for x in v[:1])  # numbers: the first stands for all
        elif isinstance(v, list):
            stack.extend((x, depth + 1, f"{path}[{i}]") for i, x in enumerate(v))


def read_toml(text: str, source: str, error: ErrorType) -> dict:
    """TOML text (checked by `decode`) as a dict: dotted keys and nesting
    checked, a syntax error naming its line and column."""
    check_dotted_keys(text, source, error)
    try:
        raw = tomllib.loads(text)
    except RecursionError:
        raise error(source, "", f"nested deeper than {limits.MAX_NESTING} levels") from None
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        path = ""
        if "(at " in msg and msg.endswith(")"):
            msg, _, where = msg.rpartition(" (at ")
            path = where[:-1]
        raise error(source, path, f"TOML syntax error: {msg}") from None
    check_nesting(raw, source, error)
    return raw
