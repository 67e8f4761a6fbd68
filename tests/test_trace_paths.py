"""A relative `trace:PATH` profile is found beside the scenario file, wherever
ccbench runs from."""

from __future__ import annotations

from ccbench.scenario import load


def test_trace_profile_is_read_relative_to_the_scenario_file(tmp_path, monkeypatch):
    folder = tmp_path / "study"
    folder.mkdir()
    (folder / "link.down").write_text("1\n")
    scenario = folder / "s.toml"
    scenario.write_text('duration = "2s"\nprofile = "trace:link.down"\n[[flows]]\ncc = "cubic"\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    s = load(scenario)
    assert s["downlink"]["trace"]["opportunities_ms"] == [1]
