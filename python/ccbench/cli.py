"""The `ccbench` command line: run, campaign, report, compare, recommend, fit, studies, study, algorithms,
profiles, validate.

A bad scenario file prints one message (field path, bad value, what is
allowed) and exits with code 2 before anything runs or any file is written.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich import box
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

from ccbench import _ccsim, listing
from ccbench.limits import SHOWN_PATH_CHARS, one_line, shown
from ccbench.run_plots import RUN_PLOTS
from ccbench.scenario import ScenarioFileError, create_capture_file, load

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
#: Repetitions of `ccbench compare`: 4 gives t(0.975, 3) = 3.18 for the CIs and
#: keeps the default campaign (about 22 algorithms x 4 conditions) near a minute
#: on two cores; the cost is mostly fixed per run, so repetitions are what counts.
DEFAULT_REPS = 4


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


def mbit_text(bps: float) -> str:
    """A rate in Mbit/s to three significant digits, never in scientific notation: 10000 (not
    1e+04), 12.3, 0.384."""
    import numpy as np

    return np.format_float_positional(bps / 1e6, precision=3, unique=False, fractional=False, trim="-")


def _num(v: float, fmt: str = ".1f") -> str:
    from ccbench.campaigns.analysis import number_text

    return "–" if v != v else number_text(v, fmt)


def _no_ack(flow) -> bool:
    """Whether no ACK came back in the flow's active time: all it sent then is its first window
    (and RTO retransmissions), so bytes sent over that time are no sending rate (`duration =
    "1ns"` made it 115840000 Mbit/s); the summary shows none."""
    return flow.get("acks_received", 1) == 0


def no_ack_note(flows) -> str | None:
    """The note that says why a flow's sending rate is "–" (_no_ack); None when none is."""
    silent = flows[flows.apply(_no_ack, axis=1)] if len(flows) else flows
    if not len(silent):
        return None
    return (
        f"{_flows_phrase(silent)} got no ACK back (a run or flow shorter than a round trip, or the link "
        "out): what was sent is the first window, not a sending rate, so the summary shows –"
    )


def flows_table(flows, title: str) -> Table:
    t = Table(
        title=title,
        title_justify="left",
        box=box.SIMPLE_HEAD,
        padding=(0, 0),
        pad_edge=False,
        caption=(
            "rates in Mbit/s (sending: payload sent, retransmissions included), times in ms; "
            "dir: down, up or the data route; done: completion time of a file (s)"
        ),
        caption_justify="left",
    )
    for h in ("flow", "cc", "dir", "goodput", "sending", "retx %", "RTOs", "RTT", "p95", "queuing", "done"):
        t.add_column(h, justify="left" if h in ("cc", "dir") else "right", no_wrap=True)
    from ccbench.campaigns.analysis import METRICS, fmt, shown

    rate = shown(METRICS["goodput_bps"], [*flows["goodput_bps"], *flows["throughput_bps"]])
    for _, f in flows.iterrows():
        t.add_row(
            str(f["flow"]),
            f["cc"],
            f["route"] if f["direction"] == "route" and "route" in f else f["direction"],
            fmt(f["goodput_bps"], rate),
            fmt(float("nan") if _no_ack(f) else f["throughput_bps"], rate),
            _num(f["retrans_pct"], ".2f"),
            str(f["timeouts"]),
            _num(f["rtt_mean_ms"]),
            _num(f["rtt_p95_ms"]),
            _num(f["queuing_mean_ms"]),
            _num(f["completion_s"], ".2f"),
        )
    return t


#: Goodput and link rates in the run's plots: means over windows this long, unless --plot-window.
DEFAULT_PLOT_WINDOW = "500ms"


def write_run_plots(
    run_dir: Path,
    window_s: float = 0.5,
    formats: tuple[str, ...] = ("png",),
    only: tuple[str, ...] = RUN_PLOTS,
    out: Path | None = None,
) -> list[Path]:
    """The saved run's plots named in `only` (ccbench.run_plots), drawn from
    its tables into `out` (default: the run's directory), in each of
    `formats` (png, svg, pdf); rates are means over windows of `window_s`."""
    from ccbench import run_files, run_plots

    return run_plots.write(run_files.load(run_dir), out or run_dir, window_s, formats, only)


