"""The `ccbench` command line: run, compare, algorithms, profiles, validate.

A bad scenario file prints one message (field path, bad value, what is
allowed) and exits with code 2 before anything runs or any file is written.
"""

from __future__ import annotations

import time
from pathlib import Path

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ccbench import _ccsim
from ccbench.scenario import ScenarioFileError, load

app = typer.Typer(
    add_completion=False, no_args_is_help=True, help="Compare TCP congestion controls on your network, and pick one."
)
console = Console()

EXIT_BAD_SCENARIO = 2
#: Repetitions of `ccbench compare`: 4 gives t(0.975, 3) = 3.18 for the CIs and
#: keeps the default campaign (about 22 algorithms x 4 conditions) near a minute
#: on two cores; the cost is mostly fixed per run, so repetitions are what counts.
DEFAULT_REPS = 4


def _load_or_exit(path: Path, seed: int | None = None) -> dict:
    try:
        return load(path, seed=seed)
    except ScenarioFileError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO) from None


def _mbps(v: float) -> str:
    return "–" if v != v else f"{v / 1e6:.2f}"


def _num(v: float, fmt: str = ".1f") -> str:
    return "–" if v != v else format(v, fmt)


def flows_table(flows, title: str) -> Table:
    t = Table(
        title=title,
        title_justify="left",
        box=box.SIMPLE_HEAD,
        padding=(0, 0),
        pad_edge=False,
        caption="rates in Mbit/s, times in ms; done: completion time of a file (s)",
        caption_justify="left",
    )
    for h in ("flow", "cc", "dir", "goodput", "thruput", "retx %", "RTOs", "RTT", "p95", "queuing", "done"):
        t.add_column(h, justify="left" if h in ("cc", "dir") else "right", no_wrap=True)
    for _, f in flows.iterrows():
        t.add_row(
            str(f["flow"]),
            f["cc"],
            f["direction"],
            _mbps(f["goodput_bps"]),
            _mbps(f["throughput_bps"]),
            _num(f["retrans_pct"], ".2f"),
            str(f["timeouts"]),
            _num(f["rtt_mean_ms"]),
            _num(f["rtt_p95_ms"]),
            _num(f["queuing_mean_ms"]),
            _num(f["completion_s"], ".2f"),
        )
    return t


def write_run_plots(run_dir: Path) -> list[Path]:
    """The run's PNGs, drawn from its saved tables."""
    from ccbench import plots, results

    r = results.load(run_dir)
    rtt_groups = {
        f"flow {k} ({r.flows.loc[r.flows['flow'] == k, 'cc'].iloc[0]})": g["rtt_ms"].to_numpy()
        for k, g in r.rtt.groupby("flow", sort=True)
    }
    figures = {
        "cwnd.png": plots.cwnd_over_time(r.series, r.flows),
        "rtt.png": plots.rtt_over_time(r.rtt, r.flows),
        "goodput.png": plots.rate_over_time(r.series, r.flows),
        "rtt_cdf.png": plots.cdf(rtt_groups, "RTT (ms)", "CDF of per-ACK RTT"),
    }
    return [plots.save_png(fig, run_dir / name) for name, fig in figures.items()]


@app.command()
def run(
    scenario: Path = typer.Argument(..., help="Scenario file (TOML)."),
    out: Path | None = typer.Option(None, help="Output directory (default: ccbench-out/<scenario name>)."),
    seed: int | None = typer.Option(None, help="Override the scenario's seed."),
    plots: bool = typer.Option(True, help="Write PNG plots."),
):
    """Run one scenario: print per-flow results, save tables and plots."""
    normalized = _load_or_exit(scenario, seed)
    from ccbench import results
    from ccbench.api import run as run_scenario

    out = out or Path("ccbench-out") / scenario.stem
    with console.status("simulating..."):
        r = run_scenario(normalized)
    results.save(r, out)
    pngs = write_run_plots(out) if plots else []
    console.print(
        flows_table(
            r.flows,
            f"{normalized['name'] or scenario.stem}: seed {r.meta['seed']}, "
            f"{r.meta['duration_s']:g} s simulated in {r.meta['wall_seconds']:.2f} s",
        )
    )
    for _, link in r.links.iterrows():
        if link["goodput_bps"] > 0:
            console.print(
                f"{link['link']}: utilization {100 * link['utilization']:.1f}% (sum of goodputs over "
                f"{link['capacity_bps'] / 1e6:.2f} Mbit/s payload capacity), {link['queue_drops']} queue drops, "
                f"{link['channel_losses']} channel losses"
            )
    if r.flows["active_s"].nunique() > 1:
        console.print(
            "note: the flows were active for different times, so the sum of their goodputs "
            "overstates the share of the link they used together."
        )
    if len(r.flows) > 1:
        console.print(f"Jain's fairness index: {r.jain_index():.3f}")
    console.print(
        f"Results in [bold]{escape(str(out))}[/bold] ({len(results.TABLES)} tables, meta.json"
        + (f", {len(pngs)} plots" if pngs else "")
        + ")",
        soft_wrap=True,
    )


