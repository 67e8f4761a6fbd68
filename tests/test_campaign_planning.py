"""Planning limits of a campaign (ccbench.campaigns.planning): a design too
large is refused with its numbers before a single run is built and before
anything is written; --allow-large (or allow_large = true in the file) lifts
the limits."""

from __future__ import annotations

import pytest
from ccbench.campaigns import planning, spec
from ccbench.cli import app

BASE = 'duration = "1s"\n[downlink]\nrate = "5Mbit"\ndelay = "10ms"\n[[flows]]\ncc = "reno"\n'


def _factors(count: int, levels: int) -> str:
    return "[factors]\n" + "".join(
        f'"flows[0].tcp.x{i}" = [' + ", ".join(str(j) for j in range(levels)) + "]\n" for i in range(count)
    )


def _campaign(tmp_path, text: str):
    (tmp_path / "base.toml").write_text(BASE)
    path = tmp_path / "c.toml"
    path.write_text('base = "base.toml"\n' + text)
    return path


@pytest.fixture
def no_run_is_built(monkeypatch):
    """Fails the test if the planner builds a run (validates a combination's scenario)."""

    def refuse(*args, **kwargs):
        raise AssertionError("a run was built before the design's size was checked")

    monkeypatch.setattr(spec, "load_scenario", refuse)


@pytest.mark.parametrize(
    ("text", "runs"),
    [
        ('repetitions = 1000000000\n[factors]\n"flows[0].cc" = ["reno"]\n', "1,000,000,000 runs"),
        (f'repetitions = {2**63}\n[factors]\n"flows[0].cc" = ["reno"]\n', f"{2**63:,} runs"),
        (_factors(10, 10), "10,000,000,000 runs"),
        (_factors(40, 2), f"{2**40:,} runs"),
        (_factors(1, 100_000), "100,000 runs"),
    ],
)
def test_a_design_too_large_is_refused_with_its_numbers_before_any_run_is_built(
    tmp_path, runner, no_run_is_built, text, runs
):
    path = _campaign(tmp_path, text)
    with pytest.raises(spec.CampaignFileError, match=f"the design plans {runs}, an index of .* above the limits"):
        spec.parse(path)
    result = runner.invoke(app, ["campaign", str(path), "--out", str(tmp_path / "out")], terminal_width=300)
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert result.exit_code == 2 and len(lines) == 1 and "--allow-large" in lines[0], result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["base.toml", "c.toml"]


def test_quick_repetitions_are_planned_within_the_limits(tmp_path, no_run_is_built):
    # 1e9 is a float: refused as the wrong type; 10^9 is refused by the limit, before a run is built.
    with pytest.raises(spec.CampaignFileError, match=r"quick.repetitions: 1000000000.0 is not allowed"):
        spec.parse_study(_campaign(tmp_path, '[factors]\n"flows[0].cc" = ["reno"]\n[quick]\nrepetitions = 1e9\n'))
    path = _campaign(tmp_path, '[factors]\n"flows[0].cc" = ["reno"]\n[quick]\nrepetitions = 1000000000\n')
    from ccbench.campaigns.quick import reduce

    raw, source, text, folder = spec.read(path)
    with pytest.raises(spec.CampaignFileError, match="the design plans 1,000,000,000 runs"):
        spec.parse_raw(reduce(raw), source, text, folder)


def test_the_index_size_counts_the_levels_text(tmp_path):
    size = planning.design_size([["x" * 1000, "y" * 1000]], ["f"], 3)
    assert size.runs == 6
    assert size.index_bytes >= 6 * (planning.INDEX_ROW_BYTES + 1000)


def test_an_index_too_large_is_refused(tmp_path, monkeypatch, no_run_is_built):
    monkeypatch.setattr(planning, "MAX_INDEX_BYTES", 10_000)
    path = _campaign(tmp_path, 'repetitions = 5\n[factors]\nname = ["' + "n" * 3000 + '", "m"]\n')
    with pytest.raises(spec.CampaignFileError, match=r"an index of .* above the limits"):
        spec.parse(path)


def test_work_above_the_limit_is_refused_with_the_estimate(tmp_path, monkeypatch):
    monkeypatch.setattr(planning, "MAX_WORK_PACKETS", 1000.0)
    path = _campaign(tmp_path, '[factors]\n"flows[0].cc" = ["reno", "cubic"]\n')
    with pytest.raises(spec.CampaignFileError, match=r"the 2 runs are estimated at .* packets, about .* on one core"):
        spec.parse(path)
    assert spec.parse(path, allow_large=True).work[0] > 1000


def test_allow_large_lifts_the_design_limits(tmp_path, runner, monkeypatch):
    monkeypatch.setattr(planning, "MAX_RUNS", 1)
    text = '[factors]\n"flows[0].cc" = ["reno", "cubic"]\n'
    with pytest.raises(spec.CampaignFileError, match="the design plans 2 runs"):
        spec.parse(_campaign(tmp_path, text))
    assert len(spec.parse(_campaign(tmp_path, text), allow_large=True).runs) == 2
    assert len(spec.parse(_campaign(tmp_path, "allow_large = true\n" + text)).runs) == 2
    out = tmp_path / "out"
    result = runner.invoke(app, ["campaign", str(tmp_path / "c.toml"), "--out", str(out), "--allow-large"])
    assert result.exit_code == 0, result.output
    assert (out / "runs.parquet").exists()


def test_the_shipped_studies_plan_within_the_limits():
    from ccbench.campaigns.studies import STUDIES

    for study in STUDIES.values():
        raw, *_ = spec.read(study.path)
        factors = raw["factors"]
        levels = [list(v) for v in factors.values()]
        size = planning.design_size(levels, list(factors), raw.get("repetitions", 1))
        assert planning.design_refusal(size) is None, study.name
