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


def test_a_one_condition_report_draws_its_figures_in_processes_to_the_same_page(one_flow_campaign, tmp_path):
    """A report of one condition (what `ccbench recommend` writes) draws its
    figures in `jobs` processes, a figure per task: it used to draw them all
    in this process, a condition being the unit of work. The page and the
    figures are those drawn in one process."""
    import os

    from ccbench.campaigns import report

    log = tmp_path / "drawn"
    draw = report.condition_figure

    def logged(data, c, objective, factor, name):
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"{os.getpid()} {name}\n")
        return draw(data, c, objective, factor, name)

    drawn, pages = {}, {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(report, "condition_figure", logged)
        for jobs in (1, 2):
            log.write_text("")
            report.build(one_flow_campaign, jobs=jobs)
            drawn[jobs] = [line.split() for line in log.read_text().splitlines()]
            pages[jobs] = (one_flow_campaign / "report.html").read_bytes()
    names = ["bars", "plane", "cdfs", "goodput_over_time", "cwnd", "rtt"]
    assert [name for _, name in drawn[1]] == names and {pid for pid, _ in drawn[1]} == {str(os.getpid())}
    assert sorted(name for _, name in drawn[2]) == sorted(names)
    assert str(os.getpid()) not in {pid for pid, _ in drawn[2]}
    assert pages[1] == pages[2]


def test_conditions_are_titled_in_words_not_field_paths():
    """Conditions were titled "flows[*].tcp.rcv_buf = auto", which the
    terminal table cut to "flows[*].tcp.rcv_b..."."""
    from ccbench.campaigns.report import factor_words

    words = factor_words(["flows[*].tcp.rcv_buf", "downlink.queue.size", "duration", "flows[0].cc"])
    assert words == {
        "flows[*].tcp.rcv_buf": "tcp rcv buf",
        "downlink.queue.size": "queue size",
        "duration": "duration",
        "flows[0].cc": "flows cc",
    }
    # Two factors that end alike keep the names that tell them apart.
    assert factor_words(["downlink.queue.size", "uplink.queue.size"]) == {
        "downlink.queue.size": "downlink queue size",
        "uplink.queue.size": "uplink queue size",
    }
