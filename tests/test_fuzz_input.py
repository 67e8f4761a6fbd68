"""Property-based fuzzing of scenario input: every file hypothesis builds from
the seeded corpus of malformed and extreme cases (tests/fuzz_corpus.py) gets
exit 0 or a clean exit 2 (one `error:` line naming a field or a line, no
traceback) from `ccbench validate`; `ccbench run` of what validate accepts
writes a complete directory or nothing. Bounded: a fixed number of examples,
derandomized, each run within the limits the loader enforces."""

from __future__ import annotations

import json
import random
import re

import pytest
from ccbench import limits
from ccbench.cli import app
from ccbench.scenario import load
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


#: Events per packet of the work estimate: a packet is one transmission on each
#: link it crosses, its ACK one more, timers a few (measured: 0.4 to 1.7 over
#: the examples); a run above this did work its estimate did not foresee.
EVENTS_PER_ESTIMATED_PACKET = 4
#: Events per recording interval (sampling) and a fixed allowance for start-up and timers.
EVENTS_PER_INTERVAL = 4
EVENTS_FIXED = 10_000


def allowed_events(normalized: dict) -> float:
    """The most events a run of this scenario may process: the work estimate
    that admitted it (ccbench.limits.estimate), in events. Counting events,
    not seconds, keeps the check exact on a loaded machine."""
    intervals = float(normalized["duration"]) / float((normalized.get("record") or {}).get("interval", 0.01))
    estimated = limits.estimate(normalized)["packets"]
    return EVENTS_PER_ESTIMATED_PACKET * estimated + EVENTS_PER_INTERVAL * intervals + EVENTS_FIXED


#: A step coprime with the 11 categories, so every category is run (a step of 11 ran only syntax errors).
@pytest.mark.parametrize("index", range(0, len(CASES), 7))
def test_run_writes_a_complete_directory_or_nothing(tmp_path, runner, index):
    _, data, files = CASES[index]
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["run", str(_write(tmp_path, data, files)), "--out", str(out), "--no-plots"], terminal_width=200
    )
    if result.exit_code == 0:
        assert (out / "meta.json").exists() and (out / "flows.parquet").exists()
        events = json.loads((out / "meta.json").read_text())["events"]
        allowed = allowed_events(load(tmp_path / "s.toml"))
        assert events <= allowed, f"{events} events, the estimate allows {allowed:.0f}"
    else:
        _assert_clean(result)
        assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith((".partial", ".old"))]
