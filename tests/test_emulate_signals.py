"""`ccbench emulate` under signals, without the kernel (issue 52): SIGINT to
the driver stops the run even when the driver was started with SIGINT
ignored (a shell's background job), exits 130 with a message and writes
nothing; what a driver killed with kill -9 registered (its `.partial`
directory and lock) is removed by the next run's reaper (host.cleanup) and
by `--cleanup`, and what a live run registered is left alone."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from ccbench.emulate import command, host
from ccbench.emulate.runner import unavailable as kernel_mode_unavailable
from rich.console import Console

SCENARIO = 'duration = "1s"\n[downlink]\nrate = "2Mbit"\ndelay = "10ms"\n[[flows]]\ncc = "reno"\n'


@pytest.fixture
def registry(tmp_path, monkeypatch) -> Path:
    monkeypatch.setattr(host, "REGISTRY", tmp_path / "registry")
    return tmp_path / "registry"


def test_sigint_to_the_driver_alone_stops_the_run_with_exit_130(tmp_path, monkeypatch, registry):
    (tmp_path / "s.toml").write_text(SCENARIO)
    seen = {}

    def run_until_interrupted(normalized, packets_file=None, capture_dir=None):
        seen["stage"] = Path(capture_dir)
        seen["registered"] = sorted(p.name for p in registry.iterdir())
        os.kill(os.getpid(), signal.SIGINT)  # as `kill -INT` of the driver alone
        time.sleep(30)
        raise AssertionError("SIGINT was ignored")

    monkeypatch.setattr(command, "emulate", run_until_interrupted)
    monkeypatch.setattr(command.kernel, "check", lambda *a: None)
    monkeypatch.setattr(command.kernel, "available_algorithms", lambda: ["reno"])
    monkeypatch.setattr(command.host, "preflight", lambda: None)
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a background job's driver
    try:
        console = Console(record=True, width=300)
        out = tmp_path / "out"
        code = command.main(tmp_path / "s.toml", out, None, False, 1, None, False, False, False, console, None, None)
        after = signal.getsignal(signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, old)
    assert code == 130
    assert "interrupted: the run was stopped" in console.export_text()
    assert seen["registered"] == [f"{os.getpid():x}.json"]
    assert not out.exists() and not seen["stage"].exists()
    assert not list(registry.iterdir())
    assert after is signal.SIG_IGN  # the driver's own setting again after the run


def _register(registry: Path, tag: str, tmp_path: Path) -> tuple[Path, Path]:
    stage = tmp_path / ".out.abc.partial"
    stage.mkdir()
    (stage / "flows.parquet").write_bytes(b"half")
    lock = tmp_path / ".out.lock"
    lock.write_bytes(b"")
    registry.mkdir(exist_ok=True)
    (registry / f"{tag}.json").write_text(f'{{"stage": "{stage}", "lock": "{lock}"}}')
    return stage, lock


def _dead_pid() -> int:
    pid = 4_000_000
    while host.alive(pid):
        pid += 1
    return pid


def test_the_reaper_removes_what_a_killed_run_left(tmp_path, registry):
    stage, lock = _register(registry, f"{_dead_pid():x}", tmp_path)
    removed = host.dead_outputs()
    assert sorted(removed) == sorted([str(stage), str(lock)])
    assert not stage.exists() and not lock.exists() and not list(registry.iterdir())


def test_the_reaper_leaves_a_live_run_alone(tmp_path, registry):
    stage, lock = _register(registry, f"{os.getppid():x}", tmp_path)
    assert host.dead_outputs() == []
    assert stage.exists() and lock.exists()


def test_registration_lasts_as_long_as_the_run(tmp_path, registry):
    with host.registered_output("abc", tmp_path / ".x.partial", tmp_path / ".x.lock"):
        assert (registry / "abc.json").exists()
    assert not (registry / "abc.json").exists()


def _driver(tmp_path: Path, ignore_sigint: bool):
    """`ccbench emulate` of a 60 s run in its own process group; returns it once both of its namespaces exist."""
    import subprocess
    import sys

    (tmp_path / "s.toml").write_text(SCENARIO.replace('"1s"', '"60s"'))

    def start():
        os.setpgrp()
        if ignore_sigint:
            signal.signal(signal.SIGINT, signal.SIG_IGN)

    p = subprocess.Popen(
        [sys.executable, "-m", "ccbench.cli", "emulate", "s.toml", "--out", "out", "--no-plots"],
        cwd=tmp_path,
        preexec_fn=start,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    names = host.Names(f"{p.pid:x}")
    deadline = time.monotonic() + 120
    while not {names.sender_ns, names.receiver_ns} <= set(host.namespaces()):
        assert p.poll() is None and time.monotonic() < deadline, p.stdout.read() if p.poll() is not None else "slow"
        time.sleep(0.2)
    time.sleep(1)
    return p, names


KERNEL_MODE_MISSING = kernel_mode_unavailable()


@pytest.mark.skipif(KERNEL_MODE_MISSING is not None, reason=f"kernel mode unavailable: {KERNEL_MODE_MISSING}")
def test_kill_9_of_the_driver_leaves_nothing_after_cleanup(tmp_path):
    p, names = _driver(tmp_path, ignore_sigint=False)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    assert list(tmp_path.glob(".out.*.partial"))  # what kill -9 leaves until the reaper runs
    from ccbench.cli import app
    from typer.testing import CliRunner

    result = CliRunner().invoke(app, ["emulate", "--cleanup"])
    assert result.exit_code == 0, result.output
    assert names.sender_ns not in host.namespaces() and names.receiver_ns not in host.namespaces()
    assert not list(tmp_path.glob(".out.*.partial")) and not (tmp_path / ".out.lock").exists()
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(KERNEL_MODE_MISSING is not None, reason=f"kernel mode unavailable: {KERNEL_MODE_MISSING}")
def test_sigint_to_a_real_driver_alone_exits_130_and_leaves_nothing(tmp_path):
    p, names = _driver(tmp_path, ignore_sigint=True)
    os.kill(p.pid, signal.SIGINT)
    output, _ = p.communicate(timeout=60)
    assert p.returncode == 130, output
    assert "interrupted" in output
    assert names.sender_ns not in host.namespaces() and names.receiver_ns not in host.namespaces()
    assert not list(tmp_path.glob(".out.*.partial")) and not (tmp_path / "out").exists()
