"""`trace = "FILE"` in a scenario: the front end reads the Mahimahi file and
hands the simulator its data; a bad file is a scenario error naming the field."""

import copy
import json
import pickle
import re

import ccbench
import pyarrow as pa
import pytest
from ccbench import scenario, traces
from ccbench.campaigns import spec
from ccbench.cli import app
from hypothesis import given
from hypothesis import strategies as st

SCENARIO = """
duration = "3s"
[downlink]
trace = "{trace}"
delay = "10ms"
[uplink]
rate = "10Mbit"
delay = "10ms"
[[flows]]
cc = "cubic"
"""


def test_trace_file_next_to_the_scenario(tmp_path):
    (tmp_path / "one.trace").write_text("1\n")  # one 1504-byte opportunity per ms: 12.032 Mbit/s
    f = tmp_path / "s.toml"
    f.write_text(SCENARIO.format(trace="one.trace"))
    r = ccbench.run(f)
    down = r.links.set_index("link").loc["downlink"]
    assert down["rate_bps"] == pytest.approx(12.032e6)
    assert r.flows["goodput_bps"].iloc[0] <= down["capacity_bps"]
    assert r.scenario["downlink"]["trace"]["opportunities_ms"] == [1]


def test_missing_trace_file_is_a_scenario_error(tmp_path, runner):
    f = tmp_path / "s.toml"
    f.write_text(SCENARIO.format(trace="nope.trace"))
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(f), "--out", str(out)])
    assert result.exit_code == 2
    assert "downlink.trace" in result.stderr and "nope.trace" in result.stderr
    assert not out.exists()


def test_crlf_and_mixed_line_ends_read_as_the_same_trace(tmp_path):
    """A trace saved on Windows (CRLF), or edited there (mixed), is the same
    trace: same opportunities, same run, a utilization that stays below 1."""
    results = []
    for name, data in [("lf", b"1\n2\n3\n"), ("crlf", b"1\r\n2\r\n3\r\n"), ("mixed", b"1\r\n2\r\n3\n")]:
        (tmp_path / f"{name}.trace").write_bytes(data)
        f = tmp_path / f"{name}.toml"
        f.write_text(SCENARIO.format(trace=f"{name}.trace"))
        r = ccbench.run(f)
        assert r.scenario["downlink"]["trace"]["opportunities_ms"] == [1, 2, 3], name
        results.append(r.links[["link", "rate_bps", "utilization"]])
        assert (r.links["utilization"].dropna() <= 1.0).all(), (name, r.links)  # (NaN: the ACK-only uplink)
    for other in results[1:]:
        assert other.equals(results[0])


def test_a_campaigns_runs_share_one_copy_of_a_trace(tmp_path):
    """Each run's scenario holds the trace as read once, not a copy of its
    own: a real trace has hundreds of thousands of lines, and copying them
    run by run took most of a trace campaign's time and memory."""
    (tmp_path / "cell.down").write_text("\n".join(str(t) for t in range(1, 3001)) + "\n")
    (tmp_path / "base.toml").write_text(SCENARIO.format(trace="cell.down"))
    (tmp_path / "c.toml").write_text(
        'base = "base.toml"\nrepetitions = 3\n[factors]\n"flows[0].cc" = ["reno", "cubic"]\n'
        '[random]\n"flows[*].access_delay" = { min = 0, max = 2, step = 0.1, unit = "ms" }\n'
    )
    runs = spec.parse(tmp_path / "c.toml").runs
    shared = runs[0].scenario["downlink"]["trace"]["opportunities_ms"]
    assert len(runs) == 6 and shared == list(range(1, 3001))
    assert all(r.scenario["downlink"]["trace"]["opportunities_ms"] is shared for r in runs)
    # The text is what json.dumps made of the plain scenario before.
    plain = json.loads(json.dumps(runs[0].scenario))
    assert runs[0].scenario_json == json.dumps(plain, sort_keys=True)


