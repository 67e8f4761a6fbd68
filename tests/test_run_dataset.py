"""Saved runs describe themselves: the tables of many run directories read as
one dataset (pyarrow.dataset, duckdb) say which scenario, seed and algorithm
each row is from, and each Parquet file carries the run in its metadata."""

from __future__ import annotations

import json

import ccbench
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from ccbench import run_files

PATH = 'duration = "2s"\n[downlink]\nrate = "4Mbit"\ndelay = "10ms"\nloss = { model = "bernoulli", p = 0.005 }\n'
RUNS = [("cubic", 1), ("bbr", 2), ("vegas", 3)]


@pytest.fixture(scope="module")
def saved_runs(tmp_path_factory):
    """Three runs of different algorithms (with different state variables),
    saved as `ccbench run` saves them."""
    root = tmp_path_factory.mktemp("runs")
    for cc, seed in RUNS:
        text = f'name = "path-{cc}"\n{PATH}[[flows]]\ncc = "{cc}"\ncount = 2\n'
        run_files.save(ccbench.run_toml(text, seed=seed), root / cc)
    return root


def files(root, table: str) -> list[str]:
    return [str(root / cc / f"{table}.parquet") for cc, _ in RUNS]


@pytest.mark.parametrize("table", ["flows", "links", "link_series"])
def test_tables_of_several_runs_read_as_one_dataset(saved_runs, table):
    t = ds.dataset(files(saved_runs, table), format="parquet").to_table().to_pandas()
    assert list(t.columns[:2]) == ["scenario", "seed"]
    assert sorted(t.groupby(["scenario", "seed"]).size().index) == [(f"path-{cc}", s) for cc, s in sorted(RUNS)]
    alone = [pq.read_table(f).num_rows for f in files(saved_runs, table)]
    assert len(t) == sum(alone) > 0


def test_flows_of_several_runs_group_by_algorithm(saved_runs):
    flows = ds.dataset(files(saved_runs, "flows"), format="parquet").to_table().to_pandas()
    counts = flows.groupby("cc")["flow"].count().to_dict()
    assert counts == {cc: 2 for cc, _ in RUNS}
    assert (flows["goodput_bps"] > 0).all()


@pytest.mark.parametrize("table", ["series", "cc_state"])
def test_series_and_state_of_different_algorithms_read_as_one_dataset(saved_runs, table):
    """Every run's series has the same columns whatever its algorithm (the
    algorithm's own state is in the long cc_state table), so the files read
    as one dataset as they are, with the algorithm of each row."""
    schemas = {str(pq.read_schema(f).remove_metadata()) for f in files(saved_runs, table)}
    assert len(schemas) == 1
    t = ds.dataset(files(saved_runs, table), format="parquet").to_table().to_pandas()
    assert list(t.columns[:5]) == ["scenario", "seed", "cc", "t", "flow"]
    assert set(t["cc"]) == {cc for cc, _ in RUNS}
    for cc, seed in RUNS:
        rows = t[t["cc"] == cc]
        assert set(rows["scenario"]) == {f"path-{cc}"} and set(rows["seed"]) == {seed}
        assert len(rows) == pq.read_table(saved_runs / cc / f"{table}.parquet").num_rows > 0


def test_state_of_different_algorithms_names_its_variables(saved_runs):
    state = ds.dataset(files(saved_runs, "cc_state"), format="parquet").to_table().to_pandas()
    variables = {cc: set(rows["var"].astype(str)) for cc, rows in state.groupby("cc", observed=True)}
    assert {"wmax", "k_s"} <= variables["cubic"] and {"mode", "btl_bw_bps"} <= variables["bbr"]
    assert {"diff", "base_rtt_ms"} <= variables["vegas"]
    bbr_modes = state[(state["cc"] == "bbr") & (state["var"] == "mode")]
    assert set(bbr_modes["label"].astype(str)) <= {"startup", "drain", "probe_bw", "probe_rtt"}
    assert set(state[state["var"] == "enabled"]["label"].astype(str)) <= {"reno", "vegas"}
    numbers = state[state["var"].isin(["wmax", "k_s", "btl_bw_bps", "diff"])]
    assert len(numbers) > 0 and set(numbers["label"].astype(str)) == {""}


