"""A condition with no randomness runs once (ccbench.campaigns.repeats): its
later repetitions are copies of its first run, which are exactly what
simulating them gives; a condition with a random part runs every time."""

from __future__ import annotations

import json
import sqlite3

import ccbench
import pandas as pd
from ccbench.campaigns import repeats, spec, storage
from ccbench.campaigns import runner as campaign_runner

#: One path without randomness (no loss) and one with random loss, 3 repetitions each.
MIXED = {
    "name": "mixed",
    "repetitions": 3,
    "seed": 11,
    "scenario": {
        "duration": "2s",
        "downlink": {"rate": "10Mbit", "delay": "15ms", "loss": {"model": "bernoulli", "p": 0.0}},
        "flows": [{"cc": "cubic"}, {"cc": "reno", "start": "0.5s"}],
    },
    "factors": {"downlink.loss.p": [0.0, 0.01]},
}


def _index(directory) -> pd.DataFrame:
    with storage.Index(directory) as idx:
        return idx.frame()


def test_the_repetitions_of_a_condition_that_drew_nothing_are_copies_and_equal_simulating_them(tmp_path):
    done = campaign_runner.run(MIXED, tmp_path / "c", jobs=1)
    assert (done.total, done.executed, done.copied) == (6, 4, 2)
    index = _index(tmp_path / "c")
    clean = index[[json.loads(v)["downlink.loss.p"] == 0.0 for v in index["levels"]]].sort_values("rep")
    lossy = index[~index.index.isin(clean.index)]
    first = clean.iloc[0]
    assert first["random_draws"] == 0 and first["worker"] != repeats.COPY_WORKER.format(key=first["key"])
    assert list(clean["worker"].iloc[1:]) == [repeats.COPY_WORKER.format(key=first["key"])] * 2
    assert set(clean["result_hash"]) == {first["result_hash"]} and len(set(clean["seed"])) == 3
    assert (lossy["random_draws"] > 0).all() and not lossy["worker"].str.startswith("copy of").any()

    # What a copy stands for: simulating that repetition with its own seed gives the same rows.
    data = ccbench.load(tmp_path / "c")
    campaign = spec.parse(MIXED)
    for run in campaign.runs:
        if run.key not in set(clean["key"].iloc[1:]):
            continue
        simulated = ccbench.run(run.scenario, seed=run.seed).flows.reset_index(drop=True)
        copied = data.flows[data.flows["run"] == run.key].reset_index(drop=True)[simulated.columns]
        pd.testing.assert_frame_equal(copied, simulated, check_dtype=False)
        assert int(data.runs.loc[data.runs["run"] == run.key, "seed"].iloc[0]) == run.seed


def test_a_resumed_campaign_copies_the_repetitions_left_without_running_them(tmp_path):
    out = tmp_path / "c"
    campaign_runner.run(MIXED, out, jobs=1)
    before = ccbench.load(out).flows
    with sqlite3.connect(out / storage.INDEX) as db:  # as if killed after the first repetitions
        db.execute("UPDATE runs SET status='pending', result_hash=NULL, random_draws=NULL WHERE rep > 0")
    again = campaign_runner.run(MIXED, out, jobs=1)
    assert (again.skipped, again.executed, again.copied) == (2, 2, 2)
    pd.testing.assert_frame_equal(ccbench.load(out).flows, before)


def test_an_index_written_before_the_count_gets_its_column_and_runs_every_condition_again_once(tmp_path):
    out = tmp_path / "c"
    campaign_runner.run(MIXED, out, jobs=1)
    with sqlite3.connect(out / storage.INDEX) as db:
        db.execute("ALTER TABLE runs DROP COLUMN random_draws")
        db.execute("UPDATE runs SET status='pending' WHERE rep = 2")
    again = campaign_runner.run(MIXED, out, jobs=1)
    # The first runs' counts are unknown (an older index): their repetitions run.
    assert (again.executed, again.copied) == (2, 0)
    assert "random_draws" in _index(out).columns


def test_every_run_is_simulated_when_every_runs_tables_are_kept(tmp_path):
    done = campaign_runner.run({**MIXED, "keep_tables": "all"}, tmp_path / "c", jobs=1)
    assert (done.executed, done.copied) == (6, 0)


def test_runs_that_capture_packets_run_every_repetition(tmp_path):
    scenario = {**MIXED["scenario"], "record": {"pcap": {"path": "run.pcap"}}}
    done = campaign_runner.run({**MIXED, "scenario": scenario}, tmp_path / "c", jobs=1)
    assert (done.executed, done.copied) == (6, 0)


def test_a_first_run_file_that_is_not_the_indexed_one_is_not_copied(tmp_path):
    out = tmp_path / "c"
    out.mkdir()
    (out / "runs").mkdir()
    storage.run_file(out, "a").write_bytes(b"the first run")
    assert repeats.copy(out, "b", "a", "not its hash") is None
    assert not storage.run_file(out, "b").exists()
    from ccbench.campaigns import integrity

    copied = repeats.copy(out, "b", "a", integrity.digest(b"the first run"))
    assert copied["status"] == "done" and storage.run_file(out, "b").read_bytes() == b"the first run"


def test_runs_whose_random_levels_differ_are_not_one_condition():
    campaign = spec.parse(
        {
            **MIXED,
            "factors": {"downlink.loss.p": [0.0]},
            "random": {"flows[0].access_delay": {"min": 1, "max": 3, "unit": "ms"}},
        }
    )
    firsts = repeats.first_runs(campaign.runs)
    assert len(set(firsts.values())) == len(campaign.runs) == 3


def test_each_condition_has_one_first_run_its_lowest_repetition():
    campaign = spec.parse(MIXED)
    firsts = repeats.first_runs(campaign.runs)
    by_key = {r.key: r for r in campaign.runs}
    assert len(set(firsts.values())) == 2
    assert all(by_key[f].rep == 0 for f in firsts.values())
    assert all(by_key[k].condition_hash == by_key[f].condition_hash for k, f in firsts.items())


def test_the_report_says_how_many_runs_are_copies(tmp_path):
    from ccbench.campaigns import report

    campaign_runner.run(MIXED, tmp_path / "c", jobs=1)
    design = report.design_html(storage.load(tmp_path / "c"))
    assert "6 runs planned, 6 done, 0 failed (2 of them copies of their condition's first run" in design
    assert repeats.is_copy(repeats.COPY_WORKER.format(key="ab12")) and not repeats.is_copy("host:123")
    assert not repeats.is_copy(None)
