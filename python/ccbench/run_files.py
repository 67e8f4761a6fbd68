"""Result files: a run directory that describes itself (flent's rule: plots and
reports are built only from saved results).

Layout of a run directory:
    meta.json            schema_version, ccbench_version, seed, scenario (normalized), events, duration_s, pcap
    flows.parquet/.csv   per-flow summary with metrics
    series.parquet/.csv  sampled time series
    rtt.parquet          per-ACK RTT samples
    links.parquet/.csv   per-link counters, capacity, utilization
    link_series.parquet  sampled link state
    sources.parquet/.csv, source_series.parquet   UDP and background traffic (empty without)

Every file is written to a temporary name in the same directory and renamed
into place, so a crash never leaves a half-written file. The writer options are
pinned and no timestamps are recorded, so the same scenario and seed give
byte-identical files (the wall time of a run is therefore not saved).
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ccbench.run_result import SCHEMA_VERSION, TABLES, Result

CSV_TABLES = ("flows", "series", "links", "sources")
#: meta keys that vary from run to run and therefore stay out of the files.
VOLATILE_META = ("wall_seconds",)

PARQUET_OPTIONS = dict(
    compression="zstd",
    compression_level=3,
    use_dictionary=True,
    write_statistics=True,
    version="2.6",
    data_page_version="1.0",
)


def atomic_write_bytes(path: Path, data: bytes, fsync: bool = False) -> None:
    """Writes `data` to `path` through a temporary file in the same directory and
    a rename: readers see the old file or the new one, never half of one. With
    `fsync` the data also survives a power cut (slower: campaigns skip it)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            if fsync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def arrow_table(df: pd.DataFrame) -> pa.Table:
    """The frame as an Arrow table, column by column (much faster than
    Table.from_pandas; no pandas metadata is needed for these flat tables)."""
    return pa.table({c: pa.array(df[c].to_numpy() if df[c].dtype.kind in "biuf" else list(df[c])) for c in df.columns})


def parquet_bytes(df: pd.DataFrame) -> bytes:
    return arrow_parquet_bytes(arrow_table(df))


def arrow_parquet_bytes(table) -> bytes:
    """An Arrow table as Parquet bytes with ccbench's pinned writer options."""
    buf = io.BytesIO()
    pq.write_table(table, buf, **PARQUET_OPTIONS)
    return buf.getvalue()


def csv_bytes(df: pd.DataFrame) -> bytes:
    return df.to_csv(index=False, lineterminator="\n", float_format="%.17g").encode("utf-8")


def json_bytes(obj) -> bytes:
    return (json.dumps(obj, indent=2, sort_keys=True, allow_nan=True) + "\n").encode("utf-8")


def write_table(directory: Path, name: str, df: pd.DataFrame, csv: bool) -> None:
    atomic_write_bytes(directory / f"{name}.parquet", parquet_bytes(df))
    if csv:
        atomic_write_bytes(directory / f"{name}.csv", csv_bytes(df))


def write_result_table(directory: Path, result: Result, name: str, csv: bool) -> None:
    """One of a run's tables: the Parquet file straight from its Arrow table
    (no DataFrame is built for it), the CSV file from its DataFrame."""
    atomic_write_bytes(directory / f"{name}.parquet", arrow_parquet_bytes(result.arrow(name)))
    if csv:
        atomic_write_bytes(directory / f"{name}.csv", csv_bytes(result.frame(name)))


def save(result: Result, directory: str | Path, csv: bool = True) -> Path:
    """Writes a run directory (created if needed); returns its path. `csv=False`
    writes Parquet only (campaigns, which also write one tidy CSV)."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    for name in TABLES:
        write_result_table(d, result, name, csv=csv and name in CSV_TABLES)
    meta = {k: v for k, v in result.meta.items() if k not in VOLATILE_META}
    atomic_write_bytes(d / "meta.json", json_bytes(meta))
    return d


def load(directory: str | Path) -> Result:
    """Reads a run directory written by `save` (its tables as Arrow; each
    becomes a DataFrame when first read)."""
    d = Path(directory)
    meta = json.loads((d / "meta.json").read_text(encoding="utf-8"))
    if meta.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"{d}: schema version {meta.get('schema_version')} is not {SCHEMA_VERSION}")
    tables = {name: pq.read_table(d / f"{name}.parquet") for name in TABLES}
    return Result(meta=meta, **tables)
