"""`ccbench emulate`: the command behind the CLI entry (kept here so the CLI
module only declares the options)."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ccbench.emulate import host, kernel, sidebyside
from ccbench.emulate.runner import emulate, read_packet_records
from ccbench.emulate.tables import result_files
from ccbench.limits import one_line
from ccbench.run_directory import OutputDirectoryError, staged
from ccbench.scenario import ScenarioFileError, load

EXIT_BAD_SCENARIO = 2
EXIT_CANNOT_RUN = 3
#: Ctrl-C, as `ccbench run` and `ccbench campaign` exit.
EXIT_INTERRUPTED = 130


@contextlib.contextmanager
def _interruptible() -> Iterator[None]:
    """SIGINT is KeyboardInterrupt while the run lasts, also when the process
    was started with SIGINT ignored (a shell's background job: `kill -INT` of
    the driver alone was ignored and the run went on to exit 0); the run's
    teardown then removes its processes, namespaces and staging directory."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _diff(r, metric: str) -> str:
    ci = r[f"{metric}_diff_ci95_pct"]
    text = f"{r[f'{metric}_diff_pct']:+.1f}" + (f" ± {ci:.1f}" if ci == ci else "")
    return f"{text} {r[f'{metric}_verdict']}"


def _compare_table(table) -> Table:
    t = Table(title="simulator vs kernel (kernel minus simulator, 95% CI over paired repetitions)")
    for name in (
        "cc",
        "goodput sim/kern Mbit/s",
        "goodput diff %",
        "RTT sim/kern ms",
        "RTT diff %",
        "retrans sim/kern %",
        "cwnd distance",
    ):
        t.add_column(name, justify="right")
    for _, r in table.iterrows():
        t.add_row(
            str(r["cc"]),
            f"{r['sim_goodput_mbps']:.2f} / {r['kernel_goodput_mbps']:.2f}",
            _diff(r, "goodput"),
            f"{r['sim_rtt_mean_ms']:.1f} / {r['kernel_rtt_mean_ms']:.1f}",
            _diff(r, "rtt"),
            f"{r['sim_retrans_pct']:.2f} / {r['kernel_retrans_pct']:.2f}",
            f"{r['cwnd_distance']:.2f}",
        )
    return t


def default_output(scenario: Path, compare_sim: bool) -> Path:
    """ccbench-out/STEM-kernel or ccbench-out/STEM-kernel-vs-sim, without
    repeating a suffix the file's name already has (kernel-vs-sim.toml)."""
    suffix = "kernel-vs-sim" if compare_sim else "kernel"
    stem = scenario.stem
    return Path("ccbench-out") / (stem if stem == suffix or stem.endswith(f"-{suffix}") else f"{stem}-{suffix}")


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
    force: bool = False,
) -> int:
    """Runs the command; returns the exit code. The results directory is
    `ccbench run`'s (ccbench.run_directory): one that is not empty is refused
    unless `force` and it holds a run, and the run is written into a
    temporary sibling renamed into place when complete, so a refused, failed
    or interrupted run writes nothing."""
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
    # A comparison's report has a directory of its own, apart from a run's.
    out = out or default_output(scenario, compare_sim)
    try:
        normalized = load(scenario, seed=seed)
        if compare_sim:
            cc_list = [c.strip() for c in algorithms.split(",")] if algorithms else None
            with console.status("running in the simulator and through the kernel..."):
                table, pairs = sidebyside.compare(normalized, reps=reps, algorithms=cc_list)
            title = f"{normalized['name'] or scenario.stem}: simulator vs Linux kernel"
            page = sidebyside.write_report(table, pairs, out, title)
            console.print(_compare_table(table))
            console.print(f"Report in [bold]{escape(str(page))}[/bold]", soft_wrap=True)
            return 0
        # Refused before the output directory is touched (the run checks again).
        kernel.check(normalized, kernel.available_algorithms())
        host.preflight()
        with (
            staged(out, force) as stage,
            _interruptible(),
            host.registered_output(
                host.Names.for_this_process().tag, stage, stage.parent / f".{Path(out).resolve().name}.lock"
            ),
        ):
            packets_file = stage / "packets.bin" if packets else None
            with console.status(f"emulating {normalized['duration']:g} s through the kernel..."):
                r = emulate(normalized, packets_file=packets_file, capture_dir=stage)
            pcap = r.meta.get("pcap")
            if pcap:  # saved relative to the results directory, which the stage becomes
                pcap["path"] = normalized["record"]["pcap"]["path"]
                if pcap.get("error"):
                    pcap["error"] = pcap["error"].replace(str(stage), str(out))
            result_files.save(r, stage)
            if packets_file is not None:
                result_files.write_table(stage, "packets", read_packet_records(packets_file), csv=False)
                packets_file.unlink()
            pngs = write_run_plots(stage) if plots else []
    except ScenarioFileError as e:
        console.print(f"error: {escape(str(e))}")
        return EXIT_BAD_SCENARIO
    except OutputDirectoryError as e:
        console.print(f"error: {escape(one_line(str(e)))}", soft_wrap=True)
        return EXIT_BAD_SCENARIO
    except kernel.KernelModeError as e:
        console.print(f"error: {escape(str(scenario))}: {escape(str(e))}")
        return EXIT_BAD_SCENARIO
    except host.PreflightError as e:
        console.print(f"error: {escape(str(e))}")
        return EXIT_CANNOT_RUN
    except KeyboardInterrupt:
        console.print(f"interrupted: the run was stopped and its namespaces removed; nothing was written to {out}")
        return EXIT_INTERRUPTED
    console.print(flows_table(r.flows, f"{normalized['name'] or scenario.stem}: Linux {r.meta['kernel']}"))
    from ccbench.flow_limits import flow_notes

    for note in flow_notes(r.flows, normalized):
        console.print(f"note: {escape(note)}", soft_wrap=True, highlight=False)
    for link in r.meta["emulator"]["per_link"]:
        console.print(
            f"{link['link']}: delivery lateness p50 {link['lateness_p50_us']} us, p99 {link['lateness_p99_us']} us; "
            f"{link['overruns']} overruns, {link['write_failures']} write failures"
        )
    wakeups = r.meta["emulator"]["host_wakeups"]
    console.print(
        f"host: woke the emulator's priority late by {wakeups['lateness_p50_us']} us at p50, "
        f"{wakeups['lateness_p99_us']} us at p99, {wakeups['lateness_max_us']:.0f} us at most"
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
