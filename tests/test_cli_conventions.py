"""Command-line conventions: --version, -h everywhere, -v/-q, shell completion."""

import re
from pathlib import Path

import pytest
from ccbench import _ccsim
from ccbench.cli import app

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "clean-path.toml"
COMMANDS = [c.name or c.callback.__name__ for c in app.registered_commands]


def test_version_names_the_package_and_the_core(runner):
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("ccbench ")
    assert f"core ccsim {_ccsim.__version__}" in result.stdout


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_dash_h_is_help_for_every_command(runner, command):
    args = ([command] if command else []) + ["-h"]
    result = runner.invoke(app, args, terminal_width=100)
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.stdout and "--help" in result.stdout


def test_quiet_run_prints_only_the_result_path(runner, tmp_path):
    out = tmp_path / "out"
    result = runner.invoke(app, ["-q", "run", str(EXAMPLE), "--out", str(out), "--no-plots"])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{out}\n"


def test_verbose_run_lists_every_file_written(runner, tmp_path):
    out = tmp_path / "out"
    result = runner.invoke(app, ["-v", "run", str(EXAMPLE), "--out", str(out), "--no-plots"], terminal_width=250)
    assert result.exit_code == 0, result.output
    assert "events/s" in result.stdout
    for f in out.iterdir():
        assert str(f) in result.stdout


def test_quiet_still_prints_errors(runner, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('duration = "1s"\n[downlink]\nrate = "1Mbit"\n[[flows]]\ncc = "cubik"\n')
    result = runner.invoke(app, ["-q", "run", str(bad), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "flows[0].cc" in result.stderr and "cubic" in result.stderr


def test_verbose_and_quiet_together_are_refused(runner):
    result = runner.invoke(app, ["-v", "-q", "algorithms"])
    assert result.exit_code == 2 and "give one of them" in result.stderr


def test_shell_completion_is_offered(runner):
    help_text = runner.invoke(app, ["--help"], terminal_width=200).stdout
    assert "--install-completion" in help_text and "--show-completion" in help_text
    result = runner.invoke(app, ["--show-completion", "bash"], prog_name="ccbench")
    assert result.exit_code == 0, result.output
    assert "_CCBENCH_COMPLETE" in result.stdout and "complete" in result.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_help_shows_bracketed_words_of_every_option(runner, command):
    """Rich reads "[word]" as markup and drops it unless escaped ("\\[word]")."""
    import typer.main

    shown_help = " ".join(runner.invoke(app, [command, "-h"]).stdout.replace("│", " ").split())
    cmd = typer.main.get_command(app).commands[command]
    for param in cmd.params:
        text = getattr(param, "help", None) or ""
        for word in re.findall(r"\[[^\]\s]+\]", text.replace("\\[", "[")):
            assert word in shown_help, (param.name, text)
