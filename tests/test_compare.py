"""`ccbench compare`: the shipped campaign file run by the campaign engine;
the quick campaign over every algorithm writes a complete report."""

import pandas as pd
from ccbench import _ccsim, compare
from ccbench.campaigns import spec


def test_the_shipped_campaign_file_lists_every_algorithm_and_runs_as_it_is():
    c = spec.parse(compare.CAMPAIGN_FILE)
    assert list(c.factors[1].levels) == compare.algorithm_names()
    assert c.factor_names == [compare.CONDITION_FACTOR, compare.ALGORITHM_FACTOR]
    assert len(c.runs) == 4 * len(compare.algorithm_names()) * 4


def test_the_shipped_campaign_keeps_exactly_the_tables_the_report_reads():
    from ccbench.campaigns.storage import RUN_TABLES_READ

    assert spec.parse(compare.CAMPAIGN_FILE).kept_tables == RUN_TABLES_READ


def test_options_are_applied_to_the_campaign():
    c = compare.campaign(["reno", "cubic"], reps=3, seed=9, quick=True)
    assert c.repetitions == 3 and c.seed == 9
    assert {r.levels[compare.ALGORITHM_FACTOR] for r in c.runs} == {"reno", "cubic"}
    durations = {r.levels["condition"]: r.scenario["duration"] for r in c.runs}
    assert durations == {"clean": 6.0, "lossy": 6.0, "long_rtt": 9.0, "cellular": 6.0}
    # common random numbers: within a condition and repetition, every algorithm has the same seed
    seeds = {(r.levels["condition"], r.rep, r.levels[compare.ALGORITHM_FACTOR]): r.seed for r in c.runs}
    assert seeds[("lossy", 0, "reno")] == seeds[("lossy", 0, "cubic")] != seeds[("lossy", 1, "reno")]
    assert "applied by ccbench compare" in c.text
    # the report's "How to reproduce" shows the command with these options, not compare.toml's design
    rerun = "ccbench compare --reps 3 --quick --seed 9 --algorithms reno,cubic --out DIR"
    assert compare.rerun_command(c.text) == rerun
    assert compare.rerun_command(compare.campaign(reps=4, seed=1).text) == "ccbench compare --reps 4 --seed 1 --out DIR"
    assert compare.rerun_command(spec.parse(compare.CAMPAIGN_FILE).text) is None


def test_compare_has_the_allow_large_its_refusal_names(runner, tmp_path):
    """--reps above the planning limit said "--allow-large", which compare did not have."""
    from ccbench.cli import app

    out = tmp_path / "out"
    refused = runner.invoke(app, ["compare", "--reps", "600", "--out", str(out)])
    assert refused.exit_code == 2 and "--allow-large" in refused.output and not out.exists(), refused.output
    large = compare.campaign(["reno"], reps=600, allow_large=True)
    assert len(large.runs) == 600 * 4
    assert compare.rerun_command(large.text) == "ccbench compare --reps 600 --algorithms reno --allow-large --out DIR"


def test_the_driver_forks_its_workers_before_loading_the_report_modules():
    """Up to the first run the driver works alone: it must not import what
    only the report needs (matplotlib, scipy; imported while the workers run)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import ccbench.cli\n"
        "from ccbench import compare\n"
        "from ccbench.campaigns import executors, runner, storage\n"
        "compare.campaign()\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'matplotlib', 'scipy'}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout


def test_quick_compare_end_to_end(quick_campaign):
    out, output, algs = quick_campaign
    assert algs == [a["name"] for a in _ccsim.algorithms()]
    report = out / "report.html"
    assert f"Report: {report}" in output
    html = report.read_text()
    for a in algs:
        assert f">{a}<" in html
    titles = spec.parse(compare.CAMPAIGN_FILE).design()["level_names"]["condition"].values()
    for title in titles:
        assert title in html
    assert html.count('<div class="pick">Pick <b>') == len(titles)
    assert "http://" not in html and "https://" not in html and "<link" not in html  # self-contained
    assert html.count('src="data:image/png;base64,') == 6 * len(titles)
    assert len(list((out / "plots").glob("*.png"))) == 6 * len(titles)
    assert not list((out / "plots").glob("*.svg"))  # SVG only with --svg
    assert "<code>ccbench compare --reps 2 --quick --seed 1 --out DIR</code>" in html
    runs = pd.read_parquet(out / "runs.parquet")
    assert len(runs) == len(algs) * len(titles) * 2
    assert (out / "flows.csv").exists() and (out / "campaign.toml").exists()
    assert (runs["utilization"] <= 1.0 + 1e-9).all()
    # repetition 0 keeps only the tables the report draws from
    kept = list((out / "tables").iterdir())
    assert len(kept) == len(algs) * len(titles)
    for d in kept:
        assert sorted(p.name for p in d.iterdir()) == ["flows.parquet", "meta.json", "rtt.parquet", "series.parquet"]


def test_report_rebuilds_the_same_report_from_the_kept_tables(quick_campaign, tmp_path):
    import shutil

    from ccbench.cli import app
    from typer.testing import CliRunner

    out = tmp_path / "copy"
    shutil.copytree(quick_campaign[0], out)
    shutil.rmtree(out / "plots")
    (out / "report.html").unlink()
    result = CliRunner().invoke(app, ["report", str(out)], terminal_width=250)
    assert result.exit_code == 0, result.output
    assert (out / "report.html").read_bytes() == (quick_campaign[0] / "report.html").read_bytes()
    plots = sorted(p.name for p in (quick_campaign[0] / "plots").iterdir())
    assert plots and sorted(p.name for p in (out / "plots").iterdir()) == plots


def test_report_with_svg_writes_each_figure_as_svg_too(quick_campaign, tmp_path):
    import shutil

    from ccbench.cli import app
    from typer.testing import CliRunner

    out = tmp_path / "copy"
    shutil.copytree(quick_campaign[0], out)
    result = CliRunner().invoke(app, ["report", str(out), "--svg"], terminal_width=250)
    assert result.exit_code == 0, result.output
    pngs = sorted(p.stem for p in (out / "plots").glob("*.png"))
    assert pngs and sorted(p.stem for p in (out / "plots").glob("*.svg")) == pngs
    assert (out / "plots" / f"{pngs[0]}.svg").read_text().lstrip().startswith("<?xml")
    # rebuilt without --svg, the SVGs (drawn for the objective of then) go; a file of the user's stays
    (out / "plots" / "mine.svg").write_text("<svg/>")
    result = CliRunner().invoke(app, ["report", str(out), "--objective", "latency"], terminal_width=250)
    assert result.exit_code == 0, result.output
    assert sorted(p.stem for p in (out / "plots").glob("*.png")) == pngs
    assert [p.name for p in (out / "plots").glob("*.svg")] == ["mine.svg"]


def test_an_unknown_executor_is_one_error_line_and_nothing_is_written(tmp_path, runner):
    from ccbench.cli import app

    out = tmp_path / "out"
    args = ["compare", "--executor", "nope", "--algorithms", "reno", "--reps", "1", "--out", str(out)]
    result = runner.invoke(app, args, terminal_width=200)
    assert result.exit_code == 2
    assert result.output == "error: --executor: 'nope' is not allowed; one of local, ray\n"
    assert not out.exists()
