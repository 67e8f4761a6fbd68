"""Named network profiles: listing, expansion, overrides, errors, and every
shipped profile building a scenario the core accepts and runs."""

from __future__ import annotations

import copy
import hashlib
import json
import re

import pytest
from ccbench import _ccsim, profiles, traces
from ccbench.profiles import ProfileError, expand, list_profiles

NAMES = profiles.profile_names()


def test_every_study_network_is_there_with_sources():
    for name in (
        "umts",
        "hsdpa",
        "lte-good",
        "lte-edge",
        "lte-poor",
        "lte-driving",
        "wan-100ms",
        "wan-200ms",
        "wan-200ms-jitter",
        "highspeed-20ms",
        "highspeed-200ms",
        "highspeed-600ms",
        "satellite",
    ):
        assert name in NAMES
    listed = {p["name"]: p for p in list_profiles()}
    assert "trace:PATH" in listed
    for p in listed.values():
        assert p["description"] and p["sources"], p["name"]
    umts = listed["umts"]
    assert "downlink.dch.bearers" in umts["parameters"]
    assert umts["parameters"]["uplink.rate"] == "57.6kbit"
    assert any("S1" in s for s in umts["sources"])
    assert "load" in listed["lte-edge"]["options"] and "evening" in listed["lte-edge"]["options"]["load"]["allowed"]


def test_expansion_gives_ordinary_fields_and_explicit_fields_win():
    s = expand({"profile": "umts", "duration": 10, "downlink": {"delay": "200ms"}, "flows": [{"cc": "newreno"}]})
    assert "profile" not in s
    rates = s["downlink"]["dch"]["bearers"]
    assert rates == ["57.6kbit", "115.2kbit", "345.6kbit"] and s["downlink"]["delay"] == "200ms"
    assert s["downlink"]["arq"] == {"max_retries": 4, "retry_delay": "80ms", "in_order": True}
    assert "outage_process" not in s["downlink"] and "outage_process" not in s["uplink"]
    assert s["uplink"]["rate"] == "57.6kbit"
    # A scenario without a profile is untouched.
    plain = {"duration": 1, "downlink": {"rate": 5}, "flows": []}
    assert expand(plain) == plain


def test_rate_given_by_the_scenario_replaces_a_profile_trace(tmp_path):
    trace = tmp_path / "x.down"
    trace.write_text("1\n2\n")
    s = expand({"profile": f"trace:{trace}", "downlink": {"rate": "3Mbit"}})
    assert s["downlink"]["rate"] == "3Mbit" and "trace" not in s["downlink"]
    s = expand({"profile": "lte-driving", "uplink": {"rate": "1Mbit"}})
    assert s["uplink"]["rate"] == "1Mbit" and "trace" not in s["uplink"]
    assert s["downlink"]["trace"]["source"] == "ATT-LTE-driving-2016.down"


def test_trace_profile_takes_the_up_file_beside_the_down_file(tmp_path, monkeypatch):
    (tmp_path / "t.down").write_text("1\n1\n2\n")
    (tmp_path / "t.up").write_text("2\n")
    (tmp_path / "alone.down").write_text("1\n")
    s = expand({"profile": f"trace:{tmp_path / 't.down'}"})
    assert s["downlink"]["trace"] == {"opportunities_ms": [1, 1, 2], "source": "t.down"}
    assert s["uplink"]["trace"] == {"opportunities_ms": [2], "source": "t.up"}
    assert "uplink" not in expand({"profile": f"trace:{tmp_path / 'alone.down'}"})
    # Relative paths: the scenario file's folder first, then the working directory, then the shipped traces.
    s = expand({"profile": "trace:t.down"}, base_dir=tmp_path)
    assert s["uplink"]["trace"]["source"] == "t.up"
    monkeypatch.chdir(tmp_path)
    assert expand({"profile": "trace:alone.down"})["downlink"]["trace"]["opportunities_ms"] == [1]
    shipped = expand({"profile": "trace:ATT-LTE-driving-2016.down"})
    assert shipped["uplink"]["trace"]["source"] == "ATT-LTE-driving-2016.up"
    (tmp_path / "bad.down").write_text("1\nx\n")
    with pytest.raises(ProfileError) as e:
        expand({"profile": "trace:bad.down"})
    assert e.value.path == "profile" and "bad.down:2" in e.value.detail