def _trace_campaign(tmp_path, last: int = 3000):
    (tmp_path / "cell.down").write_text("\n".join(str(t) for t in range(1, last + 1)) + "\n")
    (tmp_path / "base.toml").write_text(SCENARIO.format(trace="cell.down").replace('"3s"', '"0.2s"'))
    (tmp_path / "c.toml").write_text(
        'base = "base.toml"\nrepetitions = 2\n[factors]\n"flows[0].cc" = ["reno", "cubic"]\n'
    )
    return tmp_path / "c.toml"


def test_a_runs_scenario_hash_takes_the_traces_digest_and_changes_with_the_trace(tmp_path, monkeypatch):
    """A run's scenario hash (what tells a resumed campaign the run is
    unchanged) hashes the trace's digest, computed once per campaign, in
    place of its text: a measured trace is megabytes, and hashing it for
    every run was most of a trace campaign's start. One opportunity changed
    still changes every run's hash."""
    before = [r.scenario_hash for r in spec.parse(_trace_campaign(tmp_path)).runs]
    assert len(set(before)) == 4
    again = spec.parse(_trace_campaign(tmp_path)).runs
    monkeypatch.setattr(spec.Run, "scenario_json", property(lambda run: pytest.fail("the hash built the run's text")))
    assert [r.scenario_hash for r in again] == before
    changed = [r.scenario_hash for r in spec.parse(_trace_campaign(tmp_path, last=3001)).runs]
    assert not set(changed) & set(before)


def test_a_trace_campaign_hashed_as_before_resumes_without_running_again(tmp_path):
    """A campaign directory made before 4 Dec 2026 holds each run's hash of
    its whole text, trace included: resumed, its finished runs are kept
    (and their hashes rewritten in the new form); a changed trace runs them again."""
    import sqlite3

    from ccbench.campaigns import runner as campaign_runner

    out = tmp_path / "out"
    runs = spec.parse(_trace_campaign(tmp_path)).runs
    first = campaign_runner.run(_trace_campaign(tmp_path), out, jobs=1)
    assert (first.executed, first.copied) == (2, 2)  # a trace link draws nothing: repetitions are copies
    with sqlite3.connect(out / "index.sqlite") as db:
        for r in runs:
            assert r.legacy_scenario_hash != r.scenario_hash
            db.execute("UPDATE runs SET scenario_hash=? WHERE key=?", (r.legacy_scenario_hash, r.key))
    resumed = campaign_runner.run(_trace_campaign(tmp_path), out, jobs=1)
    assert (resumed.executed, resumed.skipped) == (0, 4)
    with sqlite3.connect(out / "index.sqlite") as db:
        assert dict(db.execute("SELECT key, scenario_hash FROM runs")) == {r.key: r.scenario_hash for r in runs}
    changed = campaign_runner.run(_trace_campaign(tmp_path, last=3001), out, jobs=1)
    assert (changed.executed, changed.copied) == (2, 2)


def test_a_run_hands_the_core_each_trace_read_once_and_runs_as_with_the_trace_written_out(tmp_path):
    """scenario.text_for_core leaves the traces out of the run's text and
    hands them over read once per process (Opportunities.core): a campaign
    worker no longer has the core read a measured trace's numbers for every
    run. The run is the same as with the numbers written out."""
    from ccbench import _ccsim

    runs = spec.parse(_trace_campaign(tmp_path)).runs
    for r in runs[:2]:
        text, shared = scenario.text_for_core(r.scenario)
        assert len(text) < 2000 < len(r.scenario_json) and '"opportunities_ms": "shared:0"' in text
        assert len(shared) == 1 and shared[0] is r.scenario["downlink"]["trace"]["opportunities_ms"]
        by_text = _ccsim.run(r.scenario_json, tables=[])
        handed = _ccsim.run(text, tables=[], traces=[o.core for o in shared])
        for table in ("flows", "links"):  # (as pandas frames, in which NaN equals NaN)
            assert pa.table(handed[table]).to_pandas().equals(pa.table(by_text[table]).to_pandas()), table
    assert runs[0].scenario["downlink"]["trace"]["opportunities_ms"].core is shared[0].core
    with pytest.raises(_ccsim.ScenarioError, match="opportunities_ms"):
        _ccsim.run(text, tables=[])


