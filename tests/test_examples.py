"""Every example scenario runs (shortened to keep the suite fast)."""

from pathlib import Path

import ccbench
import pytest
from ccbench.scenario import read

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.toml"))


def test_there_are_examples():
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs(path):
    raw, _ = read(path)
    raw["duration"] = {"long-rtt": "25s", "file-transfer": "12s"}.get(path.stem, "4s")
    r = ccbench.run(raw)
    assert len(r.flows) >= 1
    assert (r.flows["goodput_bps"] > 0).all()
    if path.stem == "file-transfer":
        assert r.flows["delivered_bytes"].iloc[0] == 5_000_000
