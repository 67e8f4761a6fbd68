"""The commands of one run: `run` (a scenario in the simulator: its summary,
tables and plots) and `plot` (a saved run's plots), with the summary's table,
lines and warnings that `emulate` prints too.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from ccbench import _ccsim
from ccbench.cli import common
from ccbench.cli.campaign import report_cmd
from ccbench.cli.common import (
    ALLOW_LARGE_HELP,
    EXIT_BAD_SCENARIO,
    RUN_FORCE_HELP,
    _check_seed,
    _load_or_exit,
    _num,
    console,
)
from ccbench.limits import one_line, shown
from ccbench.run_plots import RUN_PLOTS
from ccbench.scenario import create_capture_file


def mbit_text(bps: float) -> str:
    """A rate in Mbit/s to three significant digits, never in scientific notation: 10000 (not
    1e+04), 12.3, 0.384."""
    import numpy as np

    return np.format_float_positional(bps / 1e6, precision=3, unique=False, fractional=False, trim="-")


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
    if common.verbosity < 0:
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
    if common.verbosity > 0:
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
