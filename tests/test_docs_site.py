"""The documentation site (docs/, mkdocs.yml) builds strictly, its generated
reference is current, its navigation names every page, and neither it nor
the README carries a diary of dated measurements (those go in commit messages
and bench/results/). Its code blocks run in tests/test_readme_runs.py."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
CI = os.environ.get("CI", "").lower() == "true"

#: Pages other engineers are writing in their own branches: in the nav before their files are
#: merged (mkdocs.yml's validation.nav.not_found is `info` meanwhile). Empty this set, and set
#: not_found back to `warn`, once they are all merged.
PENDING_PAGES: set[str] = set()


def require_mkdocs() -> None:
    missing = [m for m in ("mkdocs", "material", "yaml") if importlib.util.find_spec(m) is None]
    if missing:
        reason = f"needs {', '.join(missing)} (python3 -m pip install -e '.[test]')"
        pytest.fail(f"{reason}; required under CI=true") if CI else pytest.skip(reason)


def nav_pages() -> list[str]:
    require_mkdocs()
    import yaml

    def walk(node) -> list[str]:
        if isinstance(node, str):
            return [node]
        if isinstance(node, list):
            return [p for item in node for p in walk(item)]
        if isinstance(node, dict):
            return [p for value in node.values() for p in walk(value)]
        return []

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    return walk(config["nav"])


def reference_module():
    spec = importlib.util.spec_from_file_location("docs_reference", ROOT / "scripts" / "docs_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("page", ["scenario.md", "algorithms.md", "profiles.md", "kernels.md"])
def test_the_generated_reference_is_current(page):
    module = reference_module()
    committed = (DOCS / "reference" / page).read_text(encoding="utf-8")
    assert committed == module.PAGES[page](), f"docs/reference/{page} is out of date: python3 scripts/docs_reference.py"


def test_the_scenario_reference_names_every_top_level_field_of_the_schema():
    import json

    from ccbench.json_schema import scenario_schema_text

    text = (DOCS / "reference" / "scenario.md").read_text(encoding="utf-8")
    for field in json.loads(scenario_schema_text())["properties"]:
        assert f"| `{field}` |" in text


def test_the_site_builds_strictly(tmp_path):
    require_mkdocs()
    r = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-5000:]
    assert (tmp_path / "site" / "index.html").is_file()
    assert (tmp_path / "site" / "reference" / "scenario" / "index.html").is_file()
    # CONTRIBUTING.md is included, not copied: the page has its text.
    assert "Where each kind of change goes" in (tmp_path / "site" / "contributing" / "index.html").read_text()


def test_every_page_of_the_nav_exists_or_is_pending():
    missing = {p for p in nav_pages() if not (DOCS / p).is_file()}
    assert missing <= PENDING_PAGES, f"in mkdocs.yml's nav but not in docs/: {sorted(missing - PENDING_PAGES)}"


def test_every_page_is_in_the_nav():
    pages = {str(p.relative_to(DOCS)) for p in DOCS.glob("**/*.md")}
    assert pages - set(nav_pages()) == set(), "pages missing from mkdocs.yml's nav"


def test_the_readme_is_a_users_page():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 350, f"README.md has {len(lines)} lines: move the manual into docs/"


DATED = re.compile(r"\b(?:\d{1,2} )?(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* 20\d\d\b")


@pytest.mark.parametrize(
    "path", [ROOT / "README.md", *sorted(DOCS.glob("**/*.md"))], ids=lambda p: str(p.relative_to(ROOT))
)
def test_no_dated_measurements_in_user_documentation(path):
    dated = [line for line in path.read_text(encoding="utf-8").splitlines() if DATED.search(line)]
    assert not dated, f"{path.name}: dated measurements belong in commit messages and bench/results/: {dated}"


#: A repository path in backticks (`bench/suite.py`, `cc/cubic.rs`); placeholders (NAME, KEY, *) are skipped.
REPO_PATH = re.compile(r"`((?:bench|python|crates|scripts|examples|schema|tests|docs|fuzz|\.ci)/[^`\s]*)`")
CORE_PATH = re.compile(r"`((?:cc|net|tcp|scenario|record|traffic|sim)/[^`\s]*)`")
PLACEHOLDER = re.compile(r"[A-Z]{3,}|\*|\{|\.\.\.")


@pytest.mark.parametrize(
    "path",
    [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted(DOCS.glob("**/*.md"))],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_every_file_the_documentation_names_exists(path):
    """A file moved or renamed leaves no stale path in the documentation."""
    text = path.read_text(encoding="utf-8")
    pending = {f"docs/{p}" for p in PENDING_PAGES}
    stale = []
    for m in REPO_PATH.finditer(text):
        name = m[1].rstrip(".,;:").split("::")[0]
        if not PLACEHOLDER.search(name) and name not in pending and not (ROOT / name).exists():
            stale.append(name)
    for m in CORE_PATH.finditer(text):
        name = m[1].rstrip(".,;:")
        if PLACEHOLDER.search(name) or name.endswith((".c", ".h")):  # Linux's sources (net/ipv4/tcp_bbr.c)
            continue
        if not any((ROOT / base / name).exists() for base in ("crates/ccsim/src", "python/ccbench")):
            stale.append(name)
    assert not stale, f"{path.name} names files that do not exist: {stale}"


def test_the_extras_the_readme_installs_exist():
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    named = re.findall(r"'\.\[([\w,]+)\]'", (ROOT / "README.md").read_text(encoding="utf-8"))
    assert named, "the README names no extra"
    for group in named:
        assert set(group.split(",")) <= set(extras), f"'.[{group}]': the extras are {sorted(extras)}"


#: Commands other branches bring, named in the docs before they are merged.
PENDING_COMMANDS: set[str] = set()
#: `ccbench [-q|-v] COMMAND ...` in code, up to a comment, pipe or redirect.
COMMAND_LINE = re.compile(r"(?:^|[ \t])ccbench((?:[ \t]+-[qv])*)[ \t]+([a-z][a-z-]*)([^#|&>;\n]*)", re.M)
CODE = re.compile(r"^```[\w-]*\n(.*?)^```|`([^`\n]+)`", re.M | re.S)


def cli_options() -> dict[str, set[str]]:
    import typer
    from ccbench.cli import app

    group = typer.main.get_command(app)
    return {
        name: {o for p in command.params for o in (*p.opts, *getattr(p, "secondary_opts", []))} | {"--help", "-h"}
        for name, command in group.commands.items()
    }


@pytest.mark.parametrize(
    "path",
    [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted(DOCS.glob("**/*.md"))],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_every_command_and_option_the_documentation_names_exists(path):
    """`ccbench recommend --max-reps 3` in the docs fails here once the option is renamed."""
    options = cli_options()
    wrong = []
    code = "\n".join(m[1] or m[2] for m in CODE.finditer(path.read_text(encoding="utf-8")))
    code = re.sub(r"(^|\s)#.*$", "", code, flags=re.M)  # shell comments
    for m in COMMAND_LINE.finditer(code):
        command, rest = m[2], m[3]
        if command in PENDING_COMMANDS:
            continue
        if command not in options:
            wrong.append(f"ccbench {command}")
            continue
        wrong += [
            f"ccbench {command} {o}"
            for o in re.findall(r"(?<![\w-])(--[a-z][\w-]*)", rest)
            if o not in options[command]
        ]
    assert not wrong, f"{path.name} names commands or options ccbench does not have: {wrong}"
