"""The run API, the result model and the result files."""

import io
import json
import math

import ccbench
import numpy as np
import pandas as pd
import pytest
from ccbench import run_files


def test_result_tables_and_metrics(small_scenario):
    r = ccbench.run(small_scenario, seed=4)
    f = r.flows.set_index("flow")
    assert r.meta["seed"] == 4 and r.meta["scenario"]["seed"] == 4
    assert r.meta["ccbench_version"] == ccbench.__version__
    # goodput of the file: its size over its completion time
    assert f.loc[1, "delivered_bytes"] == 200_000
    assert f.loc[1, "goodput_bps"] == pytest.approx(200_000 * 8 / f.loc[1, "completion_s"])
    # bulk flow: over its active time; throughput counts retransmissions too
    assert f.loc[0, "active_s"] == 3.0
    assert f.loc[0, "throughput_bps"] == pytest.approx(f.loc[0, "bytes_sent"] * 8 / 3.0)
    assert f.loc[0, "throughput_bps"] > f.loc[0, "goodput_bps"]
    # RTT statistics of every per-ACK sample (all of them kept here: fewer than the reservoir holds)
    samples = r.rtt[r.rtt["flow"] == 0]["rtt_ms"]
    assert f.loc[0, "rtt_samples"] == len(samples)
    assert f.loc[0, "rtt_mean_ms"] == pytest.approx(samples.mean())
    assert f.loc[0, "rtt_p95_ms"] == pytest.approx(np.percentile(samples, 95, method="lower"), rel=0.01)
    assert f.loc[0, "queuing_mean_ms"] == pytest.approx(samples.mean() - samples.min())
    # interval rates in the series add up to the delivered bytes
    s = r.series[r.series["flow"] == 0]
    dt = np.diff(s["t"].to_numpy())
    assert np.nansum(s["goodput_bps"].to_numpy()[1:] * dt / 8) == pytest.approx(s["delivered_bytes"].iloc[-1])
    # the link's utilization: what its flows delivered over the time they had it, from the
    # cubic flow's start to the end of the run (the reno transfer ran in between), over the payload capacity
    down = r.links.set_index("link").loc["downlink"]
    assert down["capacity_bps"] == pytest.approx(5e6 * 1448 / 1500)
    together = r.flows["delivered_bytes"].sum() * 8 / 3.0
    assert down["utilization"] == pytest.approx(together / down["capacity_bps"])
    # and the studies' utilization against the nominal rate, headers counted as overhead
    assert down["nominal_utilization"] == pytest.approx(together / 5e6)
    assert 0 < r.jain_index() <= 1
    w = r.window_throughput(0.0, 3.0, what="goodput")
    assert w[0] == pytest.approx(f.loc[0, "delivered_bytes"] * 8 / 3.0)
    assert r.recovery_ratio((0, 1), (2, 3)).index.tolist() == [0, 1]


def test_same_scenario_and_seed_give_byte_identical_files(tmp_path, small_scenario):
    dirs = [run_files.save(ccbench.run(small_scenario, seed=9), tmp_path / f"r{i}") for i in range(2)]
    names = sorted(p.name for p in dirs[0].iterdir())
    assert names == sorted(p.name for p in dirs[1].iterdir())
    assert {
        "meta.json",
        "flows.parquet",
        "flows.csv",
        "series.parquet",
        "series.csv",
        "cc_state.parquet",
        "rtt.parquet",
        "links.parquet",
        "links.csv",
        "link_series.parquet",
        "sources.parquet",
        "sources.csv",
        "source_series.parquet",
    } == set(names)
    for n in names:
        assert (dirs[0] / n).read_bytes() == (dirs[1] / n).read_bytes(), n
    other = run_files.save(ccbench.run(small_scenario, seed=10), tmp_path / "other")
    assert (other / "flows.parquet").read_bytes() != (dirs[0] / "flows.parquet").read_bytes()


def test_saved_run_describes_itself_and_loads_back(tmp_path, small_scenario):
    r = ccbench.run(small_scenario)
    d = run_files.save(r, tmp_path / "run")
    meta = json.loads((d / "meta.json").read_text())
    assert {"schema_version", "ccbench_version", "seed", "scenario"} <= set(meta)
    assert "wall_seconds" not in meta
    back = run_files.load(d)
    for name in run_files.TABLES:
        a, b = getattr(r, name), getattr(back, name)
        assert list(a.columns) == list(b.columns), name
        assert a.equals(b), name
    assert not list(d.glob(".*tmp"))  # no temporary files left behind


