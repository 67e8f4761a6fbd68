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
