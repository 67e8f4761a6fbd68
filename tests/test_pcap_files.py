"""Where a packet capture is written (beside the scenario file, or in the run
directory of `ccbench run`, never in the working directory by accident),
what `ccbench run` says about it, and its timestamps: simulated time since
the run's start, on the pcap epoch (0 s = 1970-01-01 00:00:00 UTC)."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import ccbench
from ccbench.cli import app

SCENARIO = """name = "capture"
duration = "3s"
[downlink]
rate = "2Mbit"
delay = "10ms"
[[flows]]
cc = "reno"
start = "1.5s"
[record.pcap]
path = "caps/run.pcap"
"""


def record_times_s(path: Path) -> list[float]:
    """The timestamps of a nanosecond pcap's records, in seconds."""
    data = path.read_bytes()
    assert struct.unpack_from("<I", data, 0)[0] == 0xA1B23C4D
    times, at = [], 24
    while at < len(data):
        sec, nsec, incl, _ = struct.unpack_from("<IIII", data, at)
        times.append(sec + nsec / 1e9)
        at += 16 + incl
    return times


def test_a_scenario_file_captures_beside_itself_not_in_the_working_directory(tmp_path, monkeypatch):
    folder, elsewhere = tmp_path / "study", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    (folder / "s.toml").write_text(SCENARIO)
    monkeypatch.chdir(elsewhere)
    r = ccbench.run(folder / "s.toml")
    assert Path(r.meta["pcap"]["path"]) == folder / "caps" / "run.pcap"
    assert (folder / "caps" / "run.pcap").stat().st_size > 24 and not list(elsewhere.iterdir())
    assert r.meta["pcap"]["packets"] > 0 and r.meta["pcap"]["error"] is None


def test_text_captures_in_the_working_directory_or_where_asked(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ccbench.run_toml(SCENARIO)
    assert (tmp_path / "caps" / "run.pcap").exists()
    r = ccbench.run_toml(SCENARIO, capture_dir=tmp_path / "there")
    assert Path(r.meta["pcap"]["path"]) == tmp_path / "there" / "caps" / "run.pcap"
    assert (tmp_path / "there" / "caps" / "run.pcap").stat().st_size > 24


def test_ccbench_run_writes_the_capture_in_the_run_directory_and_says_where(tmp_path, monkeypatch, runner):
    (tmp_path / "s.toml").write_text(SCENARIO)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(tmp_path / "s.toml"), "--out", str(out), "--no-plots"], terminal_width=200)
    assert result.exit_code == 0, result.output
    meta = json.loads((out / "meta.json").read_text())
    assert meta["pcap"]["path"] == "caps/run.pcap"  # relative to the run directory
    assert f"Packet capture in {out / 'caps' / 'run.pcap'} ({meta['pcap']['packets']} packets" in result.output
    assert not list(work.iterdir()) and not (tmp_path / "caps").exists()


def test_timestamps_are_simulated_seconds_since_the_run_started(tmp_path):
    r = ccbench.run_toml(SCENARIO, capture_dir=tmp_path)
    times = record_times_s(tmp_path / "caps" / "run.pcap")
    assert len(times) == r.meta["pcap"]["packets"]
    # the flow starts at 1.5 s: its handshake and first data are stamped then
    assert times[0] == 1.5
    assert times == sorted(times) and 2.9 < times[-1] <= 3.0


def test_each_campaign_run_captures_in_its_own_tables_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    campaign = {
        "name": "captures",
        "repetitions": 2,
        "scenario": {
            "duration": "1s",
            "downlink": {"rate": "2Mbit", "delay": "10ms"},
            "flows": [{"cc": "reno"}],
            "record": {"pcap": {"path": "run.pcap"}},
        },
        "factors": {"flows[0].cc": ["reno", "cubic"]},
    }
    c = ccbench.campaign(campaign, out=tmp_path / "out", jobs=1, report=False)
    keys = list(c.index["key"])
    assert len(keys) == 4
    for key in keys:
        assert (tmp_path / "out" / "tables" / key / "run.pcap").stat().st_size > 24
    # Nothing beside the campaign directory, not even its lock file.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
