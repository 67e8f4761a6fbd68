"""Result files: a run directory that describes itself (flent's rule: plots and
reports are built only from saved results).

Layout of a run directory:
    meta.json            schema_version, ccbench_version, seed, scenario (normalized), events, duration_s, pcap
    flows.parquet/.csv   per-flow summary with metrics
    series.parquet/.csv  sampled time series (the same columns for every algorithm)
    cc_state.parquet     the algorithms' own state where it changed, long: t, flow, var, value, label
    rtt.parquet          per-ACK RTT samples
    links.parquet/.csv   per-link counters, capacity, utilization
    link_series.parquet  sampled link state
    sources.parquet/.csv, source_series.parquet   UDP and background traffic (empty without)

A campaign may save only some of the tables (its kept_tables); meta.json then
lists those under `tables`, and reading another from the loaded run raises.

The tables describe themselves, so the files of many runs can be read as one
dataset (pyarrow.dataset, duckdb, polars) without meta.json: every table's
first columns are `scenario` (the scenario's name) and `seed`, and the tables
with a row per flow and time (series, cc_state, rtt) also name the flow's algorithm in
`cc` (flows has its own `cc`). Each Parquet file's key-value metadata holds
`ccbench.table`, `ccbench.version`, `ccbench.schema_version`, `ccbench.seed`,
`ccbench.algorithms` (JSON list, in the order of the scenario's flows) and
`ccbench.scenario` (the normalized scenario as JSON, a trace's opportunities
left out: meta.json keeps them). `load` drops these columns again: meta holds
them.

Every file is written to a temporary name in the same directory and renamed
into place, so a crash never leaves a half-written file; it gets the mode a
plain open() would give (0666 less the umask), so others can read it. The writer options are
pinned and no timestamps are recorded, so the same scenario and seed give
byte-identical files (the wall time of a run is therefore not saved).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ccbench import traces
from ccbench.file_modes import atomic_write_bytes
from ccbench.json_pieces import Pieces
from ccbench.run_result import RUN_COLUMNS, SCHEMA_VERSION, TABLES, Result, arrow_table

CSV_TABLES = ("flows", "series", "links", "sources")
#: meta keys that vary from run to run and therefore stay out of the files.
VOLATILE_META = ("wall_seconds",)

#: zstd level 1 compresses these tables within a few percent of level 3 at
#: much less CPU (a campaign writes many small files; see dictionary_columns).
PARQUET_OPTIONS = dict(
    compression="zstd",
    compression_level=1,
    write_statistics=True,
    version="2.6",
    data_page_version="1.0",
)


def parquet_bytes(df: pd.DataFrame, metadata: dict[str, str] | None = None) -> bytes:
    """The frame as Parquet; `metadata` becomes key-value metadata, each key prefixed `ccbench.`."""
    table = arrow_table(df)
    if metadata:
        table = table.replace_schema_metadata({f"ccbench.{k}": v for k, v in metadata.items()})
    return arrow_parquet_bytes(table)


def dictionary_columns(schema: pa.Schema) -> list[str]:
    """The columns Parquet dictionary-encodes: text and categorical ones,
    whose few distinct values repeat. Numbers (times, counters, rates) are
    nearly all distinct, so a dictionary only costs time and bytes there."""
    return [
        f.name
        for f in schema
        if pa.types.is_string(f.type) or pa.types.is_large_string(f.type) or pa.types.is_dictionary(f.type)
    ]


#: Tables with fewer rows are written uncompressed: a run's flows or links
#: (a row per flow or link) come out smaller and in half the time that way.
COMPRESS_FROM_ROWS = 100


def arrow_parquet_bytes(table) -> bytes:
    """An Arrow table as Parquet bytes with ccbench's pinned writer options."""
    buf = io.BytesIO()
    options = dict(PARQUET_OPTIONS)
    if table.num_rows < COMPRESS_FROM_ROWS:
        options.update(compression="none", compression_level=None)
    pq.write_table(table, buf, use_dictionary=dictionary_columns(table.schema), **options)
    return buf.getvalue()


def csv_bytes(df: pd.DataFrame) -> bytes:
    """A table as CSV. Without a float_format pandas writes each float as Python's repr: the
    shortest text that reads back as the same number (0.0200432, not 0.020043200000000001)."""
    return df.to_csv(index=False, lineterminator="\n").encode("utf-8")


#: A list of more numbers than this goes on one line of a JSON file (a trace's
#: opportunities: a number a line made a meta.json of 6 MB instead of 1.3 MB,
#: written at a tenth of the speed).
ONE_LINE_NUMBERS = 64