def test_rtt_samples_name_their_algorithm(saved_runs):
    rtt = pq.read_table(saved_runs / "bbr" / "rtt.parquet").to_pandas()
    assert list(rtt.columns[:3]) == ["scenario", "seed", "cc"] and set(rtt["cc"]) == {"bbr"}


def test_every_parquet_file_carries_the_run_in_its_metadata(saved_runs):
    meta = json.loads((saved_runs / "bbr" / "meta.json").read_text())
    for name in run_files.TABLES:
        kv = pq.read_schema(saved_runs / "bbr" / f"{name}.parquet").metadata
        assert kv[b"ccbench.table"] == name.encode()
        assert kv[b"ccbench.version"].decode() == ccbench.__version__
        assert int(kv[b"ccbench.seed"]) == 2 and json.loads(kv[b"ccbench.algorithms"]) == ["bbr"]
        assert json.loads(kv[b"ccbench.scenario"]) == meta["scenario"]


def test_only_text_and_categorical_columns_are_dictionary_encoded(saved_runs):
    """Numbers are nearly all distinct, so a dictionary would only cost time and
    bytes; a table of a few rows (flows) gains nothing from compression either."""
    for name in ("series", "cc_state", "rtt", "flows"):
        meta = pq.ParquetFile(saved_runs / "bbr" / f"{name}.parquet").metadata
        schema = pq.read_schema(saved_runs / "bbr" / f"{name}.parquet")
        for i in range(meta.num_columns):
            chunk = meta.row_group(0).column(i)
            field = schema.field(chunk.path_in_schema)
            text = pa.types.is_string(field.type) or pa.types.is_dictionary(field.type)
            assert chunk.compression == ("ZSTD" if meta.num_rows >= run_files.COMPRESS_FROM_ROWS else "UNCOMPRESSED")
            if text or not meta.num_rows:
                continue
            assert not any("DICTIONARY" in e for e in chunk.encodings), (name, field.name, chunk.encodings)
        dictionary = [c for c in ("scenario", "cc", "var", "label") if c in schema.names]
        assert dictionary, name
        for c in dictionary:
            chunk = meta.row_group(0).column(schema.names.index(c))
            assert any("DICTIONARY" in e for e in chunk.encodings), (name, c, chunk.encodings)


def test_csv_tables_have_the_run_columns_too(saved_runs):
    header = (saved_runs / "vegas" / "series.csv").read_text().split("\n", 1)[0].split(",")
    assert header[:3] == ["scenario", "seed", "cc"]
    assert (saved_runs / "vegas" / "flows.csv").read_text().startswith("scenario,seed,")


def test_loading_a_run_gives_back_the_tables_of_the_run(saved_runs):
    back = run_files.load(saved_runs / "cubic")
    assert "scenario" not in back.flows and "cc" not in back.series and "cc" in back.flows
    assert back.meta["seed"] == 1


def test_a_run_saved_with_some_tables_loads_them_and_refuses_the_others(tmp_path, saved_runs):
    """A campaign's kept_tables: only those files, listed in meta.json; the
    loaded run reads them as saved and raises on the others (never empty)."""
    run = run_files.load(saved_runs / "bbr")
    run_files.save(run, tmp_path / "some", csv=False, tables=("flows", "series", "rtt"))
    assert sorted(p.name for p in (tmp_path / "some").iterdir()) == [
        "flows.parquet",
        "meta.json",
        "rtt.parquet",
        "series.parquet",
    ]
    back = run_files.load(tmp_path / "some")
    assert back.meta["tables"] == ["flows", "series", "rtt"]
    assert back.flows.equals(run.flows) and back.series.equals(run.series) and back.rtt.equals(run.rtt)
    for _ in range(2):  # still refused when read again
        with pytest.raises(LookupError, match="the links table was not saved"):
            back.arrow("links")
    assert "tables" not in json.loads((saved_runs / "bbr" / "meta.json").read_text())


