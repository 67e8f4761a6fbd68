"""The per-run Python path: the binding's tables as Arrow record batches, the
Result whose DataFrames are built when first read, and an `import ccbench`
that loads no heavy library."""

import json
import subprocess
import sys

import ccbench
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from ccbench import _ccsim, run_files, run_result
from ccbench.run_result import (
    TABLES,
    Result,
    arrow_table,
    cc_state_wide,
    flow_summary,
    interval_rates_per_flow,
    signed,
)
from ccbench.scenario import load


def test_the_binding_returns_typed_arrow_record_batches(small_scenario):
    raw = _ccsim.run(json.dumps(load(small_scenario)))
    flows = pa.record_batch(raw["flows"])
    assert len(raw["flows"]) == flows.num_rows == 2
    assert flows.column("cc").to_pylist() == ["cubic", "reno"]
    assert flows.schema.field("flow").type == pa.uint32()
    assert flows.schema.field("delivered_bytes").type == pa.uint64()
    assert flows.schema.field("completion_s").type == pa.float64()
    series = pa.record_batch(raw["series"])
    assert series.num_rows > 0 and series.schema.field("t").type == pa.float64()
    # A text column without rows is still text.
    sources = pa.record_batch(raw["sources"])
    assert sources.num_rows == 0 and sources.schema.field("kind").type == pa.string()
    assert set(TABLES) <= set(raw)


def test_each_table_read_as_arrow_or_as_a_dataframe_is_the_same(small_scenario):
    r = ccbench.run(small_scenario)
    for name in TABLES:
        frame = getattr(r, name)
        assert frame is r.frame(name)  # built once
        pd.testing.assert_frame_equal(signed(r.arrow(name)).to_pandas(), frame, check_dtype=True)
    assert {"goodput_bps", "throughput_bps"} <= set(r.arrow("series").column_names)
    assert {"capacity_bps", "utilization"} <= set(r.arrow("links").column_names)


def test_dataframes_hold_signed_integers_so_differences_do_not_wrap(small_scenario):
    """The core's counters are unsigned; NumPy's unsigned arithmetic wraps
    (cwnd less in_flight read 4294967227 where it was -69). The frames read
    the same buffers as signed; the Arrow tables keep the core's types."""
    r = ccbench.run(small_scenario)
    for name in TABLES:
        for column, dtype in getattr(r, name).dtypes.items():
            assert not pd.api.types.is_unsigned_integer_dtype(dtype), (name, column, dtype)
    assert pa.types.is_unsigned_integer(r.arrow("flows").schema.field("delivered_bytes").type)
    delivered = r.flows["delivered_bytes"]
    below_most = delivered - delivered.max()
    assert below_most.tolist() == [int(d) - int(delivered.max()) for d in delivered] and below_most.min() < 0
    assert (r.series["cwnd"] - r.series["cwnd"] - 1).min() == -1


def _is_text(column_type: pa.DataType) -> bool:
    return pa.types.is_string(column_type) or pa.types.is_dictionary(column_type)


@pytest.mark.skipif(int(pd.__version__.split(".")[0]) < 3, reason="pandas 2 copies unless copy-on-write is on")
def test_the_series_frame_reads_the_simulator_buffers_in_place_and_writes_copy(small_scenario, monkeypatch):
    # A table of more rows than run_result copies (its series has fewer).
    monkeypatch.setattr(run_result, "COPIED_TABLE_ROWS", 0)
    r = ccbench.run(small_scenario)
    series, arrow = r.series, r.arrow("series")
    for name in ("t", "cwnd", "delivered_bytes", "goodput_bps"):
        assert np.shares_memory(series[name].to_numpy(), arrow.column(name).chunk(0).to_numpy()), name
    before = arrow.column("cwnd")[0].as_py()
    series.loc[0, "cwnd"] = before + 1000
    assert arrow.column("cwnd")[0].as_py() == before and series.loc[0, "cwnd"] == before + 1000


def test_reading_flows_imports_only_the_flows_and_links_tables(small_scenario):
    """The core's flows table has the RTT statistics: reading it leaves the
    rtt table (a sample per ACK) in the binding."""

    class Reads(dict):
        def __getitem__(self, name):
            self.read = [*getattr(self, "read", []), name]
            return super().__getitem__(name)

    scenario = load(small_scenario)
    raw = Reads(_ccsim.run(json.dumps(scenario)))
    r = Result.from_raw(raw, scenario, "v")
    raw.read = []
    assert r.flows["rtt_mean_ms"].notna().all()
    assert sorted(set(raw.read)) == ["flows", "links"]


