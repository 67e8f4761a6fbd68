"""Shared fixtures: a small scenario and one quick campaign reused by several tests."""

from __future__ import annotations

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
