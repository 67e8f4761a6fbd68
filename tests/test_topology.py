"""Scenarios with named [[links]] and routes, end to end through the front end:
the CLI runs the parking lot with tables and plots for every link, routes
reach the flows table, a trace file may rate any named link, and a bad route
is a scenario error naming the field."""

import math
from pathlib import Path

import ccbench
import pandas as pd
import pytest
from ccbench.cli import app
from ccbench.run_result import flow_routes, route_links
from ccbench.scenario import ScenarioFileError, read

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
PARKING_LOT_LINKS = ["hop1", "hop2", "hop3", "hop3-back", "hop2-back", "hop1-back"]


def test_ccbench_run_parking_lot_writes_every_link(tmp_path, runner):
    scenario = tmp_path / "parking-lot.toml"
    scenario.write_text((EXAMPLES / "parking-lot.toml").read_text().replace('duration = "60s"', 'duration = "10s"'))
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(scenario), "--out", str(out), "--plots"], terminal_width=250)
    assert result.exit_code == 0, result.output
    assert "hop1>hop2>hop3" in result.stdout
    for hop in ("hop1", "hop2", "hop3"):
        assert f"{hop}: utilization" in result.stdout
    links = pd.read_csv(out / "links.csv")
    assert list(links["link"]) == PARKING_LOT_LINKS
    assert sorted(set(pd.read_parquet(out / "link_series.parquet")["link"])) == sorted(PARKING_LOT_LINKS)
    flows = pd.read_csv(out / "flows.csv")
    assert list(flows["route"]) == ["hop1>hop2>hop3", "hop1", "hop2", "hop3"]
    assert list(flows["ack_route"])[0] == "hop3-back>hop2-back>hop1-back"
    assert list(flows["direction"]) == ["route"] * 4
    assert (out / "links.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_link_goodput_sums_the_flows_whose_data_crosses_it():
    raw, _ = read(EXAMPLES / "parking-lot.toml")
    raw["duration"] = "8s"
    r = ccbench.run(raw)
    links = r.links.set_index("link")
    goodput = r.flows.set_index("flow")["goodput_bps"]
    for hop, short in (("hop1", 1), ("hop2", 2), ("hop3", 3)):
        assert links.loc[hop, "goodput_bps"] == pytest.approx(goodput[0] + goodput[short])
        assert r.jain_index(hop) == pytest.approx(ccbench.metrics.jain_index([goodput[0], goodput[short]]))
    assert math.isnan(links.loc["hop1-back", "goodput_bps"])  # only ACKs cross it: not measured
    # Every hop is as fast, so each flow's bottleneck is the first link of its route.
    assert list(r.flows["link"]) == ["hop1", "hop1", "hop2", "hop3"]


def test_the_bottleneck_is_the_slowest_link_of_the_data_route():
    r = ccbench.run(
        {
            "duration": "2s",
            "links": [
                {"name": "fast", "rate": "20Mbit", "delay": "5ms"},
                {"name": "slow", "rate": "5Mbit", "delay": "5ms"},
                {"name": "back", "rate": "20Mbit", "delay": "10ms"},
            ],
            "flows": [{"cc": "reno", "route": ["fast", "slow"], "ack_route": ["back"]}],
        }
    )
    assert r.flows["link"].iloc[0] == "slow"
    assert route_links(r.flows["route"].iloc[0]) == ["fast", "slow"]


def test_the_dumbbell_keeps_its_link_per_direction(small_scenario):
    small_scenario["flows"][1]["direction"] = "up"
    r = ccbench.run(small_scenario)
    assert list(r.flows["link"]) == ["downlink", "uplink"]
    assert list(r.flows["route"]) == ["downlink", "uplink"]
    assert flow_routes(r.scenario) == [(["downlink"], ["uplink"]), (["uplink"], ["downlink"])]


def test_a_trace_file_rates_a_named_link(tmp_path):
    (tmp_path / "one.trace").write_text("1\n")  # 12.032 Mbit/s
    f = tmp_path / "s.toml"
    f.write_text(
        """
duration = "2s"
[[links]]
name = "cell"
trace = "one.trace"
delay = "10ms"
[[links]]
name = "back"
rate = "10Mbit"
delay = "10ms"
[[flows]]
cc = "cubic"
route = ["cell"]
ack_route = ["back"]
"""
    )
    r = ccbench.run(f)
    assert r.links.set_index("link").loc["cell", "rate_bps"] == pytest.approx(12.032e6)
    assert r.scenario["links"][0]["trace"]["source"] == "one.trace"


def test_an_unknown_link_in_a_route_names_the_field(tmp_path):
    raw, _ = read(EXAMPLES / "parking-lot.toml")
    raw["flows"][0]["route"] = ["hop1", "hop4"]
    with pytest.raises(ScenarioFileError) as e:
        ccbench.run(raw)
    assert e.value.path == "flows[0].route[1]"
    assert '"hop4" is not a link' in e.value.detail and "hop1, hop2, hop3" in e.value.detail
