"""The listings of `ccbench algorithms`, `profiles` and `kernels`: selecting
entries by name, and printing each entry as a block that wraps at the
terminal's width (80 columns included) without cutting a name.
"""

from __future__ import annotations

import textwrap

from rich.console import Console
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


def _indented(text: str, spaces: int = 2, width: int = 80) -> str:
    """`text` wrapped at word boundaries to `width`, every line indented by
    `spaces` (a hanging block); a word is never split."""
    pad = " " * spaces
    return textwrap.fill(
        text, width, initial_indent=pad, subsequent_indent=pad, break_long_words=False, break_on_hyphens=False
    )


def _print_block(console: Console, title: str, detail: str, lines: list[tuple[str, int]]) -> None:
    """An entry: its name in bold and `detail` on the first line, then each
    (text, indent) line wrapped to the console's width, then a blank line."""
    width = console.width
    head = textwrap.fill(
        f"{title}  {detail}" if detail else title,
        width,
        subsequent_indent="  ",
        break_long_words=False,
        break_on_hyphens=False,
    )
    console.print(Text(title, style="bold") + Text(head[len(title) :]), highlight=False, soft_wrap=True)
    for text, spaces in lines:
        console.print(_indented(text, spaces, width), markup=False, highlight=False, soft_wrap=True)
    console.print()


def param_line(p: dict) -> str:
    """One parameter of `ccbench algorithms`: name = default (kind, range): doc."""
    if p["kind"] == "boolean":
        return f"{p['name']} = {int(p['default'])} (boolean: 0 or 1): {p['doc']}"
    return f"{p['name']} = {p['default']:g} ({p['kind']}, {p['min']:g}..{p['max']:g}): {p['doc']}"


#: What each role means to `ccbench recommend` (the role is the core's: cc::Role).
ROLE_TEXT = {
    "general": "general purpose",
    "scavenger": "scavenger (less than best effort): recommended only for background transfers",
    "datacenter": "datacenter only",
    "historical": "historical: superseded, shown for comparison, never recommended",
}


def role_line(a: dict) -> str:
    """`role: ...` of an algorithm, with what it requires of the path."""
    text = ROLE_TEXT.get(a["role"], a["role"])
    needs = {"ecn": "ECN marking at every queue"}
    if a["requires"]:
        text += "; requires " + ", ".join(needs.get(r, r) for r in a["requires"])
    return f"role: {text}"


def print_algorithms(console: Console, algorithms: list[dict]) -> None:
    for a in algorithms:
        lines = [(a["summary"], 2), (role_line(a), 2)]
        if "kernel_mode" in a:
            lines.append((f"kernel mode here: {a['kernel_mode']}", 2))
        lines.append(("parameters (default, kind, range):" if a["params"] else "parameters: none", 2))
        lines += [(param_line(p), 4) for p in a["params"]]
        _print_block(console, a["name"], a["reference"], lines)


def print_profiles(console: Console, profiles: list[dict]) -> None:
    for p in profiles:
        lines = [(p["description"], 2)]
        if p.get("table"):
            lines.append(("parameters (field = value: source, or ASSUMED and what moves with it):", 2))
            for row in p["table"]:
                lines.append((f"{row['field']} = {row['value']}", 4))
                if row["source"]:
                    lines.append((f"source: {row['source']}", 8))
                elif row["assumed"]:
                    lines.append((f"ASSUMED: {row['assumed']}", 8))
                else:
                    lines.append(("NO ENTRY: this profile gives no source for it", 8))
                if row["sensitivity"]:
                    lines.append((f"sensitivity: {row['sensitivity']}", 8))
        elif p["parameters"]:
            lines += [("parameters:", 2)] + [(f"{k} = {v}", 4) for k, v in p["parameters"].items()]
        if p.get("nominal"):
            lines.append((f"nominal: {', '.join(f'{k} {v}' for k, v in p['nominal'].items())}", 2))
        if p["options"]:
            lines.append(("options (default; allowed):", 2))
            lines += [
                (f"{k} = {o['default']!r} ({', '.join(map(str, o['allowed']))}): {o['doc']}", 4)
                for k, o in p["options"].items()
            ]
        if p["sources"]:
            lines += [("sources:", 2)] + [(f"- {s}", 4) for s in p["sources"]]
        _print_block(console, p["name"], "", lines)


def print_kernels(console: Console, presets: list[dict], not_modelled: list) -> None:
    for k in presets:
        lines = [] if k["sets"] else [("sets nothing: ccbench's defaults are today's Linux", 2)]
        for field, value, source in k["sets"]:
            lines += [(f"{field} = {value}", 2), (f"source: {source}", 6)]
        _print_block(console, k["name"], "", lines)
    notes = [(f"{name}: {note}", 2) for name, note in not_modelled]
    _print_block(console, "Not modelled", "(every preset runs ccbench's modern behaviour there)", notes)