def test_a_run_can_be_loaded_with_only_some_of_its_tables(saved_runs):
    full = run_files.load(saved_runs / "bbr")
    back = run_files.load(saved_runs / "bbr", tables=("series",))
    assert back.series.equals(full.series)
    with pytest.raises(LookupError, match="the flows table was not read"):
        back.arrow("flows")


def test_a_trace_scenario_keeps_its_opportunities_out_of_the_metadata(tmp_path):
    (tmp_path / "cell.down").write_text("\n".join(str(t) for t in range(1, 200)) + "\n")
    scenario = tmp_path / "s.toml"
    scenario.write_text('duration = "1s"\n[downlink]\ntrace = "cell.down"\ndelay = "10ms"\n[[flows]]\ncc = "reno"\n')
    d = run_files.save(ccbench.run(scenario), tmp_path / "run")
    in_metadata = json.loads(pq.read_schema(d / "flows.parquet").metadata[b"ccbench.scenario"])
    trace = in_metadata["downlink"]["trace"]
    assert trace["source"] == "cell.down" and "opportunities_ms" not in trace
    assert len(json.loads((d / "meta.json").read_text())["scenario"]["downlink"]["trace"]["opportunities_ms"]) == 199


def test_meta_json_writes_a_traces_opportunities_on_one_line(tmp_path):
    """A number a line made a real trace's meta.json 6 MB (1.3 MB on one line)."""
    (tmp_path / "cell.down").write_text("\n".join(str(t) for t in range(1, 2001)) + "\n")
    scenario = tmp_path / "s.toml"
    scenario.write_text('duration = "1s"\n[downlink]\ntrace = "cell.down"\ndelay = "10ms"\n[[flows]]\ncc = "reno"\n')
    r = ccbench.run(scenario)
    d = run_files.save(r, tmp_path / "run")
    text = (d / "meta.json").read_text()
    assert text.count("\n") < 200, f"{text.count(chr(10))} lines"
    assert json.loads(text)["scenario"] == json.loads(json.dumps(r.meta["scenario"]))
    assert run_files.load(d).scenario["downlink"]["trace"]["opportunities_ms"] == list(range(1, 2001))


def test_duckdb_reads_the_runs_as_one_table(saved_runs):
    duckdb = pytest.importorskip("duckdb", reason="duckdb is in the test extra: pip install '.[test]'")
    rows = duckdb.sql(
        f"select cc, count(*) as flows, min(seed) as seed from read_parquet('{saved_runs}/*/flows.parquet') "
        "group by cc order by cc"
    ).fetchall()
    assert rows == [(cc, 2, seed) for cc, seed in sorted(RUNS)]
    for table in ("series", "cc_state"):
        counts = duckdb.sql(
            f"select cc, count(*) from read_parquet('{saved_runs}/*/{table}.parquet') group by cc order by cc"
        ).fetchall()
        assert counts == [(cc, pq.read_table(saved_runs / cc / f"{table}.parquet").num_rows) for cc, _ in sorted(RUNS)]
    kv = duckdb.sql(
        f"select value from parquet_kv_metadata('{saved_runs}/bbr/flows.parquet') where key = 'ccbench.version'"
    ).fetchall()
    assert kv == [(ccbench.__version__.encode(),)]


def test_campaign_tidy_tables_carry_the_campaign(quick_campaign):
    out, _, _ = quick_campaign
    campaign_text = next(out.glob("campaign.*")).read_text()
    for name in ("flows", "runs"):
        kv = pq.read_schema(out / f"{name}.parquet").metadata
        assert kv[b"ccbench.table"] == name.encode()
        assert kv[b"ccbench.version"].decode() == ccbench.__version__
        assert kv[b"ccbench.campaign"].decode() == "every algorithm over four network conditions"
        assert kv[b"ccbench.campaign_file"].decode() == campaign_text
        assert len(kv[b"ccbench.campaign_hash"]) > 0
