"""The commands of campaigns: `campaign` (run or resume one), `study` and
`studies` (the shipped studies), `compare` (every algorithm over built-in
conditions) and `report` (rebuild a campaign's report), with the progress bar
and the summary they share.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from ccbench.cli.common import (
    EXECUTOR_HELP,
    EXIT_BAD_SCENARIO,
    MAX_CAMPAIGN_SEED,
    MAX_REPS,
    _animated,
    _check_executor,
    _check_jobs,
    _check_max_reps,
    _check_seed,
    _parse_or_exit,
    _print_result,
    console,
)
from ccbench.limits import shown


def _campaign_summary(directory: Path) -> Table:
    from ccbench.campaigns.report import recommendations

    t = Table(title="Recommendations (details in the report)", title_justify="left")
    for h in ("conditions", "pick", "no practical difference", "confidence"):
        t.add_column(h)
    for r in recommendations(directory):
        if r["pick"] is None:
            conf = f"no pick: {r.get('no_pick') or 'no data'}"
        elif r["decided"]:
            conf = "decided"
        else:
            more = f"; ~{r['repetitions_to_decide']} reps would decide" if r["repetitions_to_decide"] else ""
            if r["repetitions"] < 2:
                more = "; at least 2 reps needed to estimate the spread"
            conf = f"undecided: {', '.join(r['undecided'])}{more}"
        t.add_row(r["title"], r["pick"] or "–", ", ".join(r["tied"]) or "–", conf)
    return t


class TimeLeftColumn(TimeRemainingColumn):
    """The ETA of a campaign's bar: the time its runs still need as
    campaigns.estimate measures it (each run weighed by its cost, each worker
    timed after its first run; the task's `left_s`) once it has, before that
    rich's (from the count of runs done, as if every run cost the same)."""

    def render(self, task):
        left_s = task.fields.get("left_s")
        if left_s is None or task.finished:
            return super().render(task)
        minutes, seconds = divmod(int(left_s), 60)
        hours, minutes = divmod(minutes, 60)
        return Text(f"{hours:d}:{minutes:02d}:{seconds:02d}", style="progress.remaining")


def _run_campaign(
    campaign,
    out: Path | None,
    jobs: int | None,
    executor: str,
    address: str | None,
    force: bool,
    resume_hint: str,
    until_decided: tuple | None = None,
    estimate_at_least_s: float | None = None,
    svg: bool = False,
    as_json: bool = False,
):
    """Runs a parsed campaign with a progress bar (one per round with
    `until_decided` = ((raw, source, text, folder), max_reps, allow_large)), builds the
    report and prints the summary; a clear message and exit 2 for a
    directory of another campaign; Ctrl-C stops cleanly and says how to
    resume (exit 130). `estimate_at_least_s`: print the expected running
    time once it is measured (ccbench.campaigns.estimate) if the runs take
    that long or longer in all; None: never. `as_json`: the progress goes
    to stderr and the summary to stdout as one JSON object
    (json_output.campaign_summary)."""
    from ccbench.campaigns import executors, runner, spec, storage
    from ccbench.campaigns.estimate import Estimate, KernelEstimate

    out = out or runner.default_out(campaign)
    # No more processes than runs (64 jobs for 8 runs would fork idle workers).
    jobs = max(1, min(jobs or runner.default_jobs(), len(campaign.runs)))
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("failed {task.fields[failed]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeLeftColumn(),
    )
    if executor == "kernel":
        where = "real kernel, one at a time"
    else:
        where = f"{jobs} processes" if executor == "local" else f"ray{' at ' + address if address else ', local'}"
    # Shown from the first report on, once the directory is checked: a refusal prints no bar.
    shown_on = Console(stderr=True) if as_json else console
    progress = Progress(*columns, console=shown_on, transient=False, auto_refresh=_animated(shown_on))
    try:
        try:

            def on_round(reps):
                label = f"{len(campaign.runs)} runs ({where})" if reps is None else f"{reps} repetitions ({where})"
                bar = None

                def show(p):
                    nonlocal bar
                    if bar is None:
                        progress.start()
                        bar = progress.add_task(label, total=p.total, failed=0, left_s=None)
                    left_s = costs.remaining_seconds(p) if costs is not None else None
                    progress.update(bar, total=p.total, completed=p.done, failed=p.failed, left_s=left_s)
                    if (
                        estimate_at_least_s is not None
                        and costs is not None
                        and (line := costs.update(p, estimate_at_least_s))
                    ):
                        progress.console.print(line, highlight=False)

                return show

            # The ETA and the expected running time weigh the runs by cost (a
            # kernel run takes its duration, whatever it carries; the rounds of
            # until_decided add runs the plan does not have yet).
            if until_decided:
                costs = None
            else:
                costs = KernelEstimate(campaign) if executor == "kernel" else Estimate(campaign, jobs)
            preload = runner.REPORT_MODULES  # imported while the workers run
            if until_decided:
                read, max_reps, large = until_decided
                done, _, _ = runner.run_until_decided(
                    *read, out, jobs, executor, address, force, max_reps, on_round, preload, campaign, large
                )
            else:
                done = runner.run(
                    campaign, out, jobs, executor, address, force, on_progress=on_round(None), preload=preload
                )
            from ccbench import report

            rep_task = progress.add_task("building the report", total=1, failed=0)
            path = report.build(out, jobs=jobs, svg=svg)
            progress.advance(rep_task)
        finally:
            if progress.live.is_started:  # stop() of a bar never shown prints an empty line
                progress.stop()
    except (storage.CampaignDirectoryError, executors.RayUnavailableError, spec.CampaignFileError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO) from None
    except runner.CampaignInterrupted as e:
        typer.echo(
            f"interrupted: {e.done} of {e.total} runs done, the index is consistent; "
            f"resume with: {resume_hint} --out {out}",
            err=True,
        )
        raise typer.Exit(130) from None
    if as_json:
        from ccbench import json_output

        typer.echo(json_output.dumps(json_output.campaign_summary(out, done, path)))
        return done
    console.print(_campaign_summary(out))
    console.print(
        f"{done.total} runs: {done.executed} run now, "
        + (f"{done.copied} copied (conditions with no randomness run once), " if done.copied else "")
        + f"{done.skipped} already done, {done.failed} failed, in {done.seconds:.1f} s"
        + (f" over {done.rounds} rounds" if done.rounds > 1 else "")
    )
    _print_result("Report", path)
    return done


#: A campaign whose runs take this long or longer (seconds) prints its expected running time
#: (a study's whole design always does): worth knowing when the output goes to a log, where the
#: progress bar is printed only at the end.
LONG_CAMPAIGN_S = 60.0
FORCE_HELP = "Switch a directory of another campaign file to this one (keeping the runs it shares)."
CAMPAIGN_LARGE_HELP = "Lift the planning limits (runs, index size, work) and the scenario limits (allow_large = true)."
SVG_HELP = "Also write each report figure as SVG (vector, for papers) beside its PNG in plots/."
CAMPAIGN_JSON_HELP = "Print the summary and the recommendations as one JSON object (progress on stderr)."


def campaign(
    file: Path = typer.Argument(..., help="Campaign file (TOML)."),
    out: Path | None = typer.Option(None, help="Campaign directory (default: ccbench-out/<file name>)."),
    jobs: int | None = typer.Option(None, help="Parallel processes (default: all cores); Ray: CPUs of a local Ray."),
    executor: str = typer.Option("local", help=EXECUTOR_HELP),
    address: str | None = typer.Option(None, help="Address of a running Ray cluster (default: start a local Ray)."),
    force: bool = typer.Option(False, help=FORCE_HELP),
    until_decided: bool = typer.Option(
        False, help="Add repetitions while the recommendation is undecided (up to --max-reps)."
    ),
    max_reps: int | None = typer.Option(
        None, help="With --until-decided: at most this many repetitions (default 12).", show_default=False
    ),
    quick: bool = typer.Option(False, "--quick", help="Run the file's \\[quick] reduction of the design."),
    mode: str = typer.Option(
        "simulate", help="simulate, or emulate: every run through the real kernel's TCP (root), one at a time."
    ),
    svg: bool = typer.Option(False, "--svg", help=SVG_HELP),
    as_json: bool = typer.Option(False, "--json", help=CAMPAIGN_JSON_HELP),
    allow_large: bool = typer.Option(False, "--allow-large", help=CAMPAIGN_LARGE_HELP),
):
    """Run (or resume) a campaign: every combination of levels, repeated; tables, plots and report.html."""
    from ccbench.campaigns import spec

    _check_executor(executor, address)
    _check_jobs(jobs)
    if max_reps is not None and not until_decided:
        typer.echo("error: --max-reps: only with --until-decided (it caps the repetitions that adds)", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO)
    _check_max_reps(max_reps, 2)
    max_reps = max_reps or 12
    parsed = _parse_or_exit(lambda: spec.parse_study(file, quick, allow_large))
    _check_objective(parsed, file)
    read = spec.read(file, allow_large)
    rounds = (read, max_reps, allow_large) if until_decided else None
    if until_decided and quick:
        typer.echo("error: --quick and --until-decided: give one of them", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO)
    if quick and "quick" not in read[0]:  # the reduction is then the default's alone: say so
        from ccbench.campaigns.quick import DEFAULT_REPETITIONS

        console.print(
            escape(
                f"note: {file} has no [quick] table: --quick runs its full design with {DEFAULT_REPETITIONS} "
                "repetition (a [quick] table can also shorten the runs and keep fewer levels: see the README)"
            ),
            soft_wrap=True,
            highlight=False,
        )
    hint = f"ccbench campaign {file}" + (" --until-decided" if until_decided else "") + (" --quick" if quick else "")
    if mode not in ("simulate", "emulate"):
        typer.echo(f"error: --mode: '{shown(mode)}' is not allowed; one of simulate, emulate", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO)
    if mode == "emulate":
        executor, jobs = _kernel_mode_executor(parsed, executor), 1
        hint += " --mode emulate"
    _run_campaign(
        parsed,
        out,
        jobs,
        executor,
        address,
        force,
        hint,
        until_decided=rounds,
        estimate_at_least_s=LONG_CAMPAIGN_S,
        svg=svg,
        as_json=as_json,
    )


def _check_objective(parsed, file: Path) -> None:
    """The file's [analysis] objective checked against its runs before any runs (see analysis.check_fairness)."""
    from ccbench.campaigns.analysis import check_fairness

    if parsed.analysis.get("objective") == "fairness":
        try:
            check_fairness(
                [sum(f.get("count", 1) for f in r.scenario["flows"]) for r in parsed.runs], "analysis.objective"
            )
        except ValueError as e:
            typer.echo(f"error: {file}: {e}", err=True)
            raise typer.Exit(EXIT_BAD_SCENARIO) from None


def _kernel_mode_executor(parsed, executor: str) -> str:
    """--mode emulate: checks the machine and every run before anything
    runs (exit 2 naming the run and the field), and returns the executor
    that runs them through the kernel one after the other."""
    import json

    from ccbench.emulate import host, kernel

    if executor != "local":
        typer.echo("error: --mode emulate runs on this machine only; --executor must be local", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO)
    try:
        host.preflight()
        available = kernel.available_algorithms()
        for r in parsed.runs:
            try:
                kernel.check(r.scenario, available)
            except kernel.KernelModeError as e:
                typer.echo(f"error: run {shown(json.dumps(r.levels))}: {e}", err=True)
                raise typer.Exit(EXIT_BAD_SCENARIO) from None
    except host.PreflightError as e:
        typer.echo(f"error: kernel mode: {e}", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO) from None
    return "kernel"


def studies_cmd():
    """The five shipped studies: what each measured, its network and source, and what --quick and --full run."""
    from ccbench.campaigns.studies import STUDIES

    for s in STUDIES.values():
        console.print(f"[bold]{s.name}[/bold]: {escape(s.title)}", highlight=False)
        console.print(
            f"  Measured: {escape(s.measured)}.\n  Network: {escape(s.network)}.\n  Source: {escape(s.source)}."
            f"\n  --quick: {escape(s.quick)}.\n  --full: {escape(s.full)}.\n"
            f"  Run: ccbench study {s.name} [--quick]; the campaign file: ccbench study {s.name} --print\n",
            highlight=False,
        )


def study_cmd(
    name: str = typer.Argument(..., help="umts, hsdpa, lte, highspeed or wan (see ccbench studies)."),
    quick: bool = typer.Option(False, "--quick", help="The small seeded form (the file's \\[quick] table)."),
    full: bool = typer.Option(False, "--full", help="The study's whole design (the default)."),
    out: Path | None = typer.Option(None, help="Campaign directory (default: ccbench-out/study-NAME[-quick])."),
    jobs: int | None = typer.Option(None, help="Parallel processes (default: all cores); Ray: CPUs of a local Ray."),
    executor: str = typer.Option("local", help=EXECUTOR_HELP),
    address: str | None = typer.Option(None, help="Address of a running Ray cluster (default: start a local Ray)."),
    force: bool = typer.Option(False, help=FORCE_HELP),
    print_file: bool = typer.Option(
        False, "--print", help="Write the campaign file to stdout (edit it, run it with ccbench campaign)."
    ),
    svg: bool = typer.Option(False, "--svg", help=SVG_HELP),
    as_json: bool = typer.Option(False, "--json", help=CAMPAIGN_JSON_HELP),
):
    """Run (or resume) one of the five studies as a campaign; its report has the study's tables and plots."""
    from ccbench.campaigns import spec
    from ccbench.campaigns.studies import STUDIES

    if name not in STUDIES:
        typer.echo(f"error: study '{name}' is not known; one of {', '.join(STUDIES)}", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO)
    if quick and full:
        typer.echo("error: --quick and --full: give one of them", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO)
    study = STUDIES[name]
    if print_file:
        typer.echo(study.text(), nl=False)
        return
    _check_executor(executor, address)
    parsed = _parse_or_exit(lambda: spec.parse_study(study.path, quick))
    out = out or Path("ccbench-out") / f"study-{name}{'-quick' if quick else ''}"
    hint = f"ccbench study {name}{' --quick' if quick else ' --full'}"
    _run_campaign(
        parsed,
        out,
        jobs,
        executor,
        address,
        force,
        hint,
        estimate_at_least_s=None if quick else 0.0,
        svg=svg,
        as_json=as_json,
    )


def report_cmd(
    directory: Path = typer.Argument(..., help="Campaign directory."),
    compare: str | None = typer.Option(None, "--compare", help="The factor compared (default: the one setting cc)."),
    objective: str | None = typer.Option(
        None, help="throughput, latency, balanced, goodput, delay, retransmissions or fairness."
    ),
    margin: float | None = typer.Option(None, help="Practical-equivalence margin, a fraction (default 0.05)."),
    svg: bool = typer.Option(False, "--svg", help=SVG_HELP),
    jobs: int | None = typer.Option(None, help="Parallel processes drawing the figures (default: all cores)."),
):
    """(Re)build report.html of a campaign directory from its saved results, without running anything;
    of an unfinished campaign (stopped, or still running), from its finished runs, saying so."""
    from ccbench import report
    from ccbench.campaigns import storage
    from ccbench.campaigns.report import partial_text

    _check_jobs(jobs)
    if margin is not None and not 0 <= margin < 1:
        typer.echo(f"error: --margin: {margin} is not allowed; a fraction from 0 to below 1", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO)

    def say_partial(data):
        typer.echo(partial_text(data, str(directory)), err=True)

    try:
        path = report.build(
            directory,
            factor=compare,
            objective=objective,
            margin=margin,
            jobs=jobs,
            svg=svg,
            on_partial=say_partial,
        )
    except (storage.CampaignDirectoryError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO) from None
    console.print(_campaign_summary(directory))
    _print_result("Report", path)


#: Repetitions of `ccbench compare`: 4 gives t(0.975, 3) = 3.18 for the CIs and
#: keeps the default campaign (about 22 algorithms x 4 conditions) near a minute
#: on two cores; the cost is mostly fixed per run, so repetitions are what counts.
DEFAULT_REPS = 4


def compare(
    out: Path = typer.Option(Path("ccbench-out/compare"), help="Output directory."),
    reps: int | None = typer.Option(None, help="Repetitions with distinct seeds (default 4; 2 with --quick)."),
    jobs: int | None = typer.Option(None, help="Parallel processes (default: all cores)."),
    quick: bool = typer.Option(False, help="Short runs (for a first look and for tests)."),
    seed: int = typer.Option(1, help="Campaign seed (each run's seed is derived from it)."),
    algorithms: str | None = typer.Option(None, help="Comma-separated subset (default: every algorithm)."),
    executor: str = typer.Option("local", help=EXECUTOR_HELP),
    address: str | None = typer.Option(None, help="Address of a running Ray cluster (default: start a local Ray)."),
    svg: bool = typer.Option(False, "--svg", help=SVG_HELP),
    as_json: bool = typer.Option(False, "--json", help=CAMPAIGN_JSON_HELP),
    allow_large: bool = typer.Option(False, "--allow-large", help=CAMPAIGN_LARGE_HELP),
):
    """Every algorithm over built-in network conditions (the shipped campaign compare.toml); writes report.html."""
    from ccbench import compare as cmp

    known = cmp.algorithm_names()
    algs = known if algorithms is None else [a.strip() for a in algorithms.split(",") if a.strip()]
    bad = [a for a in algs if a not in known]
    if bad or not algs:
        what = f"unknown algorithm '{shown(bad[0])}'" if bad else "no algorithm named"
        typer.echo(f"error: --algorithms: {what}; known: {', '.join(known)}", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO)
    reps = reps if reps is not None else (cmp.QUICK_REPS if quick else DEFAULT_REPS)
    if not 1 <= reps <= MAX_REPS:
        typer.echo(f"error: --reps: {reps} is not allowed; from 1 to {MAX_REPS}", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO)
    _check_seed(seed, MAX_CAMPAIGN_SEED)
    _check_jobs(jobs)
    _check_executor(executor, address)
    parsed = _parse_or_exit(lambda: cmp.campaign(algs, reps, seed, quick, allow_large))
    hint = cmp.command(algs, reps, seed, quick, allow_large)
    done = _run_campaign(parsed, out, jobs, executor, address, True, hint, svg=svg, as_json=as_json)
    if as_json:
        return
    conditions = len(parsed.factors[0].levels)
    console.print(f"{len(algs)} algorithms × {conditions} conditions × {reps} repetitions = {done.total} runs")
