"""The listings of `ccbench algorithms`, `profiles` and `kernels`: selecting
entries by name, and printing each entry as a block that wraps at the
terminal's width (80 columns included) without cutting a name.
"""

from __future__ import annotations

from rich.console import Console, Group
from rich.padding import Padding
from rich.text import Text

from ccbench._ccsim import did_you_mean


class UnknownNameError(ValueError):
    """A name that selects no entry (the message has a did-you-mean hint)."""


def select(entries: list[dict], queries: list[str], what: str) -> list[dict]:
    """The entries named by `queries` (each an exact name, else every name
    containing it, case-insensitive), in listing order; every entry for no
    query. Raises UnknownNameError for a query that selects nothing."""
    if not queries:
        return entries
    names = [e["name"] for e in entries]
    chosen: set[str] = set()
    for q in queries:
        exact = [n for n in names if n.lower() == q.lower()]
        matches = exact or [n for n in names if q.lower() in n.lower()]
        if not matches:
            raise UnknownNameError(f"no {what} named '{q}'{did_you_mean(q, names)}; known: {', '.join(names)}")
        chosen.update(matches)
    return [e for e in entries if e["name"] in chosen]


def _indented(text: str, spaces: int = 2) -> Padding:
    """`text` wrapped at word boundaries, every line indented (a hanging block)."""
    return Padding(Text(text, overflow="fold"), (0, 0, 0, spaces), expand=False)


def param_line(p: dict) -> str:
    """One parameter of `ccbench algorithms`: name = default (kind, range): doc."""
    if p["kind"] == "boolean":
        return f"{p['name']} = {int(p['default'])} (boolean: 0 or 1): {p['doc']}"
    return f"{p['name']} = {p['default']:g} ({p['kind']}, {p['min']:g}..{p['max']:g}): {p['doc']}"


def print_algorithms(console: Console, algorithms: list[dict]) -> None:
    for a in algorithms:
        console.print(
            Group(
                Text.assemble((a["name"], "bold"), "  ", a["reference"]),
                _indented(a["summary"]),
                _indented("parameters (default, kind, range):" if a["params"] else "parameters: none"),
                *(_indented(param_line(p), 4) for p in a["params"]),
            )
        )
        console.print()


def print_profiles(console: Console, profiles: list[dict]) -> None:
    for p in profiles:
        lines = [Text(p["name"], style="bold"), _indented(p["description"])]
        if p["parameters"]:
            lines.append(_indented("parameters:"))
            lines += [_indented(f"{k} = {v}", 4) for k, v in p["parameters"].items()]
        if p["options"]:
            lines.append(_indented("options (default; allowed):"))
            lines += [
                _indented(f"{k} = {o['default']!r} ({', '.join(map(str, o['allowed']))}): {o['doc']}", 4)
                for k, o in p["options"].items()
            ]
        if p["sources"]:
            lines.append(_indented("sources:"))
            lines += [_indented(f"• {s}", 4) for s in p["sources"]]
        console.print(Group(*lines))
        console.print()


def print_kernels(console: Console, presets: list[dict], not_modelled: list) -> None:
    for k in presets:
        lines = [Text(k["name"], style="bold")]
        if not k["sets"]:
            lines.append(_indented("sets nothing: ccbench's defaults are today's Linux"))
        for field, value, source in k["sets"]:
            lines.append(_indented(f"{field} = {value}"))
            lines.append(_indented(f"source: {source}", 6))
        console.print(Group(*lines))
        console.print()
    console.print(Text("Not modelled (every preset runs ccbench's modern behaviour there)", style="bold"))
    for name, note in not_modelled:
        console.print(_indented(f"{name}: {note}"))
