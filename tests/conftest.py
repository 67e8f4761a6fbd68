"""Shared fixtures: a small scenario, one quick campaign reused by several
tests, `require_tool` for tests that need a program on the PATH, and
`bench_module` for tests of the scripts in bench/."""

from __future__ import annotations

import importlib
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from ccbench import compare
from typer.testing import CliRunner


@pytest.fixture
def small_scenario() -> dict:
    return {
        "name": "small",
        "duration": "3s",
        "downlink": {"rate": "5Mbit", "delay": "10ms", "loss": {"model": "bernoulli", "p": 0.01}},
        "flows": [{"cc": "cubic"}, {"cc": "reno", "size": "200KB", "start": "0.5s"}],
    }


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture(scope="session")
def quick_campaign(tmp_path_factory):
    """`ccbench compare --quick` over every algorithm, run once per session."""
    from ccbench.cli import app

    out = tmp_path_factory.mktemp("compare") / "out"
    result = CliRunner().invoke(app, ["compare", "--quick", "--out", str(out), "--jobs", "2"], terminal_width=250)
    assert result.exit_code == 0, result.output
    return out, result.output, compare.algorithm_names()


def find_tool(names: tuple[str, ...], install: str, ci: bool) -> str:
    """The path of the first program of `names` on the PATH. Without any of
    them the test fails when `ci` (CI installs every tool, so a missing one is
    a broken setup, not a reason to pass) and is skipped otherwise, the
    reason naming the tool and how to install it."""
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    reason = f"needs {' or '.join(names)} on the PATH ({install})"
    if ci:
        pytest.fail(f"{reason}; required under CI=true")
    pytest.skip(reason)


@pytest.fixture
def require_tool() -> Callable[..., str]:
    """`require_tool("chromium", "chromium-browser", install="apt-get install
    chromium")` returns the tool's path, or fails under CI=true, or skips with
    the reason."""

    def require(*names: str, install: str) -> str:
        return find_tool(names, install, ci=os.environ.get("CI", "").lower() == "true")

    return require


@pytest.fixture
def bench_module() -> Callable[[str], ModuleType]:
    """`bench_module("suite")` imports bench/suite.py (with bench/ on the
    path while it imports what it needs beside it)."""
    bench = str(Path(__file__).resolve().parent.parent / "bench")

    def load(name: str) -> ModuleType:
        sys.path.insert(0, bench)
        try:
            return importlib.import_module(name)
        finally:
            sys.path.remove(bench)

    return load


def default_sigint() -> None:
    """`preexec_fn` for a child that a test interrupts with SIGINT: a shell
    that starts a job in the background (`cmd &`) ignores SIGINT in it, and
    the child would inherit that; the child gets the default action back, so
    Python turns SIGINT into KeyboardInterrupt as it does in a terminal."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
