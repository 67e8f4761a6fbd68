"""Facts the simulator core owns and the Python front end uses through the
binding: Python's answers are the core's (trace checks, mean rate of a
trace, payload share of a segment, packet sizes, "did you mean" hints)."""

from __future__ import annotations

import json

import ccbench
import pytest
from ccbench import _ccsim, profiles, traces


def _core_error(raw: dict) -> tuple[str, str]:
    """(field path, detail) of the core's validation error for a scenario."""
    with pytest.raises(_ccsim.ScenarioError) as e:
        _ccsim.validate(json.dumps(raw))
    return e.value.path, e.value.detail


def _with_trace(opportunities_ms: list[int]) -> dict:
    return {
        "duration": 1,
        "downlink": {"trace": {"opportunities_ms": opportunities_ms}, "delay": "10ms"},
        "flows": [{"cc": "cubic"}],
    }


@pytest.mark.parametrize("opportunities_ms", [[], [5, 3], [1, 4, 2], [0, 0]])
def test_a_trace_file_and_the_same_trace_as_data_get_the_same_error(tmp_path, opportunities_ms):
    f = tmp_path / "t.trace"
    f.write_text("".join(f"{ms}\n" for ms in opportunities_ms))
    with pytest.raises(traces.TraceError) as from_file:
        traces.load_mahimahi(f)
    path, detail = _core_error(_with_trace(opportunities_ms))
    file_where, _, file_detail = str(from_file.value).partition(": ")
    assert file_detail == detail
    if path.endswith("]"):  # one timestamp is wrong: the file names its line
        entry = int(path.rsplit("[", 1)[1][:-1])
        assert file_where == f"{f}:{entry + 1}"
    else:
        assert path == "downlink.trace.opportunities_ms" and file_where == str(f)


def test_the_mean_rate_of_a_trace_is_the_rate_the_simulator_reports():
    trace = traces.load_mahimahi(profiles.TRACE_DIR / "ATT-LTE-driving-2016.up")
    r = ccbench.run(_with_trace(trace))
    assert r.links.set_index("link").loc["downlink", "rate_bps"] == traces.mean_rate_bps(trace)
    assert traces.MAHIMAHI_BYTES_PER_OPPORTUNITY == 1504


@pytest.mark.parametrize("mss, timestamps", [(1448, True), (1460, False), (1000, True)])
def test_payload_share_matches_the_simulated_segments(mss, timestamps):
    r = ccbench.run(
        {
            "duration": 2,
            "downlink": {"rate": "10Mbit", "delay": "10ms", "queue": {"size": "1000pkt"}},
            "flows": [{"cc": "reno", "tcp": {"mss": mss, "timestamps": timestamps}}],
        }
    )
    down = r.links.set_index("link").loc["downlink"]
    assert down["departures"] > 100
    # Every data segment of a bulk flow is full: its wire bytes are mss / share.
    wire_bytes_per_segment = down["departure_bytes"] / down["departures"]
    assert mss / wire_bytes_per_segment == pytest.approx(_ccsim.payload_share(mss, timestamps), rel=1e-12)


def test_the_packet_sizes_python_counts_with_are_the_cores():
    """The flow agent (kept free of the extension) strips the core's UDP and
    IP headers; the limits estimate packets of the core's full size."""
    from ccbench import limits
    from ccbench.emulate import agent, tables

    assert agent.UDP_HEADER_BYTES == tables.UDP_HEADER_BYTES == _ccsim.UDP_IP_HEADER_BYTES == 28
    assert limits.PACKET_BYTES == _ccsim.MTU_BYTES == 1500
    assert _ccsim.data_header_bytes(True) == _ccsim.TCP_IP_HEADER_BYTES + _ccsim.TIMESTAMP_OPTION_BYTES == 52
    # A full-size packet with timestamps, as the scenario's default segment size is.
    assert _ccsim.DEFAULT_MSS_BYTES == _ccsim.MTU_BYTES - _ccsim.data_header_bytes(True) == 1448


@pytest.mark.parametrize("name", ["cubc", "Vgeas", "bbr9", "htpc", "xyzzy"])
def test_did_you_mean_gives_the_hint_the_core_gives_for_an_algorithm(name):
    _, detail = _core_error({"duration": 1, "downlink": {"rate": "1Mbit"}, "flows": [{"cc": name}]})
    hint = _ccsim.did_you_mean(name, [a["name"] for a in ccbench.algorithms()])
    assert detail.startswith(f"unknown algorithm '{name}'{hint}; known: ")


def test_the_metric_and_counter_column_names_are_the_cores():
    """The names Python uses for the flows and links tables' metrics and counters come from the
    core: a simulated run's tables hold each of them."""
    from ccbench.run_result import FLOW_COUNTER_COLUMNS, FLOW_METRIC_COLUMNS, LINK_METRIC_COLUMNS

    r = ccbench.run({"duration": 1, "downlink": {"rate": "10Mbit", "delay": "10ms"}, "flows": [{"cc": "reno"}]})
    flows, links = list(r.flows.columns), list(r.links.columns)
    for names, table in ((FLOW_COUNTER_COLUMNS, flows), (FLOW_METRIC_COLUMNS, flows), (LINK_METRIC_COLUMNS, links)):
        assert names and all(n in table for n in names), (names, table)
    assert FLOW_METRIC_COLUMNS == ["active_s", "goodput_bps", "throughput_bps", "retrans_pct", "timeouts_per_100s"]
