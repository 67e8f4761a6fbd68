"""The README's commands marked not-tested are true too: each line of such a
block is run here in a form that can run (in a scratch directory; root's
commands as root, which CI is; a short fixture scenario where the README's
file would take long), or names the test that covers it. A new not-tested
line fails `test_every_not_tested_readme_command_has_a_check` until it gets
its check here."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from ccbench.emulate.runner import unavailable as kernel_mode_unavailable
from test_readme_runs import README, ROOT, environment, runnable_blocks

CI = os.environ.get("CI", "").lower() == "true"


def not_tested_lines() -> list[str]:
    """The command lines (comments and blank lines aside) of the README's not-tested blocks."""
    lines = []
    for block in runnable_blocks(README):
        if block.not_tested is not None:
            lines += [x.strip() for x in block.script().splitlines() if x.strip() and not x.lstrip().startswith("#")]
    return lines


def scratch(tmp_path: Path, *, short_kernel_example: bool = False) -> Path:
    """A directory like the README's reader's: examples/ and the clone's target/ (the emulator)."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    if (ROOT / "target").exists():
        (tmp_path / "target").symlink_to(ROOT / "target")
    if short_kernel_example:
        # The README's file runs 30 s per algorithm and side; the same path for 3 s stands in.
        path = tmp_path / "examples" / "kernel-vs-sim.toml"
        text = path.read_text(encoding="utf-8")
        assert 'duration = "30s"' in text, "the fixture expects the example's duration line"
        path.write_text(text.replace('duration = "30s"', 'duration = "3s"'), encoding="utf-8")
    return tmp_path


def run(command: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", command],
        cwd=cwd,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=900,
    )


def as_root(command: str) -> str:
    """The README's `sudo ...` as it runs here: as root already; without sudo installed (CI's
    container), the command itself."""
    if os.geteuid() != 0:
        message = "needs root (the kernel-mode commands)"
        pytest.fail(f"{message}; CI runs as root") if CI else pytest.skip(message)
    if shutil.which("sudo") is None:
        assert command.startswith("sudo ")
        return command[len("sudo ") :]
    return command


def check_install_and_compare(command: str, tmp_path: Path) -> None:
    # The install is the one step a test cannot repeat (a release build of minutes, into this
    # environment): this environment is that install. What the line then runs, runs as written.
    assert command == "python3 -m pip install . && ccbench compare"
    r = run("ccbench compare --jobs 2", scratch(tmp_path))
    assert r.returncode == 0, r.stderr[-3000:]
    assert (tmp_path / "ccbench-out" / "compare" / "report.html").is_file()
    assert "report.html" in r.stdout + r.stderr


def check_scripts_test(command: str, tmp_path: Path) -> None:
    # Running the test suite from inside itself would recurse: CI runs exactly this line.
    assert command == "scripts/test"
    assert os.access(ROOT / "scripts" / "test", os.X_OK)
    assert "\nscripts/test\n" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def check_emulate(command: str, tmp_path: Path) -> None:
    missing = kernel_mode_unavailable()
    if missing:
        message = f"kernel mode unavailable: {missing}"
        pytest.fail(message) if CI else pytest.skip(message)
    r = run(as_root(command), scratch(tmp_path, short_kernel_example=True))
    assert r.returncode == 0, f"{command}\n--- stdout:\n{r.stdout[-3000:]}\n--- stderr:\n{r.stderr[-3000:]}"
    written = list((tmp_path / "ccbench-out").glob("*/compare-sim.html"))
    assert written, f"no compare-sim.html under {tmp_path / 'ccbench-out'}"


EMULATE = 'sudo "$(command -v ccbench)" emulate examples/kernel-vs-sim.toml --compare-sim --cc reno,cubic'
CHECKS = {
    "python3 -m pip install . && ccbench compare": check_install_and_compare,
    "scripts/test": check_scripts_test,
    EMULATE: check_emulate,
}


def test_every_not_tested_readme_command_has_a_check():
    unchecked = [line for line in not_tested_lines() if line not in CHECKS]
    assert not unchecked, f"README commands marked not-tested without a check in {Path(__file__).name}: {unchecked}"


@pytest.mark.parametrize("command", list(CHECKS), ids=["install-and-compare", "scripts-test", "emulate"])
def test_the_readme_command_runs(command, tmp_path):
    assert command in not_tested_lines(), f"no longer in the README: drop its check: {command}"
    CHECKS[command](command, tmp_path)
