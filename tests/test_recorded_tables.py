"""A run that records fewer tables (`ccbench.run(..., tables=...)`, and a
campaign run whose tables are not kept) is the same run: its summaries are
identical to a run recording everything, and what it did not record says so
when read."""

import hashlib
import json
import shutil

import ccbench
import pandas as pd
import pytest
from ccbench import _ccsim
from ccbench.campaigns import executors, storage
from ccbench.campaigns.spec import parse
from ccbench.run_result import TABLES, TableNotSaved
from ccbench.scenario import load

SUMMARIES = ("flows", "links", "sources")

#: A lossy ACK path (SACK blocks lost on the uplink), background traffic and
#: an ARQ link with outages: every sampler has something to record.
BUSY = {
    "name": "busy",
    "duration": "8s",
    "seed": 9,
    "downlink": {
        "rate": "2Mbit",
        "delay": "40ms",
        "queue": {"size": "30pkt"},
        "loss": {"model": "bernoulli", "p": 0.05},
        "arq": {"max_retries": 3, "retry_delay": "20ms", "in_order": True},
        "outages": [{"start": "3s", "duration": "0.5s"}],
    },
    "uplink": {"rate": "1Mbit", "delay": "40ms", "loss": {"model": "bernoulli", "p": 0.02}},
    "flows": [{"cc": "cubic"}, {"cc": "westwood+", "access_delay": "2ms"}],
    "udp": [{"rate": "200kbit", "start": "1s"}],
}


@pytest.mark.parametrize("tables", [[], ["series"], ["rtt", "link_series"], ["cc_state", "source_series"]])
def test_a_run_recording_fewer_tables_has_the_same_summaries_and_recorded_tables(tables):
    full = ccbench.run(BUSY)
    part = ccbench.run(BUSY, tables=tables)
    recorded = (
        set(SUMMARIES) | set(tables) | ({"series", "cc_state"} if {"series", "cc_state"} & set(tables) else set())
    )
    assert all(len(full.frame(name)) for name in TABLES), "the full run has rows in every table"
    for name in TABLES:
        if name in recorded:
            pd.testing.assert_frame_equal(part.frame(name), full.frame(name))
        else:
            with pytest.raises(TableNotSaved, match=f"did not record the {name} table"):
                part.frame(name)
    assert part.meta["events"] == full.meta["events"]


def test_an_unknown_table_is_refused_naming_it_and_the_tables_there_are():
    with pytest.raises(ValueError, match=r'unknown table "seris"; the tables: flows, series, cc_state, rtt'):
        ccbench.run(BUSY, tables=["seris"])
    with pytest.raises(TypeError, match="a list of table names"):
        ccbench.run(BUSY, tables="series")


def test_the_binding_returns_only_the_recorded_tables():
    raw = _ccsim.run(json.dumps(load(BUSY)), tables=["rtt"])
    assert [name for name in TABLES if name in raw] == ["flows", "rtt", "links", "sources"]


def test_a_campaign_records_only_the_kept_tables_and_its_runs_are_the_same(tmp_path, monkeypatch):
    """The worker asks the core for the kept tables only; the run file it
    writes is the same bytes as when everything was recorded."""
    campaign = parse(
        {
            "name": "kept",
            "repetitions": 2,
            "keep_tables": "first",
            "kept_tables": ["flows", "series"],
            "scenario": BUSY,
            "factors": {"flows[*].cc": ["cubic", "bbr"]},
        }
    )
    jobs = {
        r.key: executors.Job(r.key, r.scenario_json, "", campaign.kept_tables if r.rep == 0 else ())
        for r in campaign.runs
    }
    run = _ccsim.run
    asked = {}

    def spy(json_text, capture_dir=None, progress=None, tables=None, traces=None):
        asked[json.loads(json_text)["seed"], json.loads(json_text)["flows"][0]["cc"]] = tables
        return run(json_text, capture_dir=capture_dir, progress=progress, tables=tables, traces=traces)

    def everything(json_text, capture_dir=None, progress=None, tables=None, traces=None):
        return run(json_text, capture_dir=capture_dir, progress=progress, traces=traces)

    hashes = {}
    for name, binding in (("kept", spy), ("everything", everything)):
        out = tmp_path / name
        storage.prepare(out, campaign, False, _ccsim.__version__).close()
        monkeypatch.setattr(_ccsim, "run", binding)
        records = [
            executors.execute(executors.Job(j.key, j.scenario_json, str(out), j.keep_tables)) for j in jobs.values()
        ]
        assert all(r["status"] == "done" for r in records), records
        hashes[name] = {r["key"]: r["result_hash"] for r in records}
        files = {key: storage.run_file(out, key).read_bytes() for key in jobs}
        assert {k: hashlib.blake2b(v, digest_size=16).hexdigest() for k, v in files.items()} == hashes[name]
        shutil.rmtree(out)
    assert hashes["kept"] == hashes["everything"]
    # Repetition 0 kept (flows and series: the series recorded), repetition 1 nothing recorded.
    assert sorted(asked.values(), key=len) == [[], [], ["flows", "series"], ["flows", "series"]]