@app.command()
def compare(
    out: Path = typer.Option(Path("ccbench-out/compare"), help="Output directory."),
    reps: int | None = typer.Option(None, help="Repetitions with distinct seeds (default 4; 2 with --quick)."),
    jobs: int | None = typer.Option(None, help="Parallel processes (default: all cores)."),
    quick: bool = typer.Option(False, help="Short runs (for a first look and for tests)."),
    seed: int = typer.Option(1, help="Seed of the first repetition; repetition r uses seed + r."),
    algorithms: str | None = typer.Option(None, help="Comma-separated subset (default: every algorithm)."),
):
    """Every algorithm over built-in network conditions; writes report.html."""
    from ccbench import compare as cmp
    from ccbench import report

    known = cmp.algorithm_names()
    algs = known if not algorithms else [a.strip() for a in algorithms.split(",") if a.strip()]
    bad = [a for a in algs if a not in known]
    if bad:
        typer.echo(f"error: --algorithms: unknown algorithm '{bad[0]}'; known: {', '.join(known)}", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO)
    reps = reps if reps is not None else (2 if quick else DEFAULT_REPS)
    if reps < 1:
        typer.echo(f"error: --reps: {reps} is not allowed; at least 1", err=True)
        raise typer.Exit(EXIT_BAD_SCENARIO)
    jobs = jobs or cmp.default_jobs()
    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    task_list = cmp.tasks(out, algs, reps, quick, base_seed=seed)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        bar = progress.add_task(f"simulating ({jobs} processes)", total=len(task_list))
        flows, runs = cmp.run_all(task_list, jobs, on_done=lambda: progress.advance(bar))
        cmp.save_campaign(out, flows, runs, cmp.campaign_info(algs, reps, quick, seed))
        rep_task = progress.add_task("building the report", total=1)
        path = report.build(out)
        progress.advance(rep_task)
    elapsed = time.perf_counter() - started
    summary = Table(title="Recommendations (details in the report)", title_justify="left")
    for h in ("conditions", "pick", "statistically tied"):
        summary.add_column(h)
    for _key, title, pick, tied in report.builder.recommendations(out):
        summary.add_row(title, pick, ", ".join(tied) or "–")
    console.print(summary)
    console.print(
        f"{len(algs)} algorithms × {len(cmp.CONDITIONS)} conditions × {reps} repetitions = "
        f"{len(task_list)} runs in {elapsed:.1f} s"
    )
    console.print(f"Report: [bold]{escape(str(path))}[/bold]", soft_wrap=True)


@app.command("algorithms")
def algorithms_cmd():
    """Every algorithm with its reference and parameters (defaults)."""
    t = Table(show_lines=True)
    t.add_column("name", style="bold")
    t.add_column("reference")
    t.add_column("summary")
    t.add_column("parameters (default, range)")
    for a in _ccsim.algorithms():
        params = "\n".join(
            f"{p['name']} = {p['default']:g} ({p['min']:g}..{p['max']:g}): {p['doc']}" for p in a["params"]
        )
        t.add_row(a["name"], a["reference"], a["summary"], params or "–")
    console.print(t)


@app.command("profiles")
def profiles_cmd():
    """Named network profiles (profile = "NAME" in a scenario): parameters, options and sources."""
    from rich.markup import escape

    from ccbench import profiles

    t = Table(show_lines=True)
    t.add_column("name", style="bold", no_wrap=True)
    t.add_column("description")
    t.add_column("parameters")
    t.add_column("options")
    t.add_column("sources")
    for p in profiles.list_profiles():
        params = "\n".join(escape(f"{k} = {v}") for k, v in p["parameters"].items())
        opts = "\n".join(
            escape(f"{k} = {o['default']!r} ({', '.join(map(str, o['allowed']))}): {o['doc']}")
            for k, o in p["options"].items()
        )
        t.add_row(
            p["name"], escape(p["description"]), params, opts or "–", "\n".join(escape(f"• {s}") for s in p["sources"])
        )
    console.print(t)


@app.command()
def validate(scenario: Path = typer.Argument(..., help="Scenario file (TOML).")):
    """Check a scenario file without running it."""
    s = _load_or_exit(scenario)
    flows = sum(f["count"] for f in s["flows"])
    console.print(
        f"{scenario}: OK ({s['name'] or 'unnamed'}: {flows} flow(s), {s['duration']:g} s, seed {s['seed']})",
        soft_wrap=True,
        highlight=False,
    )


@app.command("emulate")
def emulate_cmd(
    scenario: Path | None = typer.Argument(None, help="Scenario file (TOML)."),
    out: Path | None = typer.Option(None, help="Output directory (default: ccbench-out/<scenario name>-kernel)."),
    seed: int | None = typer.Option(None, help="Override the scenario's seed."),
    compare_sim: bool = typer.Option(False, "--compare-sim", help="Run in the simulator too and compare."),
    reps: int = typer.Option(1, help="With --compare-sim: repetitions per mode (seeds seed, seed+1, ...)."),
    cc: str | None = typer.Option(None, help="With --compare-sim: algorithms (a,b,c), one run each for every flow."),
    packets: bool = typer.Option(False, help="Also save the emulator's per-packet records (packets.parquet)."),
    cleanup: bool = typer.Option(False, "--cleanup", help="Remove what killed runs left (namespaces, devices)."),
    plots: bool = typer.Option(True, help="Write PNG plots."),
):
    """Run a scenario through the real Linux kernel's TCP over emulated links (needs root)."""
    from ccbench.emulate.command import main as emulate_main

    code = emulate_main(
        scenario, out, seed, compare_sim, reps, cc, packets, cleanup, plots, console, flows_table, write_run_plots
    )
    raise typer.Exit(code)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
