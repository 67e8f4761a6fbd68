"""`ccbench emulate`: the command behind the CLI entry (kept here so the CLI
module only declares the options)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ccbench.emulate import host, kernel, sidebyside
from ccbench.emulate.runner import emulate, read_packet_records
from ccbench.emulate.tables import result_files
from ccbench.scenario import ScenarioFileError, load

EXIT_BAD_SCENARIO = 2
EXIT_CANNOT_RUN = 3


def _compare_table(table) -> Table:
    t = Table(title="simulator vs kernel (differences: kernel minus simulator)")
    cols = [
        ("cc", "cc", "{}"),
        ("goodput sim/kern Mbit/s", None, None),
        ("goodput diff %", "goodput_diff_pct", "{:+.1f}"),
        ("RTT sim/kern ms", None, None),
        ("RTT diff %", "rtt_diff_pct", "{:+.1f}"),
        ("retrans sim/kern %", None, None),
        ("cwnd distance", "cwnd_distance", "{:.2f}"),
    ]
    for name, *_ in cols:
        t.add_column(name, justify="right")
    for _, r in table.iterrows():
        t.add_row(
            str(r["cc"]),
            f"{r['sim_goodput_mbps']:.2f} / {r['kernel_goodput_mbps']:.2f}",
            f"{r['goodput_diff_pct']:+.1f}",
            f"{r['sim_rtt_mean_ms']:.1f} / {r['kernel_rtt_mean_ms']:.1f}",
            f"{r['rtt_diff_pct']:+.1f}",
            f"{r['sim_retrans_pct']:.2f} / {r['kernel_retrans_pct']:.2f}",
            f"{r['cwnd_distance']:.2f}",
        )
    return t


def _missing_dirs(out: Path) -> list[Path]:
    """`out` and those of its parents that do not exist yet, deepest first."""
    missing, d = [], out
    while not d.exists() and d != d.parent:
        missing.append(d)
        d = d.parent
    return missing


def _remove_empty(dirs: list[Path], packets_file: Path | None) -> None:
    """Removes the emulator's unfinished packet records and the directories this
    run created, if it left them empty (a refused or interrupted run writes nothing)."""
    if packets_file is not None:
        packets_file.unlink(missing_ok=True)
    for d in dirs:
        try:
            d.rmdir()
        except OSError:  # not empty (a capture, another writer) or already gone
            return


def main(
    scenario: Path | None,
    out: Path | None,
    seed: int | None,
    compare_sim: bool,
    reps: int,
    algorithms: str | None,
    packets: bool,
    cleanup: bool,
    plots: bool,
    console: Console,
    flows_table,
    write_run_plots,
) -> int:
    """Runs the command; returns the exit code."""
    if cleanup:
        try:
            host.preflight()
        except host.PreflightError as e:
            console.print(f"error: {escape(str(e))}")
            return EXIT_CANNOT_RUN
        removed = host.cleanup(all_runs=True)
        console.print(f"removed {len(removed)} namespace(s): {', '.join(removed) or 'none left'}")
        return 0
    if scenario is None:
        console.print("error: give a scenario file (or --cleanup)")
        return EXIT_BAD_SCENARIO
    out = out or Path("ccbench-out") / f"{scenario.stem}-kernel"
    created = _missing_dirs(out)
    packets_file: Path | None = None
    try:
        normalized = load(scenario, seed=seed)
        if compare_sim:
            cc_list = [c.strip() for c in algorithms.split(",")] if algorithms else None
            with console.status("running in the simulator and through the kernel..."):
                table, pairs = sidebyside.compare(normalized, reps=reps, algorithms=cc_list)
            page = sidebyside.write_report(table, pairs, out)
            console.print(_compare_table(table))
            console.print(f"Report in [bold]{escape(str(page))}[/bold]", soft_wrap=True)
            return 0
        packets_file = out / "packets.bin" if packets else None
        out.mkdir(parents=True, exist_ok=True)
        with console.status(f"emulating {normalized['duration']:g} s through the kernel..."):
            r = emulate(normalized, packets_file=packets_file, capture_dir=out)
    except ScenarioFileError as e:
        _remove_empty(created, packets_file)
        console.print(f"error: {escape(str(e))}")
        return EXIT_BAD_SCENARIO
    except kernel.KernelModeError as e:
        _remove_empty(created, packets_file)
        console.print(f"error: {escape(str(scenario))}: {escape(str(e))}")
        return EXIT_BAD_SCENARIO
    except host.PreflightError as e:
        _remove_empty(created, packets_file)
        console.print(f"error: {escape(str(e))}")
        return EXIT_CANNOT_RUN
    except BaseException:  # Ctrl-C, SIGTERM: the run wrote nothing
        _remove_empty(created, packets_file)
        raise
    pcap = r.meta.get("pcap")
    if pcap:  # saved relative to the results directory, where it was written
        pcap["path"] = normalized["record"]["pcap"]["path"]
    result_files.save(r, out)
    if packets_file is not None:
        result_files.write_table(out, "packets", read_packet_records(packets_file), csv=False)
        packets_file.unlink()
    else:  # a directory reused from a run with --packets keeps no records of another run
        (out / "packets.parquet").unlink(missing_ok=True)
    pngs = write_run_plots(out) if plots else []
    console.print(flows_table(r.flows, f"{normalized['name'] or scenario.stem}: Linux {r.meta['kernel']}"))
    from ccbench.flow_limits import flow_notes

    for note in flow_notes(r.flows, normalized):
        console.print(f"note: {escape(note)}", soft_wrap=True, highlight=False)
    for link in r.meta["emulator"]["per_link"]:
        console.print(
            f"{link['link']}: delivery lateness p50 {link['lateness_p50_us']} us, p99 {link['lateness_p99_us']} us; "
            f"{link['overruns']} overruns, {link['write_failures']} write failures"
        )
    console.print(
        f"Results in [bold]{escape(str(out))}[/bold]" + (f" ({len(pngs)} plots)" if pngs else ""), soft_wrap=True
    )
    if pcap and pcap.get("error"):
        console.print(f"error: record.pcap.path: {escape(pcap['error'])}")
        return EXIT_CANNOT_RUN
    if pcap:
        console.print(
            f"Packet capture in [bold]{escape(str(out / pcap['path']))}[/bold] ({pcap['packets']} packets as "
            "the senders' hosts saw them, stamped with the time since the run's start)",
            soft_wrap=True,
        )
    return 0
