"""`emulate`: a scenario through the real Linux kernel's TCP over emulated
links (ccbench.emulate.command does the work; the run's summary and plots are
those of `run`).
"""

from __future__ import annotations

from pathlib import Path

import typer

from ccbench.cli.common import RUN_FORCE_HELP, console
from ccbench.cli.run import flows_table, write_run_plots


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
