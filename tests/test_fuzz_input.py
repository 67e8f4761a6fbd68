"""Property-based fuzzing of scenario input: every file hypothesis builds from
the seeded corpus of malformed and extreme cases (tests/fuzz_corpus.py) gets
exit 0 or a clean exit 2 (one `error:` line naming a field or a line, no
traceback) from `ccbench validate`; `ccbench run` of what validate accepts
writes a complete directory or nothing. Bounded: a fixed number of examples,
derandomized, each run within the limits the loader enforces."""

from __future__ import annotations

import random
import re

import pytest
from ccbench.cli import app
from fuzz_corpus import corpus
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

CASES = corpus(random.Random(15), 220)
#: Where an error points: a field path, a TOML line, a file, or an option.
WHERE = re.compile(r"error: [^:]+(: [\w\[\].]+)?: |error: .*line \d+|error: .*: (not|nested|the file|cannot)")


def _write(tmp_path, data: bytes, files: dict[str, bytes]):
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
    path = tmp_path / "s.toml"
    path.write_bytes(data)
    return path


def _assert_clean(result) -> None:
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (0, 2), (result.exit_code, result.output[-2000:])
    if result.exit_code == 2:
        lines = [ln for ln in result.output.splitlines() if ln.strip()]
        assert len(lines) == 1 and WHERE.match(lines[0]), result.output[-2000:]
        assert len(lines[0]) < 1200 and "\x1b" not in lines[0]


@settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=st.sampled_from(CASES), cut=st.integers(min_value=0, max_value=400))
def test_validate_gives_exit_0_or_one_clean_error_line(tmp_path_factory, runner, case, cut):
    _, data, files = case
    tmp_path = tmp_path_factory.mktemp("fuzz")
    # `cut` also truncates the file (a half-written file is careless input too).
    data = data if cut == 0 else data[: max(1, len(data) - cut)]
    result = runner.invoke(app, ["validate", str(_write(tmp_path, data, files))], terminal_width=200)
    _assert_clean(result)


@pytest.mark.parametrize("index", range(0, len(CASES), 11))
def test_run_writes_a_complete_directory_or_nothing(tmp_path, runner, index):
    _, data, files = CASES[index]
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["run", str(_write(tmp_path, data, files)), "--out", str(out), "--no-plots"], terminal_width=200
    )
    if result.exit_code == 0:
        assert (out / "meta.json").exists() and (out / "flows.parquet").exists()
    else:
        _assert_clean(result)
        assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith((".partial", ".old"))]