def test_a_big_run_samples_its_series_less_often_by_default_and_says_so():
    many = {"duration": 2, "downlink": {"rate": "10Mbit", "delay": "5ms"}, "flows": [{"cc": "reno", "count": 600}]}
    assert load(many)["record"]["interval"] == pytest.approx(_ccsim.DEFAULT_SERIES_INTERVAL_S * 1.2)
    assert load({**many, "record": {"interval": "10ms"}})["record"]["interval"] == pytest.approx(0.01)
    assert load({**many, "duration": 1})["record"]["interval"] == pytest.approx(0.01)


def test_a_result_built_from_dicts_of_columns_equals_one_from_arrow(small_scenario):
    """The kernel mode hands Result.from_raw dicts of columns; the simulator Arrow tables."""
    scenario = load(small_scenario)
    raw = _ccsim.run(json.dumps(scenario))
    as_dicts = dict(raw)
    for name in TABLES:
        t = pa.record_batch(raw[name])
        as_dicts[name] = {
            c: t.column(c).to_pylist() if _is_text(t.schema.field(c).type) else t.column(c).to_numpy()
            for c in t.schema.names
        }
    a, b = Result.from_raw(raw, scenario, "v"), Result.from_raw(as_dicts, scenario, "v")
    for name in ("flows", "series", "rtt", "links", "link_series"):
        pd.testing.assert_frame_equal(a.frame(name), b.frame(name), check_dtype=True)


def test_the_flows_table_is_built_in_arrow_with_the_same_values_as_flow_summary(small_scenario):
    """The simulator's flows table gets its route columns in Arrow (no
    DataFrame is built for it), the same table as flow_summary's DataFrame."""
    scenario = load(small_scenario)
    raw = _ccsim.run(json.dumps(scenario))
    r = Result.from_raw(raw, scenario, "v")
    flows = r.arrow("flows")
    assert "flows" not in r._frames
    tables = {n: pa.Table.from_batches([pa.record_batch(raw[n])]) for n in ("flows", "rtt", "links")}
    cols = {n: {c: t.column(c).to_numpy() for c in t.column_names} for n, t in tables.items()}
    expected = arrow_table(flow_summary(cols["flows"], cols["rtt"], scenario, cols["links"]))
    assert flows.schema.equals(expected.schema)
    assert run_files.arrow_parquet_bytes(flows) == run_files.arrow_parquet_bytes(expected)  # bit for bit (NaN too)
    assert flows.column_names[-3:] == ["route", "ack_route", "link"]
    assert flows["route"].to_pylist() == ["downlink", "downlink"] and flows["link"].to_pylist() == ["downlink"] * 2


def test_the_links_table_of_a_simulator_run_builds_no_flows_dataframe(small_scenario):
    """The core computes the link metrics, so reading the links (as a
    campaign worker does for every run) needs no flows DataFrame."""
    scenario = load(small_scenario)
    r = Result.from_raw(_ccsim.run(json.dumps(scenario)), scenario, "v")
    links = r.arrow("links")
    assert "flows" not in r._frames
    np.testing.assert_array_equal(links["utilization"].to_numpy(), r.links["utilization"])  # NaN: the uplink


def test_interval_rates_per_flow_follow_each_flow_through_interleaved_rows():
    rng = np.random.default_rng(5)
    flow = rng.integers(0, 4, size=200).astype(np.uint32)
    t = np.arange(200) * 0.01
    counter = rng.integers(0, 1000, size=200).cumsum()
    got = interval_rates_per_flow(flow, t, counter)
    for f in range(4):
        rows = flow == f
        expected = np.full(rows.sum(), np.nan)
        expected[1:] = np.diff(counter[rows]) * 8 / np.diff(t[rows])
        np.testing.assert_allclose(got[rows], expected, rtol=1e-12)
    assert interval_rates_per_flow(np.array([], dtype=np.uint32), np.array([]), np.array([])).shape == (0,)