def _plot_options(window: str, plot_format: str) -> tuple[float, tuple[str, ...]]:
    """--plot-window (a duration, read by the core's parser) in seconds and
    --plot-format as a tuple of formats; exits with a message when invalid."""
    from ccbench import _ccsim, plots

    try:
        window_s = _ccsim.duration_seconds(window)
    except ValueError as e:
        typer.echo(f"error: --plot-window: {one_line(str(e))}", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO) from None
    if not window_s > 0:
        typer.echo(f"error: --plot-window: {shown(window)} is not allowed; a duration above 0", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO)
    formats = tuple(dict.fromkeys(f.strip().lower() for f in plot_format.split(",")))
    if not formats or any(f not in plots.FORMATS for f in formats):
        typer.echo(
            f"error: --plot-format: {shown(plot_format)} is not allowed; one or more of {', '.join(plots.FORMATS)} "
            "(e.g. png,svg)",
            err=True,
        )
        raise typer.Exit(EXIT_BAD_SCENARIO)
    return window_s, formats


ALLOW_LARGE_HELP = "Lift the limits on duration, delay, rate, flows and estimated work (see the README)."
#: --force of the commands that write one run's directory (run, emulate: ccbench.run_directory).
RUN_FORCE_HELP = "Replace an output directory that holds an earlier run's results."


def _stage_pcap(normalized: dict, stage: Path) -> None:
    """Creates the scenario's packet capture in the staging directory, so a
    capture that cannot be written fails before the run starts."""
    why = create_capture_file(normalized, stage)
    if why:
        from ccbench.run_directory import OutputDirectoryError

        path = normalized["record"]["pcap"]["path"]
        raise OutputDirectoryError(f"record.pcap.path: cannot create {shown(path)}: {why}")


#: Flows a warning about many flows names; the rest it counts.
WARNING_FLOWS_NAMED = 5


def _flows_phrase(flows) -> str:
    """ "flow 3 (cubic)", or "990 flows (10 (cubic), 11 (cubic), ... and 985 more)": one warning
    line for many flows, however many there are."""
    named = [f"{f['flow']} ({f['cc']})" for _, f in flows.head(WARNING_FLOWS_NAMED).iterrows()]
    if len(flows) == 1:
        return f"flow {named[0]}"
    more = f" and {len(flows) - len(named)} more" if len(flows) > len(named) else ""
    return f"{len(flows)} flows ({', '.join(named)}{more})"


def result_warnings(r) -> list[str]:
    """Results that cannot be trusted as they stand, each with its likely cause."""
    out = []
    silent = ~(r.flows["goodput_bps"] > 0)
    if silent.any():
        out.append(
            f"{_flows_phrase(r.flows[silent])} delivered nothing: the link may be out or its queue too small "
            "for the whole run, or the flow too short"
        )
    no_rtt = ~silent & r.flows["rtt_mean_ms"].isna()
    if no_rtt.any():
        verb = "has" if no_rtt.sum() == 1 else "have"
        out.append(f"{_flows_phrase(r.flows[no_rtt])} {verb} no RTT sample (record.rtt_samples off, or no ACK arrived)")
    for _, link in r.links.iterrows():
        if link["utilization"] > 1.0 + 1e-9:
            out.append(
                f"link {link['link']}: utilization {link['utilization']:.2f} is above 1: its payload capacity "
                "(the long-run mean rate of its rate process, times its flows' payload share) "
                "underestimates what it offered in this run"
            )
    return out


def _offered_rate_text(link) -> str:
    """The rate a link's nominal utilization is over: its nominal rate, or
    what its trace offered while the flows ran, beside the trace's mean."""
    offered, mean = link["offered_rate_bps"], link["rate_bps"]
    if offered == mean:
        return f"{mbit_text(offered)} Mbit/s nominal rate"
    return f"{mbit_text(offered)} Mbit/s its trace offered while the flows ran (mean {mbit_text(mean)})"


