"""The per-flow limit counters (busy / receive-window / send-buffer /
application limited) and the words `ccbench run` and the campaign report
say about them."""

from __future__ import annotations

import ccbench
import pandas as pd
from ccbench.cli import app
from ccbench.flow_limits import flow_notes, group_notes

CHRONO_COLUMNS = ("busy_s", "rwnd_limited_s", "sndbuf_limited_s", "app_limited_s")


def _path(rate: str, delay: str, tcp: dict | None = None, duration: str = "20s") -> dict:
    flow = {"cc": "cubic", **({"tcp": tcp} if tcp else {})}
    return {
        "name": "limits",
        "duration": duration,
        "downlink": {"rate": rate, "delay": delay, "queue": {"size": "1bdp"}},
        "flows": [flow],
    }


def test_a_gigabit_600ms_flow_is_said_to_be_send_buffer_limited(runner, tmp_path):
    scenario = _path("1Gbit", "300ms", duration="60s")
    r = ccbench.run(scenario)
    assert set(CHRONO_COLUMNS) <= set(r.flows.columns)
    f = r.flows.iloc[0]
    assert f["sndbuf_limited_s"] > 0.8 * f["active_s"] and f["busy_s"] >= f["sndbuf_limited_s"]
    notes = flow_notes(r.flows, r.scenario)
    assert len(notes) == 1 and notes[0].startswith("flow 0 was send-buffer limited 9"), notes
    assert notes[0].endswith("of the time: raise tcp.wmem_max (now 4194304 bytes)"), notes
    path = tmp_path / "long-fat.toml"
    path.write_text(
        'duration = "60s"\n[downlink]\nrate = "1Gbit"\ndelay = "300ms"\nqueue = { size = "1bdp" }\n'
        '[[flows]]\ncc = "cubic"\n'
    )
    out = runner.invoke(app, ["run", str(path), "--out", str(tmp_path / "out"), "--no-plots"], terminal_width=200)
    assert out.exit_code == 0, out.output
    assert "note: flow 0 was send-buffer limited" in out.output and "raise tcp.wmem_max" in out.output


def test_a_short_rtt_bulk_flow_gets_no_note():
    r = ccbench.run(_path("10Mbit", "10ms"))
    assert r.flows["busy_s"][0] > 19 and flow_notes(r.flows, r.scenario) == []


def test_a_small_receive_buffer_is_said_to_limit_the_window():
    scenario = _path("100Mbit", "25ms", tcp={"rcv_buf": "64KB"})
    r = ccbench.run(scenario)
    notes = flow_notes(r.flows, r.scenario)
    assert len(notes) == 1 and "flow 0 was receive-window limited" in notes[0], notes
    assert notes[0].endswith("raise tcp.rcv_buf (now 64000 bytes)"), notes


def test_campaign_notes_average_per_compared_level():
    flows = pd.DataFrame(
        {
            "flows[0].cc": ["cubic", "cubic", "bbr"],
            "active_s": [10.0, 10.0, 10.0],
            "busy_s": [10.0, 10.0, 10.0],
            "sndbuf_limited_s": [9.0, 8.0, 0.5],
            "rwnd_limited_s": [0.0, 0.0, 0.0],
        }
    )
    notes = group_notes(flows, "flows[0].cc")
    assert notes == [
        "cubic: send-buffer limited 85% of the time on average over 2 flows: "
        "raise tcp.wmem_max (or a fixed tcp.snd_buf)"
    ]
