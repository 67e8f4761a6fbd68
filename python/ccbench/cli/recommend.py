"""The commands about your own network: `recommend` (which congestion control
for it, in words and a table) and `fit` (a scenario of your path estimated
from a capture).
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ccbench.cli.common import (
    ALLOW_LARGE_HELP,
    EXECUTOR_HELP,
    EXIT_BAD_SCENARIO,
    MAX_CAMPAIGN_SEED,
    _animated,
    _check_executor,
    _check_jobs,
    _check_max_reps,
    _check_seed,
    _num,
    _print_result,
    console,
)
from ccbench.limits import one_line


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