def source_lines(sources) -> list[str]:
    """A line per UDP source and background: what it sent and what arrived,
    which the links' lines (flows only) leave out."""
    lines, udp = [], 0
    for _, s in sources.iterrows():
        if s["kind"] == "udp":
            name, udp = f"udp[{udp}]", udp + 1
        else:
            name = f"background ({s['kind']} over {s['transport']})"
        seconds = s["stop_s"] - s["start_s"]
        sent = 8 * s["bytes_sent"] / seconds if seconds > 0 else float("nan")
        line = (
            f"{name}: sent {mbit_text(sent)} Mbit/s, delivered {mbit_text(s['delivered_bps'])} Mbit/s, "
            f"{s['packets_lost']} of {s['packets_sent']} packets lost ({s['queue_drops']} at queues)"
        )
        if s["transport"] == "tcp":
            line += f", {s['transfers_started']} transfers begun, {s['transfers_completed']} finished"
        lines.append(line)
    return lines


@app.command()
def run(
    scenario: Path = typer.Argument(..., help="Scenario file (TOML)."),
    out: Path | None = typer.Option(None, help="Output directory (default: ccbench-out/<file name without .toml>)."),
    seed: int | None = typer.Option(None, help="Override the scenario's seed."),
    plots: bool = typer.Option(
        False, help="Also write plots (cwnd, RTT, goodput, links; about a second). Implied by --plot-*."
    ),
    plot_window: str | None = typer.Option(
        None,
        help=f"Goodput and link rates in the plots: mean over windows this long (default {DEFAULT_PLOT_WINDOW}).",
    ),
    plot_format: str | None = typer.Option(None, help="Plot files: png (default), svg (vector, for papers), png,svg."),
    force: bool = typer.Option(False, help=RUN_FORCE_HELP),
    allow_large: bool = typer.Option(False, help=ALLOW_LARGE_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON (keys in the README)."),
):
    """Run one scenario: print per-flow results, save tables (and plots with --plots)."""
    from ccbench import run_files
    from ccbench.api import run as run_scenario
    from ccbench.run_directory import OutputDirectoryError, staged
    from ccbench.run_progress import RunProgress

    _check_seed(seed)
    plots = plots or plot_window is not None or plot_format is not None
    # Checked only when plots are drawn: the check imports matplotlib (half a second).
    window_s, formats = _plot_options(plot_window or DEFAULT_PLOT_WINDOW, plot_format or "png") if plots else (0.0, ())
    normalized = _load_or_exit(scenario, seed, allow_large)
    out = out or Path("ccbench-out") / scenario.stem
    try:
        with staged(out, force) as stage:
            _stage_pcap(normalized, stage)
            with RunProgress(console, normalized["duration"]) as progress:
                r = run_scenario(normalized, allow_large=allow_large, capture_dir=stage, progress=progress)
            pcap = r.meta.get("pcap")
            if pcap and pcap.get("error"):
                raise OutputDirectoryError(f"record.pcap.path: {pcap['error'].replace(str(stage), str(out))}")
            if pcap:  # saved relative to the run directory, which the stage becomes
                pcap["path"] = normalized["record"]["pcap"]["path"]
            run_files.save(r, stage)
            pngs = write_run_plots(stage, window_s, formats) if plots else []
    except OutputDirectoryError as e:
        typer.echo(f"error: {one_line(str(e))}", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO) from None
    except OSError as e:
        typer.echo(f"error: cannot write the results to {shown(str(out))}: {e.strerror}; nothing written", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO) from None
    except KeyboardInterrupt:
        typer.echo("interrupted: nothing written", err=True)
        raise typer.Exit(130) from None
    warnings = result_warnings(r)
    from ccbench.flow_limits import flow_notes

    notes = flow_notes(r.flows, normalized) + [n for n in [no_ack_note(r.flows)] if n]
    if as_json:
        from ccbench import json_output

        files = [p.name for p in out.iterdir()]
        typer.echo(json_output.dumps(json_output.run_summary(r, normalized["name"], out, files, warnings, notes)))
        return
    if verbosity < 0:
        typer.echo(str(out))
        return
    console.print(
        flows_table(
            r.flows,
            escape(
                f"{shown(normalized['name']) or scenario.stem}: seed {r.meta['seed']}, "
                f"{r.meta['duration_s']:g} s simulated in {r.meta['wall_seconds']:.2f} s"
            ),
        )
    )
    for _, link in r.links.iterrows():
        if link["goodput_bps"] > 0:
            console.print(
                escape(
                    f"{link['link']}: utilization {100 * link['utilization']:.1f}% (its flows' goodput over "
                    f"{link['capacity_bps'] / 1e6:.2f} Mbit/s payload capacity; "
                    f"{100 * link['nominal_utilization']:.1f}% of the "
                    f"{_offered_rate_text(link)}), "
                    f"{link['queue_drops']} queue drops, "
                    f"{link['channel_losses']} channel losses"
                )
            )
    for line in source_lines(r.sources):
        console.print(escape(line))
    for note in notes:
        console.print(f"note: {escape(note)}", soft_wrap=True, highlight=False)
    if len(r.flows) > 1:
        console.print(f"Jain's fairness index: {r.jain_index():.3f}")
    interval_s = float(normalized["record"]["interval"])
    if interval_s > _ccsim.DEFAULT_SERIES_INTERVAL_S:
        console.print(
            f"note: series sampled every {1e3 * interval_s:g} ms (record.interval; left out, it is "
            f"{1e3 * _ccsim.DEFAULT_SERIES_INTERVAL_S:g} ms, or flows x duration / "
            f"{_ccsim.DEFAULT_SERIES_FLOW_SAMPLES:,} when that is longer, so the series stays proportionate "
            "to the run)",
            soft_wrap=True,
            highlight=False,
        )
    for w in warnings:
        console.print(f"warning: {escape(w)}", highlight=False)
    if verbosity > 0:
        console.print(
            f"{r.meta['events']} events, {r.meta['events'] / max(r.meta['wall_seconds'], 1e-9):.3g} events/s",
            highlight=False,
        )
        for p in sorted(out.iterdir()):
            console.print(f"  {escape(str(p))}", soft_wrap=True, highlight=False)
    console.print(
        f"Results in [bold]{escape(str(out))}[/bold] ({len(run_files.TABLES)} tables, meta.json"
        + (f", {len(pngs)} plots" if pngs else "; --plots for PNG plots")
        + ")",
        soft_wrap=True,
    )
    if r.meta.get("pcap"):
        console.print(
            f"Packet capture in [bold]{escape(str(out / r.meta['pcap']['path']))}[/bold] "
            f"({r.meta['pcap']['packets']} packets, stamped with the simulated time since the run's start)",
            soft_wrap=True,
        )


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


def _animated(console: Console) -> bool:
    """Whether a progress bar on `console` is redrawn as it goes (rich's
    refresh thread, ten times a second): on a terminal that shows it only. To
    a pipe or a file, or with --quiet, the bar is printed once at its end, or
    not at all, and the thread only built the bar again and again for
    nothing (about 0.25 s of CPU during ccbench -q compare)."""
    return console.is_terminal and not console.quiet


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


def _parse_or_exit(source):
    from ccbench.campaigns.spec import CampaignFileError

    try:
        return source()
    except CampaignFileError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO) from None


