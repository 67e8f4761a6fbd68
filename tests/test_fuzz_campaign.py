"""Property-based fuzzing of campaign files: every file hypothesis builds from
the seeded corpus of hostile campaign files (tests/campaign_fuzz_corpus.py),
cut short or not, is either planned or refused with one CampaignFileError
line naming the file, without a traceback and without a NumPy warning; and
`ccbench campaign` of a sample of them ends in a complete directory or a clean
exit 2 that wrote nothing. Bounded: a fixed number of derandomized examples,
and the planning limits keep each one small."""

from __future__ import annotations

import random
import warnings

import pytest
from campaign_fuzz_corpus import corpus
from ccbench.campaigns import spec
from ccbench.cli import app
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

CASES = corpus(random.Random(52), 260)


def _write(tmp_path, data: bytes, files: dict[str, bytes]):
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
    path = tmp_path / "c.toml"
    path.write_bytes(data)
    return path


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=st.sampled_from(CASES), cut=st.integers(min_value=0, max_value=300))
def test_a_campaign_file_is_planned_or_refused_in_one_line(tmp_path_factory, case, cut):
    _, data, files = case
    data = data if cut == 0 else data[: max(1, len(data) - cut)]
    path = _write(tmp_path_factory.mktemp("fuzz"), data, files)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            campaign = spec.parse(path)
        except spec.CampaignFileError as e:
            message = str(e)
            assert message.startswith(str(path)), message
            assert "\n" not in message and "\x1b" not in message and len(message) < 1200, message
            return
    assert 1 <= len(campaign.runs) and campaign.work[0] > 0


@pytest.mark.parametrize("index", range(0, len(CASES), 11))
def test_campaign_writes_a_complete_directory_or_nothing(tmp_path, runner, index):
    _, data, files = CASES[index]
    path = _write(tmp_path, data, files)
    given = {p.name for p in tmp_path.iterdir()}
    out = tmp_path / "out"
    result = runner.invoke(app, ["campaign", str(path), "--out", str(out), "--jobs", "1"], terminal_width=200)
    assert "Traceback" not in result.output, result.output[-3000:]
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    if result.exit_code == 0:
        assert (out / "runs.parquet").exists() and (out / "report.html").exists()
    else:
        lines = [ln for ln in result.output.splitlines() if ln.strip()]
        assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), result.output[-3000:]
        assert {p.name for p in tmp_path.iterdir()} == given
