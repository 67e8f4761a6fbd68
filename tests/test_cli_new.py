"""`ccbench new` / `ccbench init`: a commented starter scenario that runs."""

from ccbench.cli import app
from ccbench.scenario import load


def test_new_writes_a_commented_scenario_that_validates_and_runs(runner, tmp_path):
    path = tmp_path / "mine.toml"
    result = runner.invoke(app, ["new", str(path)])
    assert result.exit_code == 0, result.output
    text = path.read_text()
    assert text.count("\n#") >= 5 and "ccbench run mine.toml" in text
    scenario = load(path)
    assert [f["cc"] for f in scenario["flows"]] == ["cubic", "bbr"]
    ran = runner.invoke(app, ["-q", "run", str(path), "--out", str(tmp_path / "out"), "--no-plots"])
    assert ran.exit_code == 0, ran.output
    assert (tmp_path / "out" / "flows.parquet").is_file()


def test_new_refuses_to_overwrite_without_force(runner, tmp_path):
    path = tmp_path / "scenario.toml"
    path.write_text("mine")
    result = runner.invoke(app, ["new", str(path)])
    assert result.exit_code == 2 and "--force" in result.stderr
    assert path.read_text() == "mine"
    assert runner.invoke(app, ["new", str(path), "--force"]).exit_code == 0
    assert path.read_text() != "mine"


def test_init_is_new_and_a_directory_gets_scenario_toml(runner, tmp_path):
    result = runner.invoke(app, ["init", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert load(tmp_path / "scenario.toml")["name"] == "my scenario"


def test_new_into_a_missing_folder_says_what_it_cannot_write(runner, tmp_path):
    """It printed Python's '[Errno 2] No such file or directory: ...'."""
    target = tmp_path / "sub" / "dir" / "x.toml"
    result = runner.invoke(app, ["new", str(target)])
    assert result.exit_code == 2
    line = result.stderr.strip()
    assert line.startswith("error: cannot write ") and line.endswith("x.toml: No such file or directory")
    assert "Errno" not in line