def test_the_wide_state_holds_each_value_until_its_next_change_even_a_nan():
    """cc_state has a row only when a variable changed: the wide layout at a
    series row takes each variable's latest row at or before it, a NaN
    value included (a change to NaN is not filled over)."""
    nan = float("nan")
    rows = [(1.0, 0, "x", 5.0, ""), (1.0, 0, "m", 0.0, "a"), (1.0, 1, "y", 7.0, "")]
    rows += [(2.0, 0, "m", 1.0, "b"), (3.0, 0, "x", nan, "")]
    t, flow, var, value, label = zip(*rows)
    long = pd.DataFrame({"t": t, "flow": np.array(flow, dtype=np.uint32), "var": var, "value": value, "label": label})
    series = pd.DataFrame(
        {"t": [1.0, 1.0, 1.0, 2.0, 2.0, 3.0, 4.0], "flow": np.array([0, 1, 2, 0, 1, 0, 0], np.uint32)}
    )
    wide = cc_state_wide(long, at=series)
    assert list(zip(wide["t"], wide["flow"])) == [(1.0, 0), (1.0, 1), (2.0, 0), (2.0, 1), (3.0, 0), (4.0, 0)]
    np.testing.assert_array_equal(wide["cc_x"], [5.0, nan, 5.0, nan, nan, nan])
    assert list(wide["cc_m"]) == ["a", "", "b", "", "b", "b"]
    np.testing.assert_array_equal(wide["cc_y"], [nan, 7.0, nan, 7.0, nan, nan])
    # Without the series: a row per (t, flow) that has a state row.
    assert list(zip(cc_state_wide(long)["t"], cc_state_wide(long)["flow"])) == [(1.0, 0), (1.0, 1), (2.0, 0), (3.0, 0)]
    assert list(cc_state_wide(long)["cc_m"]) == ["a", "", "b", "b"]


def test_the_wide_state_of_saved_runs_read_as_one_dataset_keeps_each_run_apart(tmp_path, small_scenario):
    """The saved cc_state and series of several runs read together (the
    README's many-runs dataset) have the same (t, flow) in every run: the
    wide layout mixed their values into one run's rows. It keys each row by
    its run columns too (scenario, seed, cc), and refuses tables whose runs
    those cannot tell apart."""
    import pyarrow.dataset as ds

    runs = {seed: ccbench.run(small_scenario, seed=seed) for seed in (1, 2)}
    dirs = [run_files.save(r, tmp_path / f"seed-{seed}") for seed, r in runs.items()]
    state = ds.dataset([d / "cc_state.parquet" for d in dirs]).to_table()
    series = ds.dataset([d / "series.parquet" for d in dirs]).to_table().to_pandas()
    wide = cc_state_wide(state, at=series)
    assert list(wide.columns[:5]) == ["scenario", "seed", "cc", "t", "flow"]
    for seed, r in runs.items():
        mine = wide[wide["seed"] == seed].drop(columns=["scenario", "seed", "cc"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(mine, r.state(), check_categorical=False)
    copy = run_files.save(runs[1], tmp_path / "copy")  # the same run twice: nothing tells them apart
    state = ds.dataset([dirs[0] / "cc_state.parquet", copy / "cc_state.parquet"]).to_table()
    with pytest.raises(ValueError, match="rows of more than one run"):
        cc_state_wide(state)


def test_saved_text_columns_are_text_even_without_rows(tmp_path, small_scenario):
    d = run_files.save(ccbench.run(small_scenario), tmp_path / "run")
    schema = pq.read_schema(d / "sources.parquet")
    assert schema.field("kind").type == pa.string() and schema.field("transport").type == pa.string()


def _python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_import_ccbench_loads_no_heavy_library():
    heavy = ("numpy", "pandas", "pyarrow", "matplotlib", "scipy", "ccbench.campaigns", "ccbench.emulate.runner")
    loaded = _python(f"import ccbench, sys; print([m for m in {heavy!r} if m in sys.modules])")
    assert loaded == "[]"


@pytest.mark.parametrize("first", ["import ccbench.emulate.runner", "from ccbench.emulate import host"])
def test_ccbench_emulate_stays_the_function_after_kernel_mode_is_imported(first):
    out = _python(
        f"import ccbench\n{first}\nimport ccbench.run_result, ccbench.campaigns.spec\n"
        "print(ccbench.emulate is ccbench.api.emulate, ccbench.Result is ccbench.run_result.Result,"
        " ccbench.CampaignFileError is ccbench.campaigns.spec.CampaignFileError)"
    )
    assert out == "True True True"


def test_a_name_that_is_not_a_table_is_an_error_naming_the_tables(small_scenario):
    r = ccbench.run(small_scenario)
    for name in ("nope", "series_", 5):
        with pytest.raises(KeyError, match="is not a table of a run; one of flows, series"):
            r.arrow(name)
        with pytest.raises(KeyError, match="is not a table of a run"):
            r.frame(name)
