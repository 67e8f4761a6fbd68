"""`--json` output of run, algorithms, profiles and kernels; name filters; text
that fits 80 columns without cutting a name."""

import json
import re
from pathlib import Path

import pytest
from ccbench import _ccsim, profiles
from ccbench.cli import app
from ccbench.json_output import RUN_FLOW_KEYS, RUN_LINK_KEYS

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "two-flows-cubic-vs-reno.toml"


def test_run_json_has_the_documented_keys_per_flow_and_link(runner, tmp_path):
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(EXAMPLE), "--out", str(out), "--no-plots", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert set(summary) == {
        "scenario",
        "seed",
        "duration_s",
        "wall_seconds",
        "out",
        "files",
        "flows",
        "links",
        "jain",
        "warnings",
        "notes",
    }
    assert summary["scenario"] == "cubic vs reno" and summary["out"] == str(out)
    assert "flows.parquet" in summary["files"] and "meta.json" in summary["files"]
    assert [f["cc"] for f in summary["flows"]] == ["cubic", "reno"]
    for f in summary["flows"]:
        assert tuple(f) == RUN_FLOW_KEYS
        assert f["goodput_bps"] > 0 and f["completion_s"] is None  # bulk flows: null, not NaN
    assert [link["link"] for link in summary["links"]] == ["downlink", "uplink"]
    assert all(tuple(link) == RUN_LINK_KEYS for link in summary["links"])
    uplink = summary["links"][1]  # only ACKs cross it: not measured, where it read 0
    assert uplink["goodput_bps"] is None and uplink["utilization"] is None and uplink["nominal_utilization"] is None
    assert 0.5 <= summary["jain"] <= 1, "named as the runs table's column (runs.parquet: jain)"


CAMPAIGN = """
name = "json campaign"
repetitions = 2
[scenario]
duration = "1s"
downlink = { rate = "10Mbit", delay = "10ms" }
flows = [{ cc = "reno" }]
[factors]
"flows[0].cc" = ["reno", "vegas"]
"""