def test_lte_driving_ships_its_trace_pair():
    for direction, link in (("down", "downlink"), ("up", "uplink")):
        shipped = profiles.TRACE_DIR / f"ATT-LTE-driving-2016.{direction}"
        assert shipped.is_file()
        s = expand({"profile": "lte-driving"})
        assert s[link]["trace"]["opportunities_ms"] == traces.load_mahimahi(shipped)
    listed = {p["name"]: p for p in list_profiles()}["lte-driving"]
    assert "mean 4.57 Mbit/s" in listed["parameters"]["downlink.trace"]
    assert "mean 1.92 Mbit/s" in listed["parameters"]["uplink.trace"]
    assert any("NSDI 2013" in s for s in listed["sources"])


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
    s = expand(
        {
            "profile": {"name": "wan-200ms", "tuned": True},
            "flows": [{"cc": "vegas"}, {"cc": "cubic", "tcp": {"rmem_max": 1000000}}],
        }
    )
    assert s["flows"][0]["tcp"] == {"rmem_max": 46777216, "wmem_max": 46777216}
    assert s["flows"][1]["tcp"] == {"rmem_max": 1000000, "wmem_max": 46777216}
    default = expand({"profile": "wan-200ms", "flows": [{"cc": "cubic"}]})
    assert "tcp" not in default["flows"][0]
    assert default["downlink"]["delay"] == "100ms" and default["uplink"]["delay"] == "100ms"


@pytest.mark.parametrize("name", ["wan-100ms", "wan-100ms-jitter", "wan-200ms", "wan-200ms-jitter"])
def test_wan_queue_is_the_rate_qdiscs_and_netems_delay_line_fits_its_limit(name):
    # The rate qdisc's pfifo holds txqueuelen = 1000 packets whatever the delay; netem's
    # tfifo behind it (limit 1000, delayed packets included) holds one direction's delay
    # line at 100 Mbit/s, which stays below its limit, so it never drops.
    s = expand({"profile": name, "flows": [{"cc": "reno"}]})
    packets_per_s = 100e6 / (1500 * 8)
    for side in ("downlink", "uplink"):
        link = s[side]
        assert link["queue"]["size"] == "1000pkt"
        jitter_ms = 2.0 if "jitter" in link else 0.0  # the longest delay a packet gets
        in_delay = packets_per_s * (float(link["delay"].removesuffix("ms")) + jitter_ms) / 1e3
        assert in_delay < 1000


def test_kernel_preset_then_profile_then_flow_each_wins_over_the_one_before():
    from ccbench import scenario

    def tcp(profile, flow_tcp):
        s = scenario.load({"duration": "1s", "profile": profile, "flows": [{"cc": "reno", "tcp": flow_tcp}]})
        return s["flows"][0]["tcp"]

    preset = tcp("wan-100ms", {"kernel": "2.6.32"})
    assert (preset["init_cwnd"], preset["rmem_max"], preset["wmem_max"]) == (3, 4194304, 4194304)
    tuned = tcp({"name": "wan-100ms", "tuned": True}, {"kernel": "2.6.32"})
    assert (tuned["init_cwnd"], tuned["rmem_max"], tuned["wmem_max"]) == (3, 46777216, 46777216)
    own = tcp({"name": "wan-100ms", "tuned": True}, {"kernel": "2.6.32", "rmem_max": 8000000})
    assert (own["init_cwnd"], own["rmem_max"], own["wmem_max"]) == (3, 8000000, 46777216)
    assert own["adv_win_scale"] == 2 and own["kernel"] == "2.6.32"


