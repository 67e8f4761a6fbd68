"""README.md, CONTRIBUTING.md and every page of docs/ are executed: each file's ```sh, ```bash,
```console (its `$ ` lines) and ```python blocks run, in the file's order, in a
temporary working directory of the file's own holding a copy of examples/,
with this environment's `ccbench` on the PATH and its Python. A block that
must not run here (an install, the test suite itself, root, minutes of work)
has the line `<!-- not-tested: REASON -->` right before its fence: it is
reported as skipped with its reason (`pytest -rs` lists them), and
tests/test_readme_commands.py runs the README's in a form that can run.
TOML blocks are checked by tests/test_readme.py."""

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
#: The executed files: the README, then the documentation's pages (the generated reference has no code).
DOCUMENTS = [README, ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("**/*.md"))]
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


def runnable_blocks(path: Path = README) -> list[Block]:
    return [b for b in fenced_blocks(path.read_text(encoding="utf-8")) if b.lang in RUN_LANGUAGES]


def name(path: Path) -> str:
    return str(path.relative_to(ROOT))


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
    """Runs a file's blocks in order, once each: a block may use what an
    earlier one of the same file wrote (runs, campaign directories)."""

    def __init__(self, blocks: list[Block], workdir: Path):
        self.blocks, self.workdir, self.outcomes = blocks, workdir, {}

    def outcome(self, index: int) -> subprocess.CompletedProcess:
        for k in range(index + 1):
            if k not in self.outcomes and self.blocks[k].not_tested is None:
                self.outcomes[k] = run_block(self.blocks[k], self.workdir)
        return self.outcomes[index]


BLOCKS = {name(path): runnable_blocks(path) for path in DOCUMENTS}
CASES = [(doc, i) for doc, blocks in BLOCKS.items() for i in range(len(blocks))]


@pytest.fixture(scope="module")
def sessions(tmp_path_factory) -> dict[str, ReadmeSession]:
    """One session per file, each in a fresh directory, started when its first block runs."""
    assert shutil.which("ccbench", path=environment()["PATH"]), "the ccbench command is not installed"
    return {}


def session_of(sessions: dict[str, ReadmeSession], doc: str, tmp_path_factory) -> ReadmeSession:
    if doc not in sessions:
        workdir = tmp_path_factory.mktemp(Path(doc).stem)
        shutil.copytree(ROOT / "examples", workdir / "examples")
        sessions[doc] = ReadmeSession(BLOCKS[doc], workdir)
    return sessions[doc]


@pytest.mark.parametrize(
    ("doc", "index"), CASES, ids=[f"{d}:line{BLOCKS[d][i].line}-{BLOCKS[d][i].lang}" for d, i in CASES]
)
def test_readme_block_runs(doc, index, sessions, tmp_path_factory):
    block = BLOCKS[doc][index]
    if block.not_tested is not None:
        pytest.skip(f"{doc} line {block.line}: not-tested: {block.not_tested}")
    r = session_of(sessions, doc, tmp_path_factory).outcome(index)
    assert r.returncode == 0, (
        f"{doc} line {block.line} ({block.lang}) exited with {r.returncode}:\n{block.text}\n"
        f"--- stdout (end):\n{r.stdout[-3000:]}\n--- stderr (end):\n{r.stderr[-3000:]}"
    )


def test_the_readme_runs_something_and_every_marker_gives_a_reason():
    readme = BLOCKS["README.md"]
    assert sum(b.not_tested is None for b in readme) >= 4
    for doc, blocks in BLOCKS.items():
        reasons = [b.not_tested for b in blocks if b.not_tested is not None]
        assert all(reasons), f"{doc}: a not-tested marker without a reason"


@pytest.mark.parametrize("path", DOCUMENTS, ids=name)
def test_every_marker_sits_right_before_a_block_that_would_run(path):
    """A marker anywhere else (a blank line before the fence, a TOML block)
    would mark nothing, or nothing that runs: a mistake, not a skip."""
    lines = path.read_text(encoding="utf-8").splitlines()
    for n, line in enumerate(lines):
        if "not-tested" in line and line.lstrip().startswith("<!--"):
            assert MARKER.match(line), f"{name(path)} line {n + 1}: write <!-- not-tested: REASON -->"
            fence = FENCE.match(lines[n + 1]) if n + 1 < len(lines) else None
            assert fence and fence["lang"] in RUN_LANGUAGES, f"{name(path)} line {n + 1}: not right before a block"


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