def test_campaign_json_is_one_object_with_the_runs_and_the_recommendations(runner, tmp_path):
    """`campaign --json` (iperf3's -J): the summary and the recommendation, with
    the progress kept off stdout, so stdout parses as JSON whole."""
    f = tmp_path / "c.toml"
    f.write_text(CAMPAIGN)
    out = tmp_path / "out"
    result = runner.invoke(app, ["campaign", str(f), "--out", str(out), "--jobs", "1", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert set(summary) == {"directory", "report", "runs", "conditions"}
    # The path has no random part: each algorithm's second repetition is a copy of its first.
    runs = {"total": 4, "run_now": 2, "copied_no_randomness": 2, "already_done": 0, "failed": 0}
    assert summary["runs"] == {**summary["runs"], **runs}
    (condition,) = summary["conditions"]
    assert condition["pick"] in ("reno", "vegas") and condition["objective"] == "throughput"
    names = [c["name"] for c in condition["candidates"]]
    assert sorted(names) == ["reno", "vegas"] and condition["pick"] in names
    means = [c["mean"] for c in condition["candidates"]]
    assert means == sorted(means, reverse=True), "best first by the objective (the pick may be a tie broken by delay)"
    for c in condition["candidates"]:
        assert c["n"] == 2 and c["low"] <= c["mean"] <= c["high"] and c["mean"] == c["goodput_bps"]
        assert {"rtt_p95_ms", "retrans_pct", "verdict"} <= set(c)
    again = json.loads(runner.invoke(app, ["campaign", str(f), "--out", str(out), "--json"]).stdout)
    assert again["runs"]["already_done"] == 4 and again["conditions"] == summary["conditions"]


def test_run_json_carries_the_notes_the_text_prints(runner, tmp_path):
    """--json gave "warnings": [] and nothing else, while the text output said
    the flow was send-buffer limited 66% of the run."""
    example = EXAMPLE.parent / "wan-two-routers.toml"
    args = ["run", str(example), "--no-plots", "--force"]
    text = runner.invoke(app, [*args, "--out", str(tmp_path / "t")], terminal_width=250).stdout
    summary = json.loads(runner.invoke(app, [*args, "--out", str(tmp_path / "j"), "--json"]).stdout)
    assert summary["notes"] and all(n.startswith("flow ") for n in summary["notes"])
    assert [line.removeprefix("note: ") for line in text.splitlines() if line.startswith("note: flow ")] == summary[
        "notes"
    ]


def test_algorithms_json_lists_every_algorithm_with_its_parameters(runner):
    result = runner.invoke(app, ["algorithms", "--json"])
    assert result.exit_code == 0, result.output
    listed = json.loads(result.stdout)
    assert [a["name"] for a in listed] == [a["name"] for a in _ccsim.algorithms()]
    cubic = next(a for a in listed if a["name"] == "cubic")
    assert {"name", "reference", "summary", "params", "state"} <= set(cubic)
    assert {"name", "kind", "default", "min", "max", "doc"} == set(cubic["params"][0])


def test_a_name_filters_and_a_substring_selects_several(runner):
    one = json.loads(runner.invoke(app, ["algorithms", "cubic", "--json"]).stdout)
    assert [a["name"] for a in one] == ["cubic"]
    known = [a["name"] for a in _ccsim.algorithms()]
    several = json.loads(runner.invoke(app, ["algorithms", "veno", "reno", "--json"]).stdout)
    assert [a["name"] for a in several] == [n for n in known if n in ("veno", "reno")]
    westwood = json.loads(runner.invoke(app, ["algorithms", "westw", "--json"]).stdout)
    assert westwood and all("westw" in a["name"] for a in westwood)


def test_an_unknown_name_is_a_clean_error_with_a_suggestion(runner):
    result = runner.invoke(app, ["algorithms", "cubik"])
    assert result.exit_code == 2
    assert "no algorithm named 'cubik'" in result.stderr and "did you mean 'cubic'" in result.stderr
    result = runner.invoke(app, ["profiles", "umst"])
    assert result.exit_code == 2 and "did you mean 'umts'" in result.stderr


def test_profiles_filter_and_json(runner):
    result = runner.invoke(app, ["profiles", "lte", "--json"])
    assert result.exit_code == 0, result.output
    names = [p["name"] for p in json.loads(result.stdout)]
    assert names == [n for n in profiles.profile_names() if "lte" in n] and names
    text = runner.invoke(app, ["profiles", "lte"], terminal_width=80).stdout
    assert all(n in text for n in names) and "umts" not in text


def test_kernels_json_names_every_preset_with_sources(runner):
    result = runner.invoke(app, ["kernels", "--json"])
    assert result.exit_code == 0, result.output
    listed = json.loads(result.stdout)
    assert [k["name"] for k in listed["presets"]] == [k["name"] for k in _ccsim.kernels()["presets"]]
    assert any(s["field"] == "init_cwnd" and s["source"] for k in listed["presets"] for s in k["sets"])
    assert listed["not_modelled"] and {"behaviour", "note"} == set(listed["not_modelled"][0])


def _fits_80_columns(text: str) -> None:
    too_long = [line for line in text.splitlines() if len(line) > 80]
    assert not too_long, too_long


@pytest.mark.parametrize("command", ["algorithms", "profiles", "kernels", "studies"])
def test_listings_fit_80_columns(runner, command, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    result = runner.invoke(app, [command])
    assert result.exit_code == 0, result.output
    _fits_80_columns(result.stdout)


def test_parameter_names_are_never_cut_at_80_columns(runner, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    text = runner.invoke(app, ["algorithms"]).stdout
    _fits_80_columns(text)
    for a in _ccsim.algorithms():
        assert re.search(rf"^{re.escape(a['name'])}  ", text, re.M), a["name"]
        for p in a["params"]:
            assert re.search(rf"^ +{re.escape(p['name'])} = ", text, re.M), (a["name"], p["name"])


def test_run_output_fits_80_columns(runner, tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.chdir(tmp_path)  # a short output path: a path is never broken across lines
    result = runner.invoke(app, ["run", str(EXAMPLE), "--out", "o", "--no-plots"])
    assert result.exit_code == 0, result.output
    _fits_80_columns(result.stdout)
    for header in ("goodput", "retx %", "RTT", "queuing"):
        assert header in result.stdout