def test_highspeed_states_and_varies_its_buffers_and_queue():
    default = expand({"profile": "highspeed-200ms", "flows": [{"cc": "cubic"}]})
    # Tuned buffers by default: a 4 MiB window would cap every algorithm at 200 ms.
    assert default["flows"][0]["tcp"] == {"rmem_max": 134217728, "wmem_max": 134217728}
    # The default queue: a gigabit switch port's buffer, where the UDP and TCP traffic merge.
    assert default["downlink"]["queue"]["size"] == "256KB" and default["uplink"]["queue"]["size"] == "256KB"
    bdp = expand({"profile": {"name": "highspeed-200ms", "queue": "bdp"}, "flows": [{}]})
    assert bdp["downlink"]["queue"]["size"] == "1bdp"
    kernel = expand({"profile": {"name": "highspeed-200ms", "buffer": "kernel", "queue": 0.2}, "flows": [{}]})
    assert kernel["flows"][0]["tcp"] == {"rmem_max": 4194304, "wmem_max": 4194304}
    assert kernel["downlink"]["queue"]["size"] == "0.2bdp" and kernel["uplink"]["queue"]["size"] == "0.2bdp"
    own = expand({"profile": {"name": "highspeed-20ms", "buffer": 8e6}, "downlink": {"queue": {"size": "500pkt"}}})
    assert own["downlink"]["queue"]["size"] == "500pkt"  # the scenario's own field wins
    with pytest.raises(ProfileError, match="out of range"):
        expand({"profile": {"name": "highspeed-20ms", "queue": 20}})


@pytest.mark.parametrize(
    "profile, path, needle",
    [
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
    ],
)
def test_bad_profiles_name_the_field(profile, path, needle):
    with pytest.raises(ProfileError) as e:
        expand({"profile": profile, "flows": [{"cc": "cubic"}]})
    assert e.value.path == path
    assert needle in e.value.detail, e.value.detail


def test_shipped_profile_files_are_well_formed():
    for f in profiles.PROFILE_DIR.glob("*.toml"):
        data = profiles._resolve(f.stem)
        assert set(data) <= profiles.PROFILE_KEYS, f.name
        assert "pending" not in data, f.name


# --- with the simulator core --------------------------------------------------


def test_scenario_loader_expands_profiles_and_reports_errors(tmp_path):
    from ccbench.scenario import ScenarioFileError, load

    f = tmp_path / "s.toml"
    f.write_text('profile = { name = "lte-edge", load = "forenoon" }\nduration = 5\n[[flows]]\ncc = "cubic"\n')
    s = load(f)
    assert s["downlink"]["rate"] == 24_600_000 and s["background"]["load"] == 0.03
    f.write_text('profile = "umst"\nduration = 5\n[[flows]]\ncc = "cubic"\n')
    with pytest.raises(ScenarioFileError) as e:
        load(f)
    assert e.value.path == "profile" and "did you mean 'umts'" in e.value.detail


def _run(raw: dict) -> dict:
    from ccbench.run_result import raw_columns
    from ccbench.scenario import load

    return raw_columns(_ccsim.run(json.dumps(load(raw))))


@pytest.mark.parametrize("name", NAMES)
def test_every_profile_runs_in_the_core(name):
    from ccbench.run_result import raw_columns
    from ccbench.scenario import load

    spec = (
        {"name": name, "load": "evening"}
        if "load" in {o for p in list_profiles() if p["name"] == name for o in p["options"]}
        else name
    )
    s = load({"profile": spec, "duration": "2s", "flows": [{"cc": "cubic"}, {"cc": "reno", "direction": "up"}]})
    # Every link field of the profile reached the core, which filled in its defaults.
    fragment = profiles._resolve(name).get("scenario", {})
    for link in ("downlink", "uplink"):
        for key in fragment.get(link, {}):
            assert s[link][key] is not None, (name, link, key)
    r = raw_columns(_ccsim.run(json.dumps(s)))
    assert r["flows"]["delivered_bytes"].sum() > 0, name


def test_umts_has_channel_losses_arq_retries_and_a_bearer_set_by_the_traffic():
    flow = {"cc": "newreno", "tcp": {"kernel": "2.6.24"}}
    for seed in range(1, 4):
        base = {"profile": "umts", "duration": "60s", "seed": seed, "flows": [flow]}
        r = _run(base)
        links = r["links"]
        down = list(links["link"]).index("downlink")
        assert links["channel_losses"][down] > 50 and links["arq_retries"][down] > 50
        assert links["channel_losses"][1 - down] > 0  # the uplink (ACKs) has RLC too
        # RLC ARQ leaves the study's residual loss below 1%.
        assert links["residual_losses"][down] <= links["channel_losses"][down] // 100
        # A bulk download keeps the RLC buffer above 4a's threshold: the DCH
        # goes up to its 384 kbit/s bearer (345.6 net of RLC retransmissions);
        # on the 128 kbit/s bearer it could not pass 115.2 kbit/s.
        assert r["flows"]["goodput_bps"][0] > 200e3, seed
        # Held on the lowest bearer (a scenario's rate replaces the profile's dch).
        low = expand(base)
        low["downlink"].pop("dch")
        low["downlink"]["rate"] = "57.6kbit"
        assert _run(low)["flows"]["goodput_bps"][0] < 57.6e3


