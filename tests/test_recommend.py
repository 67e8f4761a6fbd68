"""`ccbench recommend`: one command from a network profile to a ranked answer."""

import subprocess
import sys

import pytest
from ccbench.campaigns import recommend
from ccbench.cli import app


def test_recommend_ranks_every_algorithm_and_adds_repetitions_only_while_undecided(tmp_path, runner):
    out = tmp_path / "rec"
    args = ["recommend", "--profile", "lte-edge", "--duration", "2s", "--max-reps", "3", "--out", str(out)]
    result = runner.invoke(app, args + ["--jobs", "2", "--algorithms", "bbr,vegas"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "On this path pick " in result.output and f"Report: {out / 'report.html'}" in result.output
    # the README's text output width (the report's and campaign's paths are not broken: copied whole)
    assert max(len(line) for line in result.output.splitlines() if not line.startswith(("Report: ", "Campaign"))) <= 80
    for name in ("cubic", "bbr", "vegas"):
        assert f" {name} " in result.output
    import ccbench

    index = ccbench.load(out).index
    assert set(index["rep"]) <= {0, 1, 2} and (index["completions"] == 1).all()
    # repetition 0 keeps only the tables the report draws from
    kept = list((out / "tables").iterdir())
    assert len(kept) == (index["rep"] == 0).sum()
    for d in kept:
        assert sorted(p.name for p in d.iterdir()) == ["flows.parquet", "meta.json", "rtt.parquet", "series.parquet"]
    assert list((out / "plots").glob("*.png"))  # the report's figures, the time series too


def test_recommend_imports_the_reports_modules_while_its_workers_run(tmp_path, runner, monkeypatch):
    """As `ccbench compare` does: the report's imports (matplotlib, scipy)
    overlap the first round's runs instead of following the last round."""
    import multiprocessing

    from ccbench.campaigns import runner as campaign_runner

    asked = []
    start = campaign_runner._import_in_background

    def spy(modules):
        asked.append((modules, len(multiprocessing.active_children())))
        return start(modules)

    monkeypatch.setattr(campaign_runner, "_import_in_background", spy)
    args = ["recommend", "--profile", "lte-edge", "--duration", "1s", "--max-reps", "3", "--jobs", "2"]
    result = runner.invoke(app, args + ["--out", str(tmp_path / "rec"), "--algorithms", "reno"])
    assert result.exit_code == 0, result.output
    assert asked == [(campaign_runner.REPORT_MODULES, 2)]


# Run in a fresh interpreter: which modules a command imported before its
# workers started, when the preload begins (pytest's own process has them all).
PRELOAD_PROBE = """
import sys
from ccbench.campaigns import runner
start = runner._import_in_background

def spy(modules):
    print("already imported:", "matplotlib" in sys.modules, flush=True)
    return start(modules)

runner._import_in_background = spy
from ccbench.cli import app
app(sys.argv[1:])
"""


@pytest.mark.parametrize("command", ["recommend", "campaign"])
def test_the_report_s_plotting_is_first_imported_while_the_workers_run(tmp_path, command):
    """The preload overlaps matplotlib's import with the runs only if nothing
    imported it before: recommend's module and the campaign's objective
    check each imported the report's (and so matplotlib) at the start."""
    if command == "recommend":
        args = ["recommend", "--profile", "lte-edge", "--duration", "1s", "--max-reps", "3", "--algorithms", "reno"]
    else:
        f = tmp_path / "c.toml"
        f.write_text(
            'name = "c"\nrepetitions = 2\n[scenario]\nprofile = "lte-edge"\nduration = "1s"\n'
            'flows = [{cc = "reno"}]\n[factors]\n"flows[0].cc" = ["reno", "cubic"]\n'
        )
        args = ["campaign", str(f)]
    done = subprocess.run(
        [sys.executable, "-c", PRELOAD_PROBE, *args, "--out", str(tmp_path / "out"), "--jobs", "2"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "already imported: False" in done.stdout and "already imported: True" not in done.stdout, done.stdout


def test_recommend_names_the_bad_option(runner):
    result = runner.invoke(app, ["recommend", "--profile", "lte-edg"], terminal_width=200)
    assert result.exit_code == 2
    assert result.output.startswith("error: NETWORK: ") and "did you mean 'lte-edge'" in result.output
    bad = runner.invoke(app, ["recommend", "--profile", "umts", "--workload", "files"], terminal_width=200)
    assert bad.exit_code == 2 and bad.output.startswith("error: --workload: ")


def test_an_option_error_names_no_algorithm_the_user_did_not_choose(runner):
    result = runner.invoke(app, ["recommend", "--profile", "umts", "--duration", "0s"], terminal_width=200)
    assert result.exit_code == 2
    assert result.output == "error: --duration: must be longer than zero\n"


def test_allow_large_lifts_the_limits_its_refusal_names(runner):
    """A limits error advises --allow-large; recommend now has it."""
    result = runner.invoke(app, ["recommend", "--profile", "umts", "--duration", "100000s"], terminal_width=200)
    assert result.exit_code == 2
    assert result.output.startswith("error: --duration: ") and "--allow-large" in result.output
    raw, _ = recommend.campaign_dict("umts", duration="100000s", reps=1, algorithms=["reno"], allow_large=True)
    assert recommend.parse(raw).runs[0].scenario["duration"] == 100_000
    assert "allow_large" not in recommend.campaign_dict("umts")[0]  # earlier directories stay the same campaign
    help_text = runner.invoke(app, ["recommend", "--help"], terminal_width=200).output
    assert "--allow-large" in help_text


def test_campaign_has_every_algorithm_with_the_users_flows():
    raw, _ = recommend.campaign_dict("hsdpa", "up", 2, "file:1MB", reps=1, algorithms=["reno", "cubic"])
    c = recommend.parse(raw)
    alone = [r for r in c.runs if r.levels["setting"] == "alone (1MB)"]
    assert [r.levels["flows[0].cc"] for r in alone] == ["reno", "cubic"]
    flows = alone[0].scenario["flows"]
    assert flows[0]["count"] == 2 and flows[0]["direction"] == "up" and flows[0]["size"] == 1_000_000
    # beside 2 cubic flows (the default --compete: --flows flows of the incumbent), and beside itself
    beside = next(r for r in c.runs if r.levels["setting"] == "vs cubic (1MB)").scenario["flows"]
    assert [(f["cc"], f["count"], f.get("size")) for f in beside] == [("reno", 2, 1_000_000), ("cubic", 2, None)]
    itself = next(r for r in c.runs if r.levels["setting"] == "vs itself (1MB)").scenario["flows"]
    assert [(f["cc"], f["count"]) for f in itself] == [("reno", 4)]
    # the incumbent alone runs once, as the incumbent: the baseline of harm
    base = [r for r in c.runs if r.levels["setting"] == "cubic alone"]
    assert [r.levels["flows[0].cc"] for r in base] == ["cubic"]
    assert [(f["cc"], f["count"], f.get("size")) for f in base[0].scenario["flows"]] == [("cubic", 2, None)]


def test_recommend_picks_nothing_when_no_flow_delivered_data(tmp_path, runner):
    out = tmp_path / "rec"
    args = ["recommend", "--profile", "lte-good", "--duration", "1ms", "--jobs", "2", "--out", str(out)]
    args += ["--algorithms", "reno"]
    result = runner.invoke(app, args, terminal_width=200)
    assert result.exit_code == 1, result.output
    assert "pick " not in result.output and "Decided" not in result.output
    text = " ".join(result.output.split())  # lines wrapped at 80 columns
    assert "No pick: no flow delivered any data (goodput 0 in every run) in 1ms; lengthen --duration." in text
    for rec in recommend_json(out):
        assert rec["pick"] is None and rec["decided"] is False and rec["no_pick"].startswith("no flow delivered")


def recommend_json(out):
    from ccbench.campaigns.report import recommendations

    return recommendations(out)


def test_repetition_and_job_options_below_their_minimum_are_refused(runner, tmp_path):
    for args, line in (
        (["--max-reps", "2"], "error: --max-reps: 2 is not allowed; from 3 to 1000\n"),
        (["--max-reps", "0"], "error: --max-reps: 0 is not allowed; from 3 to 1000\n"),
        (["--jobs", "0"], "error: --jobs: 0 is not allowed; at least 1\n"),
        (["--jobs", "-1"], "error: --jobs: -1 is not allowed; at least 1\n"),
    ):
        out = tmp_path / "rec"
        result = runner.invoke(app, ["recommend", "--profile", "umts", "--out", str(out), *args], terminal_width=200)
        assert (result.exit_code, result.output) == (2, line)
        assert not out.exists()
    file = tmp_path / "c.toml"
    file.write_text(
        'name = "c"\nrepetitions = 2\n[scenario]\nduration = "1s"\ndownlink = { rate = "10Mbit", delay = "10ms" }\n'
        'flows = [{ cc = "reno" }]\n[factors]\n"flows[0].cc" = ["reno", "cubic"]\n'
    )
    out = tmp_path / "camp"
    result = runner.invoke(app, ["campaign", str(file), "--out", str(out), "--max-reps", "5"], terminal_width=200)
    assert (result.exit_code, result.output) == (
        2,
        "error: --max-reps: only with --until-decided (it caps the repetitions that adds)\n",
    )
    result = runner.invoke(
        app, ["campaign", str(file), "--out", str(out), "--until-decided", "--max-reps", "1"], terminal_width=200
    )
    assert (result.exit_code, result.output) == (2, "error: --max-reps: 1 is not allowed; from 2 to 1000\n")
    assert not out.exists()
