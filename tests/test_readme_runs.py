"""README.md is executed: every ```sh, ```bash, ```console (its `$ ` lines)
and ```python block runs, in the README's order, in one temporary working
directory holding a copy of examples/, with this environment's `ccbench` on
the PATH and its Python. A block that must not run here (an install, the test
suite itself, root, minutes of work) has the line
`<!-- not-tested: REASON -->` right before its fence: it is reported as
skipped with its reason (`pytest -rs` lists them). Scenario TOML blocks are
validated by tests/test_readme.py."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
RUN_LANGUAGES = ("sh", "bash", "console", "python")
FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>[\w+-]*)[ \t]*$")
CLOSING_FENCE = re.compile(r"^[ \t]*```[ \t]*$")
MARKER = re.compile(r"^\s*<!--\s*not-tested:(?P<reason>.*?)-->\s*$")
#: Longest a block may run (the README's examples take seconds).
BLOCK_TIMEOUT_S = 600


@dataclass(frozen=True)
class Block:
    line: int  # of the opening fence, 1-based
    lang: str
    text: str
    not_tested: str | None  # the marker's reason; None: the block runs

    def script(self) -> str:
        """What runs: the block, or a console block's `$ ` commands."""
        if self.lang != "console":
            return self.text
        return "".join(line[2:] + "\n" for line in self.text.splitlines() if line.startswith("$ "))


def fenced_blocks(text: str) -> list[Block]:
    """Every fenced block of a Markdown text with its language and the reason
    of a not-tested marker on the line right before its fence."""
    lines = text.splitlines()
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not CLOSING_FENCE.match(lines[end]):
            end += 1
        indent = m["indent"]
        body = "".join((x[len(indent) :] if x.startswith(indent) else x) + "\n" for x in lines[i + 1 : end])
        marker = MARKER.match(lines[i - 1]) if i > 0 else None
        out.append(Block(i + 1, m["lang"], body, marker["reason"].strip() if marker else None))
        i = end + 1
    return out


def runnable_blocks() -> list[Block]:
    return [b for b in fenced_blocks(README.read_text(encoding="utf-8")) if b.lang in RUN_LANGUAGES]


def environment() -> dict[str, str]:
    """This environment's Python and `ccbench` first on the PATH; plots
    without a display."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["MPLBACKEND"] = "Agg"
    return env


def run_block(block: Block, workdir: Path) -> subprocess.CompletedProcess:
    if block.lang == "python":
        command = [sys.executable, "-c", block.text]
    else:
        command = ["bash", "-e", "-o", "pipefail", "-c", block.script()]
    return subprocess.run(
        command, cwd=workdir, env=environment(), capture_output=True, text=True, timeout=BLOCK_TIMEOUT_S
    )


class ReadmeSession:
    """Runs the README's blocks in order, once each: a block may use what
    an earlier one wrote (runs, campaign directories)."""

    def __init__(self, blocks: list[Block], workdir: Path):
        self.blocks, self.workdir, self.outcomes = blocks, workdir, {}

    def outcome(self, index: int) -> subprocess.CompletedProcess:
        for k in range(index + 1):
            if k not in self.outcomes and self.blocks[k].not_tested is None:
                self.outcomes[k] = run_block(self.blocks[k], self.workdir)
        return self.outcomes[index]


BLOCKS = runnable_blocks()


@pytest.fixture(scope="module")
def session(tmp_path_factory) -> ReadmeSession:
    workdir = tmp_path_factory.mktemp("readme")
    shutil.copytree(ROOT / "examples", workdir / "examples")
    assert shutil.which("ccbench", path=environment()["PATH"]), "the ccbench command is not installed"
    return ReadmeSession(BLOCKS, workdir)


@pytest.mark.parametrize("index", range(len(BLOCKS)), ids=[f"line{b.line}-{b.lang}" for b in BLOCKS])
def test_readme_block_runs(index, session):
    block = BLOCKS[index]
    if block.not_tested is not None:
        pytest.skip(f"README.md line {block.line}: not-tested: {block.not_tested}")
    r = session.outcome(index)
    assert r.returncode == 0, (
        f"README.md line {block.line} ({block.lang}) exited with {r.returncode}:\n{block.text}\n"
        f"--- stdout (end):\n{r.stdout[-3000:]}\n--- stderr (end):\n{r.stderr[-3000:]}"
    )


def test_the_readme_runs_something_and_every_marker_gives_a_reason():
    assert sum(b.not_tested is None for b in BLOCKS) >= 4
    assert all(b.not_tested for b in BLOCKS if b.not_tested is not None), "a not-tested marker without a reason"


def test_every_marker_sits_right_before_a_block_that_would_run():
    """A marker anywhere else (a blank line before the fence, a TOML block)
    would mark nothing, or nothing that runs: a mistake, not a skip."""
    lines = README.read_text(encoding="utf-8").splitlines()
    for n, line in enumerate(lines):
        if "not-tested" in line:
            assert MARKER.match(line), f"README.md line {n + 1}: write <!-- not-tested: REASON -->"
            fence = FENCE.match(lines[n + 1]) if n + 1 < len(lines) else None
            assert fence and fence["lang"] in RUN_LANGUAGES, f"README.md line {n + 1}: not right before a block"


def test_blocks_are_found_with_their_language_marker_and_indentation():
    text = (
        "intro\n```sh\necho one\n```\n<!-- not-tested: needs root -->\n```bash\nsudo x\n```\n"
        "- item:\n\n  ```python\n  print(1)\n    indented = 2\n  ```\n"
        "```console\n$ ccbench --help\nUsage: ...\n```\n```\nplain\n```\n"
    )
    blocks = fenced_blocks(text)
    assert [(b.line, b.lang, b.not_tested) for b in blocks] == [
        (2, "sh", None),
        (6, "bash", "needs root"),
        (11, "python", None),
        (15, "console", None),
        (19, "", None),
    ]
    assert blocks[2].text == "print(1)\n  indented = 2\n"
    assert blocks[3].script() == "ccbench --help\n"


def test_a_failing_block_is_reported_with_its_output(tmp_path):
    r = run_block(Block(1, "sh", "echo before\nfalse\necho after\n", None), tmp_path)
    assert r.returncode != 0 and r.stdout == "before\n"
    r = run_block(Block(1, "python", "import sys\nsys.exit(3)\n", None), tmp_path)
    assert r.returncode == 3