def test_a_batch_of_runs_carries_each_trace_once_and_runs_as_the_scenario_does(tmp_path):
    """A campaign sends a worker each batch's traces once (their JSON text),
    not once in every run's text: a measured trace is megabytes."""
    from ccbench.campaigns import executors, storage

    runs = spec.parse(_trace_campaign(tmp_path)).runs
    batch = executors.Batch.of(runs, tmp_path, lambda r: ())
    assert len(batch.traces) == 1 and all(len(j.scenario_json) < 2000 for j in batch.jobs)
    sent = pickle.dumps(batch)
    assert len(sent) < len(batch.traces[0]) + 10_000
    (tmp_path / "runs").mkdir()
    records = executors.execute_batch(pickle.loads(sent))
    assert [r["status"] for r in records] == ["done"] * len(runs), records
    hashes = {rec["key"]: rec["result_hash"] for rec in records}
    for r in runs:
        direct = ccbench.run(r.scenario, tables=[]).flows["delivered_bytes"].tolist()
        assert storage.read_run(tmp_path, r.key, hashes[r.key])["delivered_bytes"].to_pylist() == direct


def test_checking_a_scenario_hands_the_core_its_traces_instead_of_their_text(tmp_path, monkeypatch):
    """scenario.load has the core check a scenario with each trace handed
    over (text_for_core) and given back as its stand-in: a campaign checks a
    scenario per combination of levels, and reading and writing a measured
    trace's numbers took about 16 ms of each. The scenario is the same."""
    from ccbench import _ccsim

    (tmp_path / "cell.down").write_text("\n".join(str(t) for t in range(1, 3001)) + "\n")
    given = _dict(tmp_path / "cell.down")
    validate, texts = _ccsim.validate, []

    def spy(text, traces=None):
        texts.append(text)
        return validate(text, traces=traces)

    monkeypatch.setattr(_ccsim, "validate", spy)
    loaded = scenario.load(given)
    assert len(texts) == 1 and len(texts[0]) < 1000 and '"shared:0"' in texts[0]
    shared = loaded["downlink"]["trace"]["opportunities_ms"]
    assert isinstance(shared, traces.Opportunities) and shared == list(range(1, 3001))
    monkeypatch.setattr(_ccsim, "validate", validate)
    written_out = json.loads(validate(json.dumps(json.loads(json.dumps(loaded)))))
    assert loaded == written_out


def test_a_trace_the_core_cannot_hold_is_written_out_for_the_core_to_name_the_entry():
    for numbers, entry in (([1, -2, 3], "[1]"), ([1, 2**64], "[1]")):
        given = {
            "duration": 1,
            "downlink": {"trace": {"opportunities_ms": numbers}, "delay": 0.01},
            "flows": [{"cc": "reno"}],
        }
        with pytest.raises(scenario.ScenarioFileError) as e:
            scenario.load(given)
        assert e.value.path == f"downlink.trace.opportunities_ms{entry}", e.value


def test_opportunities_given_as_a_stand_in_string_are_an_error_not_another_trace(tmp_path):
    """The core reads "shared:N" as the N-th trace handed over with the
    scenario: a scenario that gives such a string itself, beside a real
    trace, is refused, not run over that trace."""
    (tmp_path / "cell.down").write_text("1\n2\n")
    given = _dict(tmp_path / "cell.down")
    given["uplink"] = {"trace": {"opportunities_ms": "shared:0"}, "delay": "10ms"}
    with pytest.raises(scenario.ScenarioFileError) as e:
        scenario.load(given)
    assert e.value.path == "uplink.trace.opportunities_ms", e.value


