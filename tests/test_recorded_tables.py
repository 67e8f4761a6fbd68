"""A run that records fewer tables (`ccbench.run(..., tables=...)`) is the
same run: its summaries are identical to a run recording everything, and
what it did not record says so when read."""

import json

import ccbench
import pandas as pd
import pytest
from ccbench import _ccsim
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
