"""The listings of what the simulator knows: `algorithms`, `kernels` (kernel
presets) and `profiles` (network profiles), as text or JSON.
"""

from __future__ import annotations

import typer

from ccbench import _ccsim, listing
from ccbench.cli.common import EXIT_BAD_SCENARIO, console

NAMES_HELP = "Show only these (a name, or part of one); default: all."
JSON_HELP = "Print as JSON (stable keys) instead of text."


def _selected(entries: list[dict], names: list[str] | None, what: str) -> list[dict]:
    try:
        return listing.select(entries, names or [], what)
    except listing.UnknownNameError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO) from None


def algorithms_cmd(
    names: list[str] | None = typer.Argument(None, help=NAMES_HELP, show_default=False),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
):
    """Every algorithm with its reference and parameters (defaults); e.g. ccbench algorithms cubic."""
    from ccbench.emulate import kernel

    chosen = _selected(list(_ccsim.algorithms()), names, "algorithm")
    try:
        available = kernel.available_algorithms()
    except OSError:
        available = None
    chosen = [{**a, "kernel_mode": kernel.kernel_support(a["name"], available)} for a in chosen]
    if as_json:
        from ccbench.json_output import dumps

        typer.echo(dumps(chosen))
        return
    listing.print_algorithms(console, chosen)


def kernels_cmd(
    names: list[str] | None = typer.Argument(None, help=NAMES_HELP, show_default=False),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
):
    """Kernel presets (tcp = { kernel = "2.6.24" }): what each sets, with its kernel source."""
    info = _ccsim.kernels()
    chosen = _selected(list(info["presets"]), names, "kernel preset")
    if as_json:
        from ccbench.json_output import dumps

        presets = [
            {"name": k["name"], "sets": [{"field": f, "value": v, "source": src} for f, v, src in k["sets"]]}
            for k in chosen
        ]
        not_modelled = [{"behaviour": n, "note": note} for n, note in info["not_modelled"]]
        typer.echo(dumps({"presets": presets, "not_modelled": not_modelled}))
        return
    listing.print_kernels(console, chosen, info["not_modelled"])


def profiles_cmd(
    names: list[str] | None = typer.Argument(None, help=NAMES_HELP, show_default=False),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
):
    """Named network profiles (profile = "NAME" in a scenario): parameters, options, sources; e.g. profiles lte."""
    from ccbench import profiles

    chosen = _selected(profiles.list_profiles(), names, "profile")
    if as_json:
        from ccbench.json_output import dumps

        typer.echo(dumps(chosen))
        return
    listing.print_profiles(console, chosen)