def test_ccbench_load_reads_a_run_directory_and_names_what_it_is_not(tmp_path, small_scenario):
    r = ccbench.run(small_scenario)
    d = run_files.save(r, tmp_path / "run")
    back = ccbench.load(d)
    assert isinstance(back, ccbench.Result) and back.flows.equals(r.flows)
    (tmp_path / "neither").mkdir()
    with pytest.raises(Exception, match=r"neither a campaign directory \(no index.sqlite\) nor a run directory"):
        ccbench.load(tmp_path / "neither")


def test_scenario_from_toml_text_and_file(tmp_path):
    text = 'duration = "1s"\n[downlink]\nrate = "2Mbit"\n[[flows]]\ncc = "reno"\ncount = 2\n'
    a = ccbench.run_toml(text)
    p = tmp_path / "s.toml"
    p.write_text(text)
    b = ccbench.run(p)
    assert len(a.flows) == 2
    assert a.flows.equals(b.flows)
    assert math.isfinite(a.flows["goodput_bps"].iloc[0])


def test_cross_traffic_sources_are_kept(tmp_path, small_scenario):
    small_scenario["udp"] = [{"rate": "1Mbit", "start": "1s", "stop": "2s"}]
    r = ccbench.run(small_scenario)
    assert len(r.sources) == 1 and r.sources["bytes_delivered"].iloc[0] > 0
    back = run_files.load(run_files.save(r, tmp_path / "run"))
    assert back.sources.equals(r.sources)
    assert len(back.source_series) == len(r.source_series) > 0


def test_algorithm_state_is_a_long_table_beside_the_series(tmp_path):
    text = (
        'duration = "2s"\n[downlink]\nrate = "10Mbit"\ndelay = "10ms"\n[[flows]]\ncc = "bbr"\n[[flows]]\ncc = "cubic"\n'
    )
    r = ccbench.run_toml(text)
    assert not [c for c in r.series.columns if c.startswith("cc_")]
    s = r.cc_state
    assert list(s.columns) == ["t", "flow", "var", "value", "label"]
    modes = s[(s["flow"] == 0) & (s["var"] == "mode")]
    assert set(modes["label"]) <= {"startup", "drain", "probe_bw", "probe_rtt"}
    assert "probe_bw" in set(modes["label"])
    names = ["startup", "drain", "probe_bw", "probe_rtt"]
    assert [names[int(v)] for v in modes["value"]] == list(modes["label"])
    # A state row when the value changed: bbr's mode rows are at some of its series' times, each a new mode.
    series_t = list(r.series[r.series["flow"] == 0]["t"])
    assert set(modes["t"]) <= set(series_t) and modes["t"].iloc[0] == series_t[0]
    assert (modes["label"].astype(str).to_numpy()[1:] != modes["label"].astype(str).to_numpy()[:-1]).all()
    assert "mode" not in set(s[s["flow"] == 1]["var"]) and "wmax" in set(s[s["flow"] == 1]["var"])
    assert set(s[s["var"] == "btl_bw_bps"]["label"]) == {""}
    wide = r.state()
    assert {"t", "flow", "cc_mode", "cc_btl_bw_bps", "cc_wmax"} <= set(wide.columns)
    assert wide["cc_btl_bw_bps"].dtype == np.float64
    assert set(wide[wide["flow"] == 1]["cc_mode"]) == {""}
    # Wide, a row per series row: each the mode of the latest change at or before it.
    assert list(r.state(flow=0)["t"]) == series_t
    latest = np.searchsorted(modes["t"].to_numpy(), series_t, side="right") - 1
    assert list(r.state(flow=0)["cc_mode"]) == list(modes["label"].astype(str).to_numpy()[latest])
    back = run_files.load(run_files.save(r, tmp_path / "run"))
    assert back.state().equals(wide)
    assert list(back.cc_state["label"].astype(str)) == list(s["label"].astype(str))
    state = {a["name"]: a["state"] for a in ccbench.algorithms()}
    mode = next(v for v in state["bbr"] if v["name"] == "mode")
    assert mode == {"name": "mode", "kind": "mode", "names": ["startup", "drain", "probe_bw", "probe_rtt"]}