def test_umts_holds_no_acks_of_an_upload():
    # The study's uplink flow kept a steady window of about 10 KB (RTT std 113 ms, no losses):
    # the downlink (a trickle of ACKs in CELL_FACH) must not hold its ACKs into a timeout.
    tcp = {"init_cwnd": 3, "snd_buf": "10KB"}
    for seed in range(1, 5):
        r = _run(
            {
                "profile": "umts",
                "duration": "100s",
                "seed": seed,
                "flows": [{"cc": "newreno", "direction": "up", "tcp": tcp}],
            }
        )
        assert r["flows"]["timeouts"][0] == 0, seed
        assert r["flows"]["retransmitted_segments"][0] == 0, seed


@pytest.mark.parametrize("rtt", ["100ms", "200ms"])
def test_wan_jitter_reorders_packets(rtt):
    # A receive window below the BDP: no queue drops, so every recovery comes from reordering.
    # Without SACK: a SACK sender learns the reordering from its first instance (RACK's
    # reordering window), and whether that first one costs a recovery is luck.
    flows = [{"cc": "vegas", "tcp": {"rmem_max": 500_000, "sack": False}}]
    plain = _run({"profile": f"wan-{rtt}", "duration": "10s", "flows": flows})
    jitter = _run({"profile": f"wan-{rtt}-jitter", "duration": "10s", "flows": flows})
    for r in (plain, jitter):
        assert r["links"]["queue_drops"].sum() == 0 and r["links"]["channel_losses"].sum() == 0
    assert plain["flows"]["fast_recoveries"][0] == 0 and plain["flows"]["duplicate_segments"][0] == 0
    # Spurious fast retransmits: the receiver gets segments it already had.
    assert jitter["flows"]["fast_recoveries"][0] > 0 and jitter["flows"]["duplicate_segments"][0] > 0


def test_lte_driving_capacity_is_the_traces_and_drives_the_background():
    r = _run({"profile": "lte-driving", "duration": "120s", "flows": [{"cc": "cubic"}]})
    links = r["links"]
    for direction, link in (("down", "downlink"), ("up", "uplink")):
        trace = traces.load_mahimahi(profiles.TRACE_DIR / f"ATT-LTE-driving-2016.{direction}")
        k = list(links["link"]).index(link)
        assert links["rate_bps"][k] == pytest.approx(traces.mean_rate_bps(trace), rel=1e-9)
    down = list(links["link"]).index("downlink")
    # One period of the trace: a bulk flow gets most of what the trace offers, never more.
    goodput_bps = r["flows"]["delivered_bytes"][0] * 8 / 120
    assert 0.5 * links["rate_bps"][down] < goodput_bps < links["rate_bps"][down]
    # Background load is a share of the trace's mean rate.
    for load in (0.3, 0.6):
        b = _run(
            {
                "profile": "lte-driving",
                "duration": "60s",
                "flows": [{"cc": "cubic", "start": "59s"}],
                "background": {"kind": "on-off", "direction": "down", "load": load},
            }
        )
        offered_bps = b["sources"]["wire_bytes_sent"][0] * 8 / 60
        assert offered_bps == pytest.approx(load * b["links"]["rate_bps"][down], rel=0.15)


def test_trace_profile_reads_a_mahimahi_pair():
    s = expand({"profile": f"trace:{profiles.TRACE_DIR / 'ATT-LTE-driving-2016.down'}"})
    assert len(s["downlink"]["trace"]["opportunities_ms"]) == 45604
    assert s["uplink"]["trace"]["source"] == "ATT-LTE-driving-2016.up"


