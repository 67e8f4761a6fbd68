"""What every command shares: the typer `app` and its global options (-q, -v,
--version), the exit code of a refused input, the output helpers and the
checks of the options several commands take.

The command modules import this one; it imports none of them.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

from ccbench import _ccsim
from ccbench.limits import shown
from ccbench.scenario import ScenarioFileError, load

app = typer.Typer(
    no_args_is_help=True,
    help="Compare TCP congestion controls on your network, and pick one.",
    context_settings={"help_option_names": ["-h", "--help"]},
)
console = Console()
#: -v (1), default (0) or -q (-1): how much is printed besides errors and results.
verbosity = 0


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            package = version("ccbench")
        except PackageNotFoundError:  # run from a source tree
            package = "unknown"
        typer.echo(f"ccbench {package} (core ccsim {_ccsim.__version__})")
        raise typer.Exit()


@app.callback()
def global_options(
    show_version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True, help="Print the ccbench and core versions."
    ),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Print more: every file written, run statistics."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print only errors and the result (path or JSON)."),
):
    """Compare TCP congestion controls on your network, and pick one."""
    global verbosity
    if verbose and quiet:
        typer.echo("error: --verbose and --quiet: give one of them", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO)
    verbosity = 1 if verbose else -1 if quiet else 0
    console.quiet = quiet


EXIT_BAD_SCENARIO = 2


def _print_result(label: str, path: Path) -> None:
    """The line naming what a command produced; with -q, the path alone."""
    if verbosity < 0:
        typer.echo(str(path))
    else:
        console.print(f"{label}: [bold]{escape(str(path))}[/bold]", soft_wrap=True)


def _load_or_exit(path: Path, seed: int | None = None, allow_large: bool = False) -> dict:
    try:
        return load(path, seed=seed, allow_large=allow_large)
    except ScenarioFileError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO) from None


#: The core's largest seed (saved tables keep seeds as int64); a campaign seed
#: is hashed through canonical JSON, so it stays an integer JSON readers keep exactly.
MAX_SEED = _ccsim.MAX_SEED
MAX_CAMPAIGN_SEED = 2**53 - 1
#: Repetitions of `compare`: each is a full set of runs (the task list is built in memory).
MAX_REPS = 1000


def _check_jobs(jobs: int | None) -> None:
    if jobs is not None and jobs < 1:
        typer.echo(f"error: --jobs: {jobs} is not allowed; at least 1", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO)


def _check_executor(executor: str, address: str | None) -> None:
    """--executor is known; --address (a Ray cluster to join) only with Ray, which alone would use it."""
    from ccbench.campaigns import executors

    if executor not in executors.EXECUTORS:
        typer.echo(
            f"error: --executor: '{shown(executor)}' is not allowed; one of {', '.join(executors.EXECUTORS)}", err=True
        )
        raise typer.Exit(EXIT_BAD_SCENARIO)
    if address is not None and executor != "ray":
        typer.echo(
            f"error: --address: only with --executor ray (the Ray cluster to run on); not with {executor}", err=True
        )
        raise typer.Exit(EXIT_BAD_SCENARIO)


def _check_max_reps(max_reps: int | None, least: int) -> None:
    """--max-reps: `least` is the repetitions the first round runs (recommend) or the fewest that
    measure a spread (campaign --until-decided); more than MAX_REPS is never needed."""
    if max_reps is not None and not least <= max_reps <= MAX_REPS:
        typer.echo(f"error: --max-reps: {max_reps} is not allowed; from {least} to {MAX_REPS}", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO)


def _check_seed(seed: int | None, largest: int = MAX_SEED) -> None:
    if seed is not None and not 0 <= seed <= largest:
        typer.echo(f"error: --seed: {shown(str(seed))} is not allowed; an integer from 0 to {largest}", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO)


def _num(v: float, fmt: str = ".1f") -> str:
    from ccbench.campaigns.analysis import number_text

    return "–" if v != v else number_text(v, fmt)


#: Help of the options several commands take.
ALLOW_LARGE_HELP = "Lift the limits on duration, delay, rate, flows and estimated work (see the README)."
#: --force of the commands that write one run's directory (run, emulate: ccbench.run_directory).
RUN_FORCE_HELP = "Replace an output directory that holds an earlier run's results."
EXECUTOR_HELP = "Where runs execute: local (a process pool) or ray."


def _animated(console: Console) -> bool:
    """Whether a progress bar on `console` is redrawn as it goes (rich's
    refresh thread, ten times a second): on a terminal that shows it only. To
    a pipe or a file, or with --quiet, the bar is printed once at its end, or
    not at all, and the thread only built the bar again and again for
    nothing (about 0.25 s of CPU during ccbench -q compare)."""
    return console.is_terminal and not console.quiet


def _parse_or_exit(source):
    from ccbench.campaigns.spec import CampaignFileError

    try:
        return source()
    except CampaignFileError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO) from None