def test_rtt_statistics_without_the_rtt_table(small_scenario):
    """record.rtt_samples = "none" keeps no sample, yet the flows table has
    every RTT statistic (the core computes them while the run goes)."""
    full = ccbench.run(small_scenario, seed=3)
    bare = ccbench.run({**small_scenario, "record": {"rtt_samples": "none"}}, seed=3)
    assert len(bare.rtt) == 0 and list(bare.rtt.columns) == ["t", "flow", "rtt_ms"]
    assert bare.meta["scenario"]["record"]["rtt_samples"] == "none"
    assert full.meta["scenario"]["record"]["rtt_samples"] == 10_000
    for c in ("rtt_samples", "rtt_mean_ms", "rtt_p95_ms", "queuing_mean_ms", "goodput_bps"):
        assert bare.flows[c].tolist() == full.flows[c].tolist(), c
    assert (bare.flows["rtt_samples"] > 0).all()


def test_a_str_is_a_file_name_never_toml_text(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.cfg").write_text('duration = "1s"\n[downlink]\nrate = "2Mbit"\n[[flows]]\ncc = "reno"\n')
    assert len(ccbench.run("x.cfg").flows) == 1  # read as a file, whatever its extension
    with pytest.raises(ccbench.ScenarioFileError) as e:
        ccbench.run("missing.cfg")
    assert e.value.source == "missing.cfg" and "No such file" in e.value.detail
    with pytest.raises(ccbench.ScenarioFileError) as e:
        ccbench.run('duration = "1s"\n[[flows]]\ncc = "reno"\n')
    assert "ccbench.run_toml(text)" in e.value.detail
    with pytest.raises(TypeError, match="file path"):
        ccbench.run(42)


def test_campaigns_follow_the_same_rule(tmp_path):
    with pytest.raises(ccbench.CampaignFileError) as e:
        ccbench.campaign(str(tmp_path / "missing.cfg"), out=tmp_path / "out")
    assert "missing.cfg" in str(e.value) and "No such file" in str(e.value)
    text = (
        'name = "t"\nrepetitions = 1\n[scenario]\nduration = "1s"\n[scenario.downlink]\nrate = "2Mbit"\n'
        '[[scenario.flows]]\ncc = "reno"\n[factors]\n"flows[0].cc" = ["reno"]\n'
    )
    from ccbench.campaigns import spec

    assert len(spec.parse(ccbench.TomlText(text)).runs) == 1
    with pytest.raises(ccbench.CampaignFileError) as e:
        spec.parse(text)
    assert "use ccbench.TomlText(text)" in str(e.value)


def test_numpy_values_in_a_dict_are_plain_numbers(small_scenario):
    """A notebook's sweep gives NumPy scalars and arrays (np.arange, a
    DataFrame's cells): a dict scenario or campaign takes them as the
    numbers they are, as it does Python's own, and a tuple as a list."""
    plain = ccbench.run(small_scenario, seed=3)
    small_scenario["downlink"]["rate"] = np.int64(5_000_000)
    small_scenario["flows"][1]["start"] = np.float32(0.5)
    small_scenario["flows"] = tuple(small_scenario["flows"])
    small_scenario["flows"][0]["count"] = np.uint8(1)
    small_scenario["flows"][0]["tcp"] = {"sack": np.bool_(True)}
    r = ccbench.run(small_scenario, seed=3)
    assert r.meta["scenario"]["downlink"]["rate"] == 5_000_000
    assert r.flows.equals(plain.flows)
    from ccbench.campaigns import spec

    campaign = {
        "name": "numpy levels",
        "repetitions": np.int64(1),
        "scenario": {"duration": "1s", "downlink": {"rate": "2Mbit"}, "flows": [{"cc": "reno"}]},
        "factors": {"downlink.rate": np.array([2_000_000, 4_000_000])},
    }
    runs = spec.parse(campaign).runs
    assert sorted(run.scenario["downlink"]["rate"] for run in runs) == [2_000_000, 4_000_000]


def test_a_seed_that_is_not_a_whole_number_is_refused(small_scenario):
    """seed=1.5 ran seed 1 and seed="3" seed 3, as int() made them."""
    for seed in (1.5, 2.0, "3", True):
        with pytest.raises(TypeError, match=f"seed: {seed!r} .*{type(seed).__name__}.* is not a whole number"):
            ccbench.run(small_scenario, seed=seed)
    assert ccbench.run(small_scenario, seed=np.uint16(3)).meta["seed"] == 3


def test_a_run_says_what_ran_named_or_not(tmp_path):
    """A run from a dict printed as <ccbench.Result '' seed 1>."""
    unnamed = {"duration": "1s", "downlink": {"rate": "5Mbit"}, "flows": [{"cc": "cubic", "count": 2}, {"cc": "reno"}]}
    r = ccbench.run(unnamed, seed=4)
    assert repr(r) == "<ccbench.Result unnamed: 3 flows (cubic x2, reno), 1 s, seed 4>"
    named = ccbench.run({**unnamed, "name": "pair"})
    assert repr(named) == "<ccbench.Result pair: 3 flows (cubic x2, reno), 1 s, seed 1>"
    assert repr(run_files.load(run_files.save(r, tmp_path / "saved"))) == repr(r)  # a saved run says the same
    assert repr(ccbench.Result()) == "<ccbench.Result without a scenario>"


def test_jain_index_of_a_link_that_does_not_exist_is_an_error(small_scenario):
    """A typo in the link's name gave NaN, as a link that carries no flow does."""
    r = ccbench.run(small_scenario)
    assert r.jain_index("downlink") == r.jain_index()
    assert math.isnan(r.jain_index("uplink"))  # carries no flow's data
    with pytest.raises(KeyError, match="'downlnik' is not a link of the run; one of downlink, uplink"):
        r.jain_index("downlnik")


def test_a_late_flow_does_not_push_a_constant_links_utilization_above_one():
    """Summing the goodputs of a flow that ran 5 s and one that joined for the
    last 3 s gave 116% of a 10 Mbit/s link (the starter scenario did)."""
    r = ccbench.run(
        {
            "duration": "5s",
            "downlink": {"rate": "10Mbit", "delay": "20ms"},
            "flows": [{"cc": "cubic"}, {"cc": "reno", "start": "2s"}],
        }
    )
    down = r.links.set_index("link").loc["downlink"]
    assert r.flows["goodput_bps"].sum() / down["capacity_bps"] > 1.05  # what the sum would say
    assert down["goodput_bps"] == pytest.approx(r.flows["delivered_bytes"].sum() * 8 / 5.0, rel=1e-12)
    assert 0.9 < down["utilization"] <= 1.0


def test_a_file_with_a_stop_time_is_abandoned_unless_all_sent_by_then():
    """`size` with `stop` (README, Scenarios): the application stops writing at `stop`. A file not
    all sent by then has no completion time and its rates end at `stop`; one all sent (here the
    initial window of 10 segments, sent at once) completes as usual, after `stop`."""
    r = ccbench.run(
        {
            "duration": "4s",
            "downlink": {"rate": "5Mbit", "delay": "10ms"},
            "flows": [{"cc": "cubic", "size": "2MB", "stop": "1s"}, {"cc": "cubic", "size": "14480B", "stop": "5ms"}],
        }
    )
    big, small = (row for _, row in r.flows.iterrows())
    assert math.isnan(big["completion_s"]) and big["end_s"] == 1.0 and big["active_s"] == 1.0
    assert 0 < big["delivered_bytes"] < 2_000_000
    assert big["goodput_bps"] == pytest.approx(big["delivered_bytes"] * 8 / 1.0)
    assert small["delivered_bytes"] == 14480 and small["completion_s"] > 0.005
    assert small["end_s"] == pytest.approx(small["completion_s"])


def test_csv_floats_are_the_shortest_text_that_reads_back_exactly():
    df = pd.DataFrame({"t": [0.0200432, 0.1 + 0.2, 1e-300, 123456789.12345679, float("nan"), 5.0], "n": range(6)})
    text = run_files.csv_bytes(df).decode()
    assert text.splitlines()[1:3] == ["0.0200432,0", "0.30000000000000004,1"]
    back = pd.read_csv(io.StringIO(text))
    assert back["t"].equals(df["t"]) and back["n"].equals(df["n"])