def json_bytes(obj) -> bytes:
    """`obj` as indented JSON with sorted keys, each long list of numbers on one line."""
    pieces = Pieces()

    def hide(value):
        if isinstance(value, traces.Opportunities):
            return pieces.stand_in(value.json)
        if isinstance(value, dict):
            return {k: hide(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            if len(value) > ONE_LINE_NUMBERS and set(map(type, value)) <= {int, float}:
                return pieces.stand_in(json.dumps(value, allow_nan=True))
            return [hide(v) for v in value]
        return value

    return (pieces.splice(json.dumps(hide(obj), indent=2, sort_keys=True, allow_nan=True)) + "\n").encode("utf-8")


def write_table(
    directory: Path, name: str, df: pd.DataFrame, csv: bool, metadata: dict[str, str] | None = None
) -> None:
    atomic_write_bytes(directory / f"{name}.parquet", parquet_bytes(df, metadata))
    if csv:
        atomic_write_bytes(directory / f"{name}.csv", csv_bytes(df))


#: Tables with a row per flow and time, which also get the flow's algorithm (`cc`).
PER_FLOW_TABLES = ("series", "cc_state", "rtt")


def _flow_algorithms(result: Result) -> dict[int, str]:
    """Flow id -> algorithm: the flows table's, and the background's `cc`
    for background transfers (which have samples but no row there)."""
    flows = result.arrow("flows")
    return dict(zip(flows["flow"].to_pylist(), flows["cc"].to_pylist()))


def run_columns(result: Result, name: str, table: pa.Table) -> dict[str, pa.Array]:
    """The columns that say which run (and, in PER_FLOW_TABLES, which
    algorithm) each row of table `name` is from, built in Arrow (no Python
    string per row)."""
    n = table.num_rows
    scenario = result.meta.get("scenario") or {}
    columns = {
        # Dictionary-encoded: the name is held (and written to Parquet) once, not once per row
        # (a 100,000-character name made a run of a few thousand rows hold gigabytes).
        "scenario": pa.DictionaryArray.from_arrays(
            pa.array(np.zeros(n, np.int32)), pa.array([str(scenario.get("name", ""))], pa.string())
        ),
        "seed": pa.repeat(pa.scalar(int(result.meta.get("seed", 0)), pa.int64()), n),
    }
    if name in PER_FLOW_TABLES and "flow" in table.column_names:
        background = str((scenario.get("background") or {}).get("cc", ""))
        algorithms = _flow_algorithms(result)
        flows = table["flow"].to_numpy()
        ids = np.unique(flows)
        names = pa.array([algorithms.get(int(i), background) for i in ids], pa.string())
        columns["cc"] = names.take(pa.array(np.searchsorted(ids, flows), pa.int64()))
    return {c: v for c, v in columns.items() if c not in table.column_names}


def without_trace_data(scenario: dict) -> dict:
    """The scenario with each link's trace opportunities left out (a trace
    keeps its `source`, the file's name): they can be megabytes."""
    return traces.with_each_trace(scenario, lambda t: {k: v for k, v in t.items() if k != "opportunities_ms"})


def parquet_metadata(result: Result, name: str) -> dict[bytes, bytes]:
    """The Parquet key-value metadata of table `name` of a run."""
    meta = result.meta
    scenario = meta.get("scenario") or {}
    algorithms = list(dict.fromkeys(f.get("cc", "") for f in scenario.get("flows", [])))
    values = {
        "table": name,
        "version": str(meta.get("ccbench_version", "")),
        "schema_version": str(meta.get("schema_version", "")),
        "seed": str(meta.get("seed", "")),
        "algorithms": json.dumps(algorithms),
        "scenario": json.dumps(without_trace_data(scenario), sort_keys=True, allow_nan=True),
    }
    return {f"ccbench.{k}".encode(): v.encode("utf-8") for k, v in values.items()}


def write_run_table(directory: Path, result: Result, name: str, csv: bool) -> None:
    """Table `name` of `result` with its run columns in front, as Parquet
    with the run's metadata, straight from its Arrow table (no DataFrame is
    built for it), and as CSV from its DataFrame."""
    table = result.arrow(name)
    front = run_columns(result, name, table)
    for i, (column, values) in enumerate(front.items()):
        table = table.add_column(i, column, values)
    table = table.replace_schema_metadata(parquet_metadata(result, name))
    atomic_write_bytes(directory / f"{name}.parquet", arrow_parquet_bytes(table))
    if csv:
        df = result.frame(name)
        front_df = pd.DataFrame({c: v.to_numpy(zero_copy_only=False) for c, v in front.items()})
        atomic_write_bytes(directory / f"{name}.csv", csv_bytes(pd.concat([front_df, df], axis=1)))


def save(result: Result, directory: str | Path, csv: bool = True, tables: tuple[str, ...] = TABLES) -> Path:
    """Writes a run directory (created if needed); returns its path. `csv=False`
    writes Parquet only (campaigns, which also write one tidy CSV). `tables`:
    the tables to write (a campaign's kept_tables); with fewer than all,
    meta.json lists them under `tables`, and `load` refuses to read the others."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    for name in tables:
        write_run_table(d, result, name, csv=csv and name in CSV_TABLES)
    meta = {k: v for k, v in result.meta.items() if k not in VOLATILE_META}
    if tuple(tables) != TABLES:
        meta["tables"] = list(tables)
    atomic_write_bytes(d / "meta.json", json_bytes(meta))
    return d


def load(directory: str | Path, tables: tuple[str, ...] | None = None) -> Result:
    """Reads a run directory written by `save`: its tables as the run made
    them (without the run columns, which meta holds), as Arrow, each becoming
    a DataFrame when first read. `tables`: read only these of the saved
    tables (a report that draws one of them from many runs); reading another
    then raises TableNotSaved, as reading a table that was not saved does."""
    d = Path(directory)
    meta = json.loads((d / "meta.json").read_text(encoding="utf-8"))
    if meta.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"{d}: schema version {meta.get('schema_version')} is not {SCHEMA_VERSION}")
    saved = meta.get("tables", TABLES)
    read = [name for name in saved if tables is None or name in tables]
    missing = {name: f"{d}: the {name} table was not saved (kept only: {', '.join(saved)})" for name in TABLES}
    missing.update({name: f"{d}: the {name} table was not read (read only: {', '.join(read)})" for name in saved})
    found = {name: _without_run_columns(pq.read_table(d / f"{name}.parquet"), name) for name in read}
    return Result(meta=meta, unsaved={k: v for k, v in missing.items() if k not in read}, **found)


def _without_run_columns(table: pa.Table, name: str) -> pa.Table:
    added = RUN_COLUMNS + (("cc",) if name in PER_FLOW_TABLES else ())
    return table.drop_columns([c for c in added if c in table.column_names])
