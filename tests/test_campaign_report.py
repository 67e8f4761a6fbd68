"""The campaign report's recommendation: refusals before anything is written."""

from __future__ import annotations

import pytest
from ccbench.cli import app


@pytest.fixture(scope="module")
def one_flow_campaign(tmp_path_factory):
    """Two algorithms, one flow per run, two short repetitions."""
    import ccbench

    out = tmp_path_factory.mktemp("report") / "one-flow"
    ccbench.campaign(
        {
            "name": "one flow",
            "repetitions": 2,
            "common_seeds": ["flows[0].cc"],
            "scenario": {"duration": "1s", "downlink": {"rate": "10Mbit", "delay": "10ms"}, "flows": [{"cc": "reno"}]},
            "factors": {"flows[0].cc": ["reno", "cubic"]},
        },
        out=out,
        jobs=1,
    )
    return out


def test_fairness_of_one_flow_runs_is_refused_before_anything_is_written(one_flow_campaign, runner):
    out = one_flow_campaign
    before = {p: (out / p).read_bytes() for p in ("report.html", "recommendations.json")}
    result = runner.invoke(app, ["report", str(out), "--objective", "fairness"], terminal_width=200)
    assert result.exit_code == 2
    assert result.output == (
        "error: --objective fairness: Jain's index needs at least two flows per run; these runs have one\n"
    )
    assert {p: (out / p).read_bytes() for p in before} == before


def test_a_campaign_file_asking_fairness_of_one_flow_runs_is_refused_before_running(tmp_path, runner):
    file = tmp_path / "fair.toml"
    file.write_text(
        'name = "fair"\nrepetitions = 1\n[scenario]\nduration = "1s"\ndownlink = { rate = "10Mbit", delay = "10ms" }\n'
        'flows = [{ cc = "reno" }]\n[factors]\n"flows[0].cc" = ["reno", "cubic"]\n[analysis]\nobjective = "fairness"\n'
    )
    out = tmp_path / "out"
    result = runner.invoke(app, ["campaign", str(file), "--out", str(out)], terminal_width=200)
    assert result.exit_code == 2
    assert result.output == (
        f"error: {file}: analysis.objective fairness: Jain's index needs at least two flows per run; "
        "these runs have one\n"
    )
    assert not out.exists()


def test_a_campaign_with_no_finished_run_is_refused_naming_its_plan_and_command(tmp_path, runner):
    from ccbench.campaigns import spec, storage

    file = tmp_path / "c.toml"
    file.write_text(
        '[scenario]\nduration = "1s"\ndownlink = { rate = "10Mbit" }\nflows = [{ cc = "reno" }]\n'
        '[factors]\n"flows[0].cc" = ["reno", "cubic"]\n"downlink.delay" = ["10ms", "30ms"]\n'
    )
    out = tmp_path / "out"
    storage.prepare(out, spec.parse(file), False, "test").close()  # every run planned, none run yet
    result = runner.invoke(app, ["report", str(out)], terminal_width=300)
    assert result.exit_code == 2
    assert result.output == (
        f"error: {out}: no finished run to report on (4 runs planned); "
        f"run them with: ccbench campaign {out}/campaign.toml --out {out}\n"
    )
    assert not (out / "report.html").exists()