#: A campaign whose runs take this long or longer (seconds) prints its expected running time
#: (a study's whole design always does): worth knowing when the output goes to a log, where the
#: progress bar is printed only at the end.
LONG_CAMPAIGN_S = 60.0
EXECUTOR_HELP = "Where runs execute: local (a process pool) or ray."
FORCE_HELP = "Switch a directory of another campaign file to this one (keeping the runs it shares)."
CAMPAIGN_LARGE_HELP = "Lift the planning limits (runs, index size, work) and the scenario limits (allow_large = true)."
SVG_HELP = "Also write each report figure as SVG (vector, for papers) beside its PNG in plots/."
CAMPAIGN_JSON_HELP = "Print the summary and the recommendations as one JSON object (progress on stderr)."


@app.command()
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


@app.command("studies")
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


@app.command("study")
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


@app.command("report")
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


@app.command("plot")
def plot_cmd(
    directory: Path = typer.Argument(..., help="A saved run's directory (ccbench run or emulate), or a campaign's."),
    only: str | None = typer.Option(
        None, "--only", help=f"Plots by name, comma-separated: {', '.join(RUN_PLOTS)} (default: all)."
    ),
    plot_format: str = typer.Option("png", "--format", help="png, svg or pdf; several comma-separated."),
    window: str = typer.Option(DEFAULT_PLOT_WINDOW, "--window", help="Rates as means over windows this long."),
    out: Path | None = typer.Option(None, help="Where to write the plots (default: the run's directory)."),
):
    """Draw a saved run's plots from its files (or a campaign's figures, with its report)."""
    from ccbench.campaigns import storage

    window_s, formats = _plot_options(window, plot_format)
    if (directory / storage.INDEX).exists():
        if only is not None or out is not None or "pdf" in formats:
            typer.echo(
                "error: a campaign's figures are drawn with its report, as PNG (and SVG with --format png,svg): "
                "--only, --out and pdf are for a run's directory",
                err=True,
            )
            raise typer.Exit(EXIT_BAD_SCENARIO)
        report_cmd(directory, None, None, None, "svg" in formats, None)
        return
    if not (directory / "meta.json").is_file():
        typer.echo(
            f"error: {shown(str(directory))} holds no saved run (no meta.json) nor a campaign (no {storage.INDEX})",
            err=True,
        )
        raise typer.Exit(EXIT_BAD_SCENARIO)
    names = tuple(dict.fromkeys(n.strip() for n in (only or ",".join(RUN_PLOTS)).split(",")))
    unknown = [n for n in names if n not in RUN_PLOTS]
    if unknown or not names:
        typer.echo(f"error: --only: {shown(', '.join(unknown))} is not allowed; of {', '.join(RUN_PLOTS)}", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    import pyarrow as pa

    try:
        written = write_run_plots(directory, window_s, formats, names, out)
    except (OSError, ValueError, pa.ArrowException) as e:
        typer.echo(f"error: {shown(str(directory))}: cannot read the saved run: {one_line(str(e))}", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO) from None
    for path in written:
        console.print(escape(str(path)), soft_wrap=True, highlight=False)


@app.command()
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


@app.command()
def recommend(
    network: str | None = typer.Argument(
        None, help="Your network: a profile name, a scenario file, trace:PATH or capture:FILE.pcap.", show_default=False
    ),
    profile: str | None = typer.Option(None, help="Same as NETWORK (kept for earlier scripts)."),
    direction: str = typer.Option("down", help="Direction of your data: down or up."),
    flows: int = typer.Option(1, help="Your flows on the path at once."),
    workload: str = typer.Option("bulk", help="bulk, file:SIZE\\[,SIZE...], web (short transfers), background."),
    compete: str | None = typer.Option(
        None, help="Traffic already on the path: ALG\\[:COUNT] or none; default: --flows flows of cubic."
    ),
    objective: str | None = typer.Option(
        None, help="throughput, latency, completion or balanced; default: completion for file and web, else throughput."
    ),
    max_harm: float | None = typer.Option(None, help="Flag candidates whose harm to the others is above this (0-1)."),
    algorithms: str | None = typer.Option(None, help="Comma-separated candidates (default: all)."),
    duration: str = typer.Option("20s", help="Simulated time of each run."),
    seed: int = typer.Option(1, help="Campaign seed: the same seed gives the same answer."),
    max_reps: int = typer.Option(12, help="At most this many repetitions per algorithm (at least 3: the first round)."),
    jobs: int | None = typer.Option(None, help="Parallel processes (default: all cores)."),
    executor: str = typer.Option("local", help=EXECUTOR_HELP),
    address: str | None = typer.Option(None, help="Address of a running Ray cluster (default: start a local Ray)."),
    out: Path | None = typer.Option(None, help="Campaign directory (default: ccbench-out/recommend-...)."),
    force: bool = typer.Option(False, help="Rerun into a directory of other options (keeping the runs they share)."),
    as_json: bool = typer.Option(False, "--json", help="Print the whole answer as JSON (stable keys)."),
    allow_large: bool = typer.Option(False, help=ALLOW_LARGE_HELP),
):
    """Which congestion control for my network and traffic? The answer in words, its harm to the traffic there."""
    import json

    from ccbench.campaigns import answer as ans
    from ccbench.campaigns import recommend as rec
    from ccbench.campaigns import runner, storage

    def bad(text: str) -> typer.Exit:
        typer.echo(f"error: {text}", err=True)
        return typer.Exit(EXIT_BAD_SCENARIO)

    if network is not None and profile is not None and network != profile:
        raise bad("NETWORK and --profile: give one of them")
    network = network or profile
    if network is None:
        raise bad("NETWORK: missing; a profile name (`ccbench profiles`), a scenario file, trace:PATH or capture:FILE")
    _check_max_reps(max_reps, rec.FIRST_REPS)
    _check_jobs(jobs)
    _check_executor(executor, address)
    _check_seed(seed, MAX_CAMPAIGN_SEED)
    if max_harm is not None and not 0 <= max_harm <= 1:
        raise bad(f"--max-harm: {max_harm:g} is not allowed; a share from 0 to 1")
    algs = None if algorithms is None else [a.strip() for a in algorithms.split(",") if a.strip()]
    try:
        raw, chosen = rec.campaign_dict(
            network, direction, flows, workload, duration=duration, seed=seed, algorithms=algs,
            allow_large=allow_large, compete=compete, objective=objective,
        )  # fmt: skip
        w = rec.parse_workload(workload)
        options = rec.answer_options(network, workload, direction, flows, compete, objective, max_harm, chosen, w)
        ans.objective_of(options["objective"], w.sized)
    except rec.RecommendError as e:
        raise bad(str(e)) from None
    except Exception as e:  # a CampaignFileError not tied to one option
        raise bad(str(e)) from None
    slug = "".join(ch if ch.isalnum() else "-" for ch in f"{Path(network).stem}-{direction}-{flows}-{workload}")
    out = out or Path("ccbench-out") / f"recommend-{slug}"
    try:
        rec.check_directory(raw, out, force)
    except storage.CampaignDirectoryError as e:
        raise bad(str(e)) from None
    jobs = jobs or runner.default_jobs()
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    shown_console = Console(stderr=True, quiet=True) if as_json else console
    try:
        with Progress(*columns, console=shown_console, auto_refresh=_animated(shown_console)) as progress:
            bars = {}

            def on_round(reps):
                bars[reps] = progress.add_task(f"{reps} repetitions per algorithm", total=None)

                def show(p):
                    progress.update(bars[reps], total=p.total, completed=p.done)

                return show

            rec.run_until_decided(raw, out, jobs, executor, address, max_reps, on_round, force, options)
    except runner.CampaignInterrupted as e:
        typer.echo(f"interrupted: {e.done} of {e.total} runs done; run the same command again to resume", err=True)
        raise typer.Exit(130) from None
    except storage.CampaignDirectoryError as e:
        raise bad(str(e)) from None
    answer = json.loads((out / ans.ANSWER_FILE).read_text(encoding="utf-8"))["answer"]
    if as_json:
        from ccbench.json_output import dumps

        typer.echo(dumps(answer))
        raise typer.Exit(0 if answer["pick"] else 1)
    from ccbench.campaigns.analysis import NOTHING_DELIVERED

    if answer["pick"] is None:  # nothing to recommend: say why, and exit 1
        why = answer["no_pick"] or "no candidate has data"
        if why == NOTHING_DELIVERED:
            why = f"{NOTHING_DELIVERED} in {duration}; lengthen --duration"
        console.print(f"No pick: {escape(why)}.", highlight=False)
        _print_result("Report", out / "report.html")
        raise typer.Exit(1)
    console.print(escape(answer["answer"]), highlight=False)
    console.print(rec_table(answer))
    campaign_file = escape(str(out / rec.CAMPAIGN_FILE))
    console.print(f"Campaign file (runs with `ccbench campaign`): {campaign_file}", soft_wrap=True)
    _print_result("Report", out / "report.html")


def rec_table(answer: dict) -> Table:
    """recommend's table: each candidate's mean and the half-width of its 95% interval."""
    title = f"{answer['repetitions']} repetitions; mean ± half-width of the 95% interval"
    t = Table(title=escape(title), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    sized = any(r["completion_ms"] for r in answer["candidates"])
    heads = ["rank", "algorithm", "done in" if sized else "goodput", "p95 RTT", "retx"]  # what the objective reads
    heads += ["harm", "Jain", "vs best"] if answer["compete"] else ["Jain", "vs best"]
    for h in heads:
        t.add_column(h, justify="left" if h in ("algorithm", "vs best") else "right", no_wrap=h != "algorithm")
    t.caption = (
        "done in: mean completion time in ms" if sized else "goodput in Mbit/s"
    ) + ", p95 RTT in ms, retx in %; harm: to the competing flows (Ware et al.); Jain: fairness to its own kind"
    t.caption_justify = "left"

    def ci(v, scale=1.0, spec=".1f"):
        if not v or v["mean"] is None:
            return "–"
        half = max(v["mean"] - v["low"], v["high"] - v["mean"]) if v["low"] is not None else None  # n = 1: none
        return f"{v['mean'] * scale:{spec}}" + (f"±{half * scale:{spec}}" if half is not None else "")

    for r in answer["candidates"]:
        row = [str(r["rank"] or "–"), r["name"] + (" (!)" if r["above_max_harm"] else "")]
        row.append(ci(r["completion_ms"], spec=".0f") if sized else ci(r["goodput_bps"], 1e-6, ".2f"))
        row.append(ci(r["rtt_p95_ms"], spec=".0f"))
        row.append(_num(r["retrans_pct"]["mean"], ".2f") if r["retrans_pct"] else "–")
        row += [ci(r["harm_throughput"], spec=".2f")] if answer["compete"] else []
        row += [_num(r["jain_self"]["mean"], ".2f") if r["jain_self"] else "–", r["verdict"]]
        t.add_row(*row)
    return t


_param_line = listing.param_line

NAMES_HELP = "Show only these (a name, or part of one); default: all."
JSON_HELP = "Print as JSON (stable keys) instead of text."


def _selected(entries: list[dict], names: list[str] | None, what: str) -> list[dict]:
    try:
        return listing.select(entries, names or [], what)
    except listing.UnknownNameError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO) from None


@app.command("algorithms")
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


@app.command("kernels")
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


@app.command("profiles")
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


@app.command("new")
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
    typer.echo(str(written) if verbosity < 0 else f"Wrote {written}; run it with: ccbench run {written}")


app.command("init", help="Write a commented starter scenario (same as new).")(new_cmd)


@app.command("schema")
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


@app.command()
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


@app.command("emulate")
def emulate_cmd(
    scenario: Path | None = typer.Argument(None, help="Scenario file (TOML)."),
    out: Path | None = typer.Option(
        None, help="Output directory (default: ccbench-out/<scenario name>-kernel; -kernel-vs-sim with --compare-sim)."
    ),
    seed: int | None = typer.Option(None, help="Override the scenario's seed."),
    compare_sim: bool = typer.Option(False, "--compare-sim", help="Run in the simulator too and compare."),
    reps: int = typer.Option(1, help="With --compare-sim: repetitions per mode (seeds seed, seed+1, ...)."),
    cc: str | None = typer.Option(None, help="With --compare-sim: algorithms (a,b,c), one run each for every flow."),
    packets: bool = typer.Option(False, help="Also save the emulator's per-packet records (packets.parquet)."),
    cleanup: bool = typer.Option(False, "--cleanup", help="Remove what killed runs left (namespaces, devices)."),
    plots: bool = typer.Option(True, help="Write PNG plots."),
    force: bool = typer.Option(False, help=RUN_FORCE_HELP),
):
    """Run a scenario through the real Linux kernel's TCP over emulated links (needs root)."""
    from ccbench.emulate.command import main as emulate_main

    code = emulate_main(
        scenario,
        out,
        seed,
        compare_sim,
        reps,
        cc,
        packets,
        cleanup,
        plots,
        console,
        flows_table,
        write_run_plots,
        force=force,
    )
    raise typer.Exit(code)


@app.command("fit")
def fit_cmd(
    capture: Path = typer.Argument(..., help="Capture (pcap, pcapng) of a TCP transfer, at its sender or receiver."),
    flow: str | None = typer.Option(None, help="The flow to fit when there are several: its index or SENDER:PORT."),
    as_json: bool = typer.Option(False, "--json", help="Print every estimate and the scenario as JSON."),
):
    """Estimate a scenario of your path from a capture: ccbench fit FILE.pcap > my-path.toml (docs/fit.md)."""
    from ccbench.fit import FitInputError, fit_capture

    try:
        fitted = fit_capture(capture, flow)
    except FitInputError as e:
        typer.echo(f"error: {one_line(str(e))}", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO) from None
    if as_json:
        from ccbench.json_output import dumps

        typer.echo(dumps(fitted.to_json()))
    else:
        typer.echo(fitted.to_toml(), nl=False)


def main() -> None:
    """The `ccbench` command; the process ends without the interpreter's
    teardown of its modules (ccbench.quick_exit)."""
    from ccbench import quick_exit

    quick_exit.run(app)


if __name__ == "__main__":
    main()
