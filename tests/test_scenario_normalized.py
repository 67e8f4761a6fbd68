"""A normalized scenario reads back to itself: the core's normalization is a
fixed point. A run's meta.json scenario therefore runs the same run again,
and a run is handed the scenario its campaign (or `ccbench.run`) checked,
instead of the core writing it out once more (megabytes for a trace)."""

import json
from pathlib import Path

import pytest
from ccbench import _ccsim, profiles, scenario
from ccbench.campaigns import spec
from ccbench.campaigns.studies import FOLDER as STUDIES

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))


def assert_fixed_point(normalized: dict) -> None:
    assert scenario.load(normalized, allow_large=True) == normalized
    assert json.loads(_ccsim.validate(scenario.dumps(normalized))) == normalized


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_each_example_normalizes_to_a_fixed_point(path):
    assert_fixed_point(scenario.load(path, allow_large=True))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_the_seed_changes_nothing_else_of_a_normalized_scenario(path):
    """A campaign checks a combination once and gives each repetition its seed."""
    one, two = scenario.load(path, seed=1, allow_large=True), scenario.load(path, seed=2, allow_large=True)
    assert {**one, "seed": 2} == two


@pytest.mark.parametrize("name", profiles.profile_names())
def test_each_profile_normalizes_to_a_fixed_point(name):
    given = {"profile": name, "duration": 5, "flows": [{"cc": "cubic", "count": 2}, {"cc": "bbr", "start": 1}]}
    assert_fixed_point(scenario.load(given, allow_large=True))


@pytest.mark.parametrize("study", sorted(STUDIES.glob("*.toml")), ids=lambda p: p.stem)
def test_the_runs_of_each_study_normalize_to_a_fixed_point(study):
    runs = spec.parse(study).runs
    for run in runs[:: max(1, len(runs) // 12)]:
        assert_fixed_point(run.scenario)
        shared = []
        assert scenario.loads_sharing(scenario.dumps_sharing(run.scenario, shared), shared) == run.scenario


def test_a_trace_scenario_normalizes_to_a_fixed_point(tmp_path):
    (tmp_path / "cell.down").write_text("\n".join(str(t) for t in range(1, 200, 3)) + "\n")
    link = {"trace": str(tmp_path / "cell.down"), "delay": "20ms"}
    given = {"duration": 2, "downlink": link, "uplink": {"rate": "1Mbit", "delay": "20ms"}, "flows": [{"cc": "reno"}]}
    assert_fixed_point(scenario.load(given))