def test_shipped_traces_are_the_published_files():
    """Every shipped trace is listed in the traces' README (source, licence)
    with the checksum of the published file, and is that file unchanged."""
    readme = (profiles.TRACE_DIR / "README.md").read_text(encoding="utf-8")
    listed = dict(re.findall(r"^\| `([^`]+)` \|.*\| `([0-9a-f]{64})` \|$", readme, flags=re.M))
    shipped = {p.name for p in profiles.TRACE_DIR.iterdir() if p.name != "README.md"}
    assert shipped and set(listed) == shipped
    for name, sha256 in listed.items():
        assert hashlib.sha256((profiles.TRACE_DIR / name).read_bytes()).hexdigest() == sha256, name
    assert "Winstein" in readme and "General Public License" in readme
    with pytest.raises(ProfileError) as e:
        expand({"profile": "trace:no-such.down"})
    assert "ATT-LTE-driving-2016.up" in e.value.detail and "README" not in e.value.detail


def test_cli_lists_the_profiles(runner):
    from ccbench.cli import app

    r = runner.invoke(app, ["profiles"], env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    for name in ("umts", "lte-edge", "lte-driving", "wan-200ms-jitter", "trace:PATH"):
        assert name in r.output
    # Every field is applied, none listed as pending (the DCH's "pending time after trigger" aside).
    shown = r.output.replace("pending_after_trigger", "").replace("pending time", "")
    assert "outage_process" in r.output and "pending" not in shown
    assert "[[udp]]" in r.output


def test_a_profile_parsed_once_is_not_changed_by_what_a_caller_does_with_it():
    first = profiles._resolve("umts")
    first["scenario"]["uplink"]["rate"] = "1kbit"
    first["sources"].clear()
    again = profiles._resolve("umts")
    assert again["scenario"]["uplink"]["rate"] == "57.6kbit" and again["sources"]
    names = profiles.profile_names()
    names.clear()
    assert "umts" in profiles.profile_names()


def test_expanding_a_profile_leaves_the_cached_profile_as_it_was():
    # The resolved profiles are kept per process; expansions copy what they change.
    before = copy.deepcopy(profiles._resolved("lte-good"))
    with_load = profiles.expand({"profile": {"name": "lte-good", "load": "evening"}, "flows": [{"cc": "cubic"}]})
    with_load["background"]["load"] = 0.5
    with_load["downlink"]["queue"] = {"size": "1pkt"}
    assert profiles._resolved("lte-good") == before
    plain = profiles.expand({"profile": "lte-good", "flows": [{"cc": "cubic"}]})
    assert "background" not in plain or plain["background"].get("load") != 0.5


def test_a_profile_with_links_is_refused_naming_the_profile_not_the_downlink():
    """The message used to say 'give either downlink (and uplink) ... or [[links]]',
    about a downlink the user never wrote (the profile's)."""
    from ccbench.scenario import ScenarioFileError, load

    spec = {
        "duration": "1s",
        "profile": "wan-100ms",
        "links": [{"name": "a", "rate": "10Mbit"}],
        "flows": [{"cc": "cubic", "route": ["a"]}],
    }
    with pytest.raises(ScenarioFileError, match=r"profile: a profile sets the dumbbell's downlink and uplink"):
        load(spec)


# --- parameter tables: every field a profile sets has a source or an assumption ---


@pytest.mark.parametrize("name", NAMES)
def test_every_field_a_profile_sets_has_an_entry_and_every_entry_a_field(name):
    assert profiles.parameter_problems(name) == []
    rows = profiles.parameter_table(name)
    assert rows and all(r["source"] or (r["assumed"] and r["sensitivity"]) for r in rows)


def test_option_fields_are_in_the_table_with_the_level_that_sets_them():
    rows = {r["field"]: r for r in profiles.parameter_table("wan-200ms")}
    assert rows["flows.tcp.rmem_max"]["value"] == "46777216 bytes (with tuned = true)"
    assert "46777216" in rows["flows.tcp.rmem_max"]["source"]
    rows = {r["field"]: r for r in profiles.parameter_table("highspeed-600ms")}
    assert rows["downlink.queue.size"]["value"] == "256KB"
    assert rows["downlink.queue.size"]["assumed"] and rows["downlink.queue.size"]["sensitivity"]
    assert rows["downlink.delay"]["value"] == "300ms" and "600 ms" in rows["downlink.delay"]["source"]


def test_coverage_names_missing_fields_and_entries_for_fields_not_set():
    from ccbench import profile_params

    fields = {"downlink.rate": "1Gbit", "downlink.loss.model": "bernoulli", "downlink.loss.p": "0.1"}
    entries = {"downlink.rate": {"source": "x"}, "downlink.loss": {"source": "y"}}
    assert profile_params.coverage_problems("p", fields, entries, set()) == []  # a table covers its fields
    missing = profile_params.coverage_problems("p", fields, {"downlink.loss": {"source": "y"}}, set())
    assert missing == ["profile p: downlink.rate has no entry in [parameters]"]
    extra = profile_params.coverage_problems("p", fields, entries | {"uplink.delay": {"source": "z"}}, set())
    assert extra == ['profile p: parameters."uplink.delay" names a field the profile does not set']
    assert profile_params.coverage_problems("p", {}, {"nominal.down": {"source": "z"}}, {"nominal.down"}) == []


@pytest.mark.parametrize(
    "entry, needle",
    [
        ("a string", "must be a table"),
        ({"source": "x", "assumed": "y", "sensitivity": "z"}, "exactly one of"),
        ({"sensitivity": "z"}, "exactly one of"),
        ({"assumed": "why"}, "needs sensitivity"),
        ({"source": ""}, "non-empty"),
        ({"source": "x", "souce": "y"}, "unknown keys ['souce']"),
    ],
)
def test_a_malformed_entry_is_refused_naming_the_profile_and_field(entry, needle):
    from ccbench import profile_params

    problem = profile_params.check_entry("wan-100ms", "downlink.rate", entry)
    assert problem and 'profile wan-100ms: parameters."downlink.rate"' in problem and needle in problem


@pytest.fixture
def own_profiles(monkeypatch, tmp_path):
    """Profiles read from tmp_path (the caches emptied before and after)."""
    monkeypatch.setattr(profiles, "PROFILE_DIR", tmp_path)
    for f in (profiles._parsed_file, profiles._resolved, profiles._shipped_names):
        f.cache_clear()
    yield tmp_path
    for f in (profiles._parsed_file, profiles._resolved, profiles._shipped_names):
        f.cache_clear()


def test_nominal_rates_are_read_and_checked(own_profiles):
    (own_profiles / "radio.toml").write_text(
        'description = "d"\nsources = ["s"]\nnominal = { down = "384kbit", up = "64kbit" }\n'
        '[scenario.downlink]\nrate = "345.6kbit"\n'
        '[parameters."downlink.rate"]\nsource = "x"\n[parameters."nominal.down"]\nsource = "TS 25.331"\n'
    )
    assert profiles.nominal_rate_bps("radio", "down") == 384e3 and profiles.nominal_rate_bps("radio", "up") == 64e3
    assert profiles.parameter_problems("radio") == []
    assert profiles.nominal_rate_bps("no-such", "down") is None
    (own_profiles / "bad.toml").write_text('description = "d"\nnominal = { down = "fast" }\n')
    profiles._shipped_names.cache_clear()  # a profile added while the process runs
    with pytest.raises(ProfileError, match=r"nominal.down = 'fast'.*384kbit"):
        profiles.nominal_rate_bps("bad", "down")


def test_a_malformed_entry_in_a_file_is_an_error_of_the_profile(own_profiles):
    (own_profiles / "x.toml").write_text(
        'description = "d"\n[scenario.downlink]\nrate = "1Mbit"\n[parameters."downlink.rate"]\nassumed = "why"\n'
    )
    with pytest.raises(ProfileError, match="needs sensitivity") as e:
        expand({"profile": "x", "flows": [{"cc": "reno"}]})
    assert e.value.path == "profile"


def test_cli_prints_the_parameter_table_and_its_json(runner):
    from ccbench.cli import app

    r = runner.invoke(app, ["profiles", "wan-200ms"], env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    assert "downlink.queue.size = 1000pkt" in r.output and "ASSUMED:" in r.output and "sensitivity:" in r.output
    assert "downlink.rate = 100Mbit" in r.output and "source: CALIBRATION.md S5" in r.output
    r = runner.invoke(app, ["profiles", "highspeed-20ms", "--json"])
    assert r.exit_code == 0, r.output
    table = {row["field"]: row for row in json.loads(r.output)[0]["table"]}
    assert table["downlink.queue.size"]["value"] == "256KB" and table["downlink.rate"]["source"]