def test_a_trace_file_that_changes_is_read_again_however_soon(tmp_path):
    # The same size, within the file system's timestamp granularity: what is
    # remembered is the text, not the file's size or time.
    f = tmp_path / "cell.down"
    f.write_text("1\n")
    assert scenario.load(_dict(f))["downlink"]["trace"]["opportunities_ms"] == [1]
    f.write_text("2\n")
    assert scenario.load(_dict(f))["downlink"]["trace"]["opportunities_ms"] == [2]


def _dict(trace) -> dict:
    return {"duration": 1, "downlink": {"trace": str(trace), "delay": "10ms"}, "flows": [{"cc": "reno"}]}


def test_opportunities_compare_as_the_list_they_stand_for_and_are_never_copied():
    o = traces.Opportunities([1, 1, 2])
    assert o == [1, 1, 2] and [1, 1, 2] == o and o != [1, 2] and not (o != [1, 1, 2])
    assert copy.deepcopy({"t": o})["t"] is o and copy.copy(o) is o
    assert pickle.loads(pickle.dumps(o)) == o and isinstance(pickle.loads(pickle.dumps(o)), traces.Opportunities)
    for change in (lambda: o.append(3), lambda: o.__setitem__(0, 5), lambda: o.sort(), lambda: o.__iadd__([1])):
        with pytest.raises(TypeError, match="shared"):
            change()
    assert o == [1, 1, 2] and o.json == "[1, 1, 2]"
    assert len(o.core) == 3 and "core" not in vars(pickle.loads(pickle.dumps(o)))


def test_a_scenario_with_shared_traces_reads_and_writes_as_plain_json():
    """scenario.dumps splices each trace's text in; dumps_sharing writes each
    trace once as a stand-in, which loads_sharing gives back as the same
    Opportunities (a string elsewhere that looks like one stays a string)."""
    down, other = traces.Opportunities([1, 1, 2]), traces.Opportunities([1, 2])
    given = {
        "duration": 1,
        "downlink": {"trace": {"opportunities_ms": down, "source": "d"}, "delay": 0.01},
        "uplink": {"trace": {"opportunities_ms": other}, "delay": 0.01},
        "links": [{"name": "again", "trace": {"opportunities_ms": down}}],
        "flows": [{"cc": "reno", "name": "shared:0"}],
    }
    plain = json.loads(json.dumps(given))
    assert json.loads(scenario.dumps(given)) == plain
    assert json.loads(scenario.dumps(given, sort_keys=True)) == plain
    shared = [other]
    text = scenario.dumps_sharing(given, shared)
    assert shared == [other, down] and shared[0] is other and shared[1] is down and "[1, 1, 2]" not in text
    back = scenario.loads_sharing(text, shared)
    assert back == plain
    assert (
        back["downlink"]["trace"]["opportunities_ms"] is down and back["links"][0]["trace"]["opportunities_ms"] is down
    )
    assert back["uplink"]["trace"]["opportunities_ms"] is other
    assert back["flows"][0]["name"] == "shared:0"


def test_a_worker_decodes_each_trace_of_its_batches_once():
    """A campaign's worker gets each batch's traces as text: each is decoded
    the first time and shared with every later run's result."""
    text = traces.Opportunities([5, 7]).json
    first, again = scenario.decoded_trace(text), scenario.decoded_trace("".join(list(text)))
    assert first == [5, 7] and again is first and isinstance(first, traces.Opportunities)


class _Unwalked(traces.Opportunities):
    """Opportunities, encoded to JSON already, that fail a walk over their numbers."""

    def __init__(self, numbers: traces.Opportunities):
        super().__init__(numbers)
        self.__dict__["json"] = numbers.json

    def __iter__(self):
        raise AssertionError("a trace's numbers were walked one by one")


