"""Named network profiles: listing, expansion, overrides, errors, and every
shipped profile building a scenario the core accepts and runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from ccbench import profiles
from ccbench.profiles import ProfileError, expand, list_profiles

SHARED_TRACES = Path(__file__).resolve().parents[1] / ".." / "shared" / "traces" / "cellular"

NAMES = profiles.profile_names()


def test_every_study_network_is_there_with_sources():
    for name in ("umts", "hsdpa", "lte-good", "lte-edge", "lte-poor", "wan-100ms", "wan-200ms",
                 "wan-200ms-jitter", "highspeed-20ms", "highspeed-200ms", "highspeed-600ms", "satellite"):
        assert name in NAMES
    listed = {p["name"]: p for p in list_profiles()}
    assert "trace:PATH" in listed
    for p in listed.values():
        assert p["description"] and p["sources"], p["name"]
    umts = listed["umts"]
    assert umts["parameters"]["downlink.rate"] == "384kbit"
    assert umts["parameters"]["uplink.rate"] == "64kbit"
    assert any("S1" in s for s in umts["sources"])
    assert "load" in listed["lte-edge"]["options"] and "evening" in listed["lte-edge"]["options"]["load"]["allowed"]


def test_expansion_gives_ordinary_fields_and_explicit_fields_win():
    s = expand({"profile": "umts", "duration": 10, "downlink": {"delay": "200ms"}, "flows": [{"cc": "newreno"}]})
    assert "profile" not in s
    assert s["downlink"] == {"rate": "384kbit", "delay": "200ms", "queue": {"size": "60pkt"}}
    assert s["uplink"]["rate"] == "64kbit"
    # A scenario without a profile is untouched.
    plain = {"duration": 1, "downlink": {"rate": 5}, "flows": []}
    assert expand(plain) == plain


def test_rate_given_by_the_scenario_replaces_a_profile_trace(tmp_path):
    pytest.importorskip("ccbench.traces")
    trace = tmp_path / "x.down"
    trace.write_text("1\n2\n")
    s = expand({"profile": f"trace:{trace}", "downlink": {"rate": "3Mbit"}})
    assert s["downlink"]["rate"] == "3Mbit" and "trace" not in s["downlink"]


def test_lte_load_levels_and_numbers():
    none = expand({"profile": "lte-good", "flows": [{"cc": "cubic"}]})
    assert "background" not in none
    evening = expand({"profile": {"name": "lte-good", "load": "evening"}, "flows": [{"cc": "cubic"}]})
    morning = expand({"profile": {"name": "lte-good", "load": "early-morning"}, "flows": [{"cc": "cubic"}]})
    assert evening["background"]["kind"] == "poisson-web"
    assert evening["background"]["load"] > morning["background"]["load"] > 0
    custom = expand({"profile": {"name": "lte-edge", "load": 0.3}, "background": {"size": {"mean": "1MB"}}})
    assert custom["background"]["load"] == 0.3
    assert custom["background"]["size"]["mean"] == "1MB"  # the scenario's own field wins
    assert custom["background"]["size"]["dist"] == "lognormal"


def test_wan_tuned_buffers_reach_every_flow():
    s = expand({"profile": {"name": "wan-200ms", "tuned": True},
                "flows": [{"cc": "vegas"}, {"cc": "cubic", "tcp": {"rmem_max": 1000000}}]})
    assert s["flows"][0]["tcp"] == {"rmem_max": 46777216, "wmem_max": 46777216}
    assert s["flows"][1]["tcp"] == {"rmem_max": 1000000, "wmem_max": 46777216}
    default = expand({"profile": "wan-200ms", "flows": [{"cc": "cubic"}]})
    assert "tcp" not in default["flows"][0]
    assert default["downlink"]["delay"] == "100ms" and default["uplink"]["delay"] == "100ms"


@pytest.mark.parametrize("profile, path, needle", [
    ("lte-egde", "profile", "did you mean 'lte-edge'"),
    ("wan", "profile", "did you mean"),
    ({"name": "lte-good", "load": "night"}, "profile.load", "evening"),
    ({"name": "lte-good", "load": -1}, "profile.load", "out of range"),
    ({"name": "lte-good", "lod": "evening"}, "profile.lod", "did you mean 'load'"),
    ({"name": "wan-100ms", "tuned": "yes"}, "profile.tuned", "true or false"),
    ({"load": "evening"}, "profile.name", "missing"),
    (42, "profile", "not allowed"),
    ("trace:", "profile", "needs a file"),
    ("trace:/no/such/file.down", "profile", "no trace file"),
])
def test_bad_profiles_name_the_field(profile, path, needle):
    with pytest.raises(ProfileError) as e:
        expand({"profile": profile, "flows": [{"cc": "cubic"}]})
    assert e.value.path == path
    assert needle in e.value.detail, e.value.detail


def test_shipped_profile_files_are_well_formed():
    for f in profiles.PROFILE_DIR.glob("*.toml"):
        data = profiles._resolve(f.stem)
        assert set(data) <= profiles.PROFILE_KEYS, f.name


# --- with the simulator core --------------------------------------------------

_ccsim = pytest.importorskip("ccbench._ccsim")


def test_scenario_loader_expands_profiles_and_reports_errors(tmp_path):
    from ccbench.scenario import ScenarioFileError, load
    f = tmp_path / "s.toml"
    f.write_text('profile = { name = "lte-edge", load = "forenoon" }\nduration = 5\n[[flows]]\ncc = "cubic"\n')
    s = load(f)
    assert s["downlink"]["rate"] == 5_000_000 and s["background"]["load"] == 0.25
    f.write_text('profile = "umst"\nduration = 5\n[[flows]]\ncc = "cubic"\n')
    with pytest.raises(ScenarioFileError) as e:
        load(f)
    assert e.value.path == "profile" and "did you mean 'umts'" in e.value.detail


@pytest.mark.parametrize("name", NAMES)
def test_every_profile_runs_in_the_core(name):
    from ccbench.scenario import load
    spec = {"name": name, "load": "evening"} if "load" in {o for p in list_profiles() if p["name"] == name
                                                        for o in p["options"]} else name
    s = load({"profile": spec, "duration": "2s", "flows": [{"cc": "cubic"}, {"cc": "reno", "direction": "up"}]})
    r = _ccsim.run(__import__("json").dumps(s))
    assert r["flows"]["delivered_bytes"].sum() > 0, name


@pytest.mark.skipif(not (SHARED_TRACES / "Verizon-LTE-short.down").exists(), reason="shared traces not present")
def test_trace_profile_reads_a_mahimahi_pair():
    pytest.importorskip("ccbench.traces")
    s = expand({"profile": f"trace:{SHARED_TRACES / 'Verizon-LTE-short.down'}"})
    assert len(s["downlink"]["trace"]["opportunities_ms"]) > 1000
    assert s["uplink"]["trace"]["source"] == "Verizon-LTE-short.up"


def test_cli_lists_the_profiles(runner):
    from ccbench.cli import app
    r = runner.invoke(app, ["profiles"], env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    for name in ("umts", "lte-edge", "wan-200ms-jitter", "trace:PATH"):
        assert name in r.output
    assert "[[udp]]" in r.output
