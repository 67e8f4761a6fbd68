"""The commands about input files: `new` (alias `init`: a starter scenario),
`schema` (the JSON Schema of scenario files) and `validate` (check a
scenario, campaign or study file without running it).
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from ccbench.cli import common
from ccbench.cli.common import ALLOW_LARGE_HELP, EXIT_BAD_SCENARIO, _load_or_exit, _parse_or_exit, console
from ccbench.limits import SHOWN_PATH_CHARS, shown


def new_cmd(
    path: Path = typer.Argument(Path("scenario.toml"), help="File to write (a directory: scenario.toml in it)."),
    force: bool = typer.Option(False, help="Replace an existing file."),
):
    """Write a commented starter scenario to edit and run (alias: init)."""
    from ccbench import starter

    try:
        written = starter.write(path, force)
    except starter.StarterExistsError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO) from None
    except OSError as e:
        typer.echo(f"error: cannot write {shown(str(path), SHOWN_PATH_CHARS)}: {e.strerror}", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO) from None
    typer.echo(str(written) if common.verbosity < 0 else f"Wrote {written}; run it with: ccbench run {written}")


def schema_cmd():
    """Print the JSON Schema of scenario files (for editors: see the README)."""
    from ccbench.json_schema import scenario_schema_text

    typer.echo(scenario_schema_text(), nl=False)


#: Top-level keys that only a campaign (or study) file has; a scenario file has none of them.
CAMPAIGN_ONLY_KEYS = ("factors", "scenario", "base", "repetitions", "study")


def _file_kind(path: Path) -> str:
    """ "scenario", "campaign" or "study", by the file's top-level keys, read
    with the input checks every file gets (ccbench.inputs: size, encoding,
    dotted keys, nesting); a file they refuse is left to the scenario loader,
    which says why."""
    from ccbench import inputs

    class Refused(Exception):
        pass

    def refuse(source: str, where: str, detail: str) -> Exception:
        return Refused(detail)

    try:
        text = inputs.decode(inputs.read_bytes(path, False, "scenario", refuse), str(path), "scenario", refuse)
        raw = inputs.read_toml(text, str(path), refuse)
    except Refused:
        return "scenario"
    if "study" in raw:
        return "study"
    return "campaign" if any(k in raw for k in CAMPAIGN_ONLY_KEYS) else "scenario"


def validate(
    file: Path = typer.Argument(..., help="Scenario, campaign or study file (TOML)."),
    allow_large: bool = typer.Option(False, help=ALLOW_LARGE_HELP),
):
    """Check a scenario, campaign or study file without running it, and say which kind it is."""
    kind = _file_kind(file)
    if kind != "scenario":
        from ccbench.campaigns import spec

        parsed = _parse_or_exit(lambda: spec.parse(file, allow_large))
        conditions = len({tuple(sorted(map(str, r.levels.items()))) for r in parsed.runs})
        what = f"a study file ({parsed.study})" if kind == "study" else "a campaign file"
        console.print(
            escape(
                f"{file}: OK, {what}: {len(parsed.factors)} factor(s), {conditions} condition(s) x "
                f"{parsed.repetitions} repetition(s) = {len(parsed.runs)} runs"
            ),
            soft_wrap=True,
            highlight=False,
        )
        return
    from ccbench.limits import estimate
    from ccbench.scenario import summary

    s = _load_or_exit(file, allow_large=allow_large)
    console.print(
        escape(f"{file}: OK, a scenario file ({summary(s)}; about {estimate(s)['packets']:.3g} packets)"),
        soft_wrap=True,
        highlight=False,
    )