def test_a_scenario_given_back_as_a_dict_keeps_its_trace_whole(tmp_path):
    """A scenario `load` returned, given to `load` or `ccbench.run` again (a
    notebook's loop over seeds), shares its trace; one read back from JSON (a
    run's meta.json) holds its plain numbers as one Opportunities. Neither is
    walked number by number: that took 0.8 s of each run of a 195,000-line trace."""
    (tmp_path / "cell.down").write_text("\n".join(str(t) for t in range(1, 3001)) + "\n")
    loaded = scenario.load(_dict(tmp_path / "cell.down"))
    shared = loaded["downlink"]["trace"]["opportunities_ms"]
    assert scenario.load(loaded)["downlink"]["trace"]["opportunities_ms"] is shared
    assert ccbench.run(loaded, tables=[]).scenario["downlink"]["trace"]["opportunities_ms"] is shared
    read_back = scenario.load(json.loads(json.dumps(loaded)))["downlink"]["trace"]["opportunities_ms"]
    assert isinstance(read_back, traces.Opportunities) and read_back == shared
    unwalked = {**loaded, "downlink": {**loaded["downlink"], "trace": {"opportunities_ms": _Unwalked(shared)}}}
    assert scenario.load(unwalked)["downlink"]["trace"]["opportunities_ms"] == shared


@pytest.mark.parametrize(
    "numbers, words",
    [([1, "2", 3], "downlink.trace.opportunities_ms[1]"), ([1, True, 3], "opportunities_ms"), ([], "opportunities_ms")],
)
def test_a_trace_given_as_a_list_is_checked_as_any_value(numbers, words):
    trace = {"opportunities_ms": numbers}
    given = {"duration": 1, "downlink": {"trace": trace, "delay": 0.01}, "flows": [{"cc": "reno"}]}
    with pytest.raises(scenario.ScenarioFileError, match=re.escape(words)):
        scenario.load(given)


JSON_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8))
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)),
    max_leaves=12,
)
POOL = [traces.Opportunities([1]), traces.Opportunities([1, 1, 5]), traces.Opportunities(list(range(1, 70)))]
TRACED_LINK = st.builds(
    lambda o, other: {**other, "trace": {"opportunities_ms": o, "source": "x"}},
    st.sampled_from(POOL),
    st.dictionaries(st.sampled_from(["name", "delay", "rate"]), JSON_VALUES, max_size=2),
)
LINK = st.one_of(TRACED_LINK, st.dictionaries(st.text(max_size=4), JSON_VALUES, max_size=3))


@given(
    down=LINK,
    up=st.one_of(st.none(), LINK),
    links=st.lists(LINK, max_size=3),
    rest=st.dictionaries(st.sampled_from(["flows", "name", "seed", "x"]), JSON_VALUES, max_size=3),
    known=st.lists(st.sampled_from(POOL), max_size=2, unique_by=id),
)
def test_a_scenario_written_with_stand_ins_reads_back_equal_sharing_each_trace(down, up, links, rest, known):
    """Whatever else a scenario holds (strings such as "shared:0" too), it
    reads back equal, each trace the very Opportunities it held, and each
    trace travels once (hypothesis)."""
    given_ = {**rest, "downlink": down, "uplink": up, "links": links}
    held = [link["trace"]["opportunities_ms"] for link in [down, up, *links] if link and "trace" in link]
    shared = list(known)
    back = scenario.loads_sharing(scenario.dumps_sharing(given_, shared), shared)
    assert back == json.loads(json.dumps(given_))
    back_held = [
        link["trace"]["opportunities_ms"]
        for link in [back["downlink"], back["uplink"], *back["links"]]
        if link and "trace" in link
    ]
    assert all(a is b for a, b in zip(back_held, held, strict=True))
    assert shared[: len(known)] == known and len({id(o) for o in shared}) == len(shared)
    assert {id(o) for o in shared} == {id(o) for o in known} | {id(o) for o in held}
