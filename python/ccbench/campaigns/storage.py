"""A campaign directory: a SQLite run index (WAL), per-run Arrow files
written atomically, and the tidy tables assembled from them.

Layout:
    index.sqlite          meta (campaign text and hash, design, ccbench version) and one row per run:
                          key, position, rep, seed, levels (JSON), scenario_hash, status
                          (pending, running, done, failed), attempts, completions, started_at,
                          finished_at, wall_s, worker, result_hash, error
    campaign.toml         the campaign file as given (campaign.json for a dict); base = "FILE" reads base.toml
    base.toml             a copy of the base scenario file (base = "FILE"), part of the directory's identity
    runs/KEY.arrow        one row per flow of run KEY, an Arrow IPC file (written by the worker: temporary
                          file + rename); a directory of ccbench before 2 Dec 2026 has runs/KEY.parquet, read alike
    tables/KEY/           full tables of the run (series, rtt, links, ...) when kept (keep_tables, kept_tables)
    flows.parquet/.csv    tidy: one row per flow per finished run, every factor a column, plus rep and seed
    runs.parquet/.csv     tidy: one row per finished run
    report.html, recommendations.json, plots/   written by `ccbench report`
    ../.NAME.lock         beside the directory while a campaign runs in it (ccbench.directory_lock)

A run is done once the index says so; its file was renamed into place
before. A run found 'running' when a campaign starts was interrupted and runs
again; a finished run never does. The tidy tables are written when a campaign
completes; until then (interrupted, or still running in another process) `load`
assembles the finished runs from their files, writing nothing and taking no
lock. Query the index with any SQLite client:
    sqlite3 DIR/index.sqlite "select status, count(*) from runs group by status"
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ccbench import directory_lock, limits
from ccbench.campaigns import integrity
from ccbench.campaigns.integrity import CampaignDirectoryError
from ccbench.campaigns.spec import QUICK_NOTE, SAVED_BASE, Campaign, canonical_json, level_positions, text_hash
from ccbench.run_result import signed

INDEX = "index.sqlite"
#: Layout version of a campaign directory.
SCHEMA_VERSION = 2
STATUSES = ("pending", "running", "done", "failed")
#: The tables of a kept run the campaign report reads (its time series of repetition 0): a
#: campaign that keeps only these (its kept_tables, as compare and recommend do) rebuilds the
#: same report. Here, not in the report's module, so a campaign names them without importing
#: the report's plotting (runner.REPORT_MODULES imports it while the workers run).
RUN_TABLES_READ = ("flows", "series", "rtt")
#: The statuses of a run a campaign has yet to finish: while one is left, the campaign is partial.
UNFINISHED = ("pending", "running")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    key TEXT PRIMARY KEY,
    position INTEGER NOT NULL,
    rep INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    levels TEXT NOT NULL,
    scenario_hash TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'done', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    completions INTEGER NOT NULL DEFAULT 0,
    started_at REAL,
    finished_at REAL,
    wall_s REAL,
    worker TEXT,
    result_hash TEXT,
    error TEXT,
    random_draws INTEGER
);
CREATE INDEX IF NOT EXISTS runs_status ON runs (status);
"""


def run_file(directory: Path, key: str) -> Path:
    """Where run KEY's rows are written: an Arrow IPC file. A run's file is
    one small table (a row per flow) that is written once and read once, by
    the assembly of the tidy tables: Arrow's file costs a few microseconds
    to write where Parquet's fixed cost was about 2 ms, most of a short
    run's time in a campaign worker. The tidy tables stay Parquet and CSV."""
    return Path(directory) / "runs" / f"{key}.arrow"


#: The run files of directories written before run_file's Arrow files (still read, and removed alike).
LEGACY_RUN_SUFFIX = ".parquet"


def arrow_file_bytes(table: pa.Table) -> bytes:
    """A table as the bytes of an Arrow IPC file: what a worker writes to
    run_file and returns to the driver (the same bytes, hashed in the index)."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def table_of_arrow_file(data: bytes) -> pa.Table:
    return pa.ipc.open_file(pa.py_buffer(data)).read_all()


def read_run(directory: Path, key: str, result_hash: str | None) -> pa.Table | integrity.DamagedRun:
    """Run KEY's rows from its file (run_file, or the Parquet file an older
    ccbench wrote), if the file's hash is `result_hash` (the index's) and it
    reads as a table; else a DamagedRun saying why."""
    path = run_file(directory, key)
    if not path.exists() and path.with_suffix(LEGACY_RUN_SUFFIX).exists():
        path = path.with_suffix(LEGACY_RUN_SUFFIX)
    data = integrity.verified_bytes(path, result_hash)
    if isinstance(data, integrity.DamagedRun):
        return data
    try:
        if path.suffix == LEGACY_RUN_SUFFIX:
            return pq.read_table(pa.BufferReader(data))
        return table_of_arrow_file(data)
    except (pa.ArrowException, OSError) as e:
        return integrity.DamagedRun(path, f"not a readable table ({limits.shown(str(e), 80)})")


def damaged_runs(directory: Path, done: pd.DataFrame) -> list[integrity.DamagedRun]:
    """The runs of `done` (index rows) whose files cannot be used (read_run), read in threads."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=4) as pool:
        read = pool.map(lambda kh: read_run(directory, *kh), zip(done["key"], done["result_hash"]))
        return [r for r in read if isinstance(r, integrity.DamagedRun)]


#: What `ccbench report` says to do about damaged run files.
REDO_ADVICE = "run the campaign again into this directory (the same ccbench campaign command) to redo those runs"


def tables_dir(directory: Path, key: str) -> Path:
    return Path(directory) / "tables" / key


class Index:
    """The run index of one campaign directory."""

    def __init__(self, directory: str | Path, create: bool = False, check: bool = False):
        """Opens the index; `check`: first SQLite's quick_check (integrity.check_index).
        Raises CampaignDirectoryError (one line) for any SQLite or file error."""
        self.directory = Path(directory)
        path = self.directory / INDEX
        if not create and not path.exists():
            raise CampaignDirectoryError(f"{self.directory}: not a campaign directory (no {INDEX})")
        try:
            self.db = sqlite3.connect(path, timeout=60, isolation_level=None)
        except sqlite3.Error as e:
            raise integrity.explain(e, path) from None
        try:
            if check:
                integrity.check_index(self.db, path)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            if create:
                self.db.executescript(_SCHEMA)
        except (sqlite3.Error, CampaignDirectoryError) as e:
            self.db.close()
            raise e if isinstance(e, CampaignDirectoryError) else integrity.explain(e, path) from None

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def meta(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT key, value FROM meta"))

    def set_meta(self, values: dict[str, str]) -> None:
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", values.items())

    def sync_plan(self, campaign: Campaign, drop_unplanned: bool = True) -> int:
        """Makes the index hold the campaign's runs: new runs pending, runs
        whose scenario changed reset, a 'running' run (interrupted) pending
        again; runs no longer planned are deleted with their files when
        `drop_unplanned` (another campaign file), else kept (repetitions
        added by --until-decided to the same file). Returns the number of runs pending."""
        have = {k: h for k, h in self.db.execute("SELECT key, scenario_hash FROM runs")}
        planned = {r.key for r in campaign.runs}
        gone = [k for k in have if k not in planned] if drop_unplanned else []
        with self.db:
            self.db.execute("BEGIN")
            for k in gone:
                self.db.execute("DELETE FROM runs WHERE key = ?", (k,))
            rows = []
            for r in campaign.runs:
                h = r.scenario_hash
                if r.key not in have:
                    rows.append((r.key, r.index, r.rep, r.seed, canonical_json(r.levels), h))
                elif have[r.key] != h and have[r.key] == r.legacy_scenario_hash:
                    # Hashed as before 4 Dec 2026 (traces whole): unchanged, kept in the new form.
                    self.db.execute("UPDATE runs SET position=?, scenario_hash=? WHERE key=?", (r.index, h, r.key))
                elif have[r.key] != h:
                    self.db.execute(
                        "UPDATE runs SET status='pending', scenario_hash=?, seed=?, result_hash=NULL, "
                        "random_draws=NULL WHERE key=?",
                        (h, r.seed, r.key),
                    )
                    self.db.execute("UPDATE runs SET position=? WHERE key=?", (r.index, r.key))
                else:
                    self.db.execute("UPDATE runs SET position=? WHERE key=?", (r.index, r.key))
            self.db.executemany(
                "INSERT INTO runs (key, position, rep, seed, levels, scenario_hash, status) "
                "VALUES (?, ?, ?, ?, ?, ?, 'pending')",
                rows,
            )
            self.db.execute("UPDATE runs SET status='pending' WHERE status IN ('running', 'failed')")
        for k in gone:
            run_file(self.directory, k).unlink(missing_ok=True)
            run_file(self.directory, k).with_suffix(LEGACY_RUN_SUFFIX).unlink(missing_ok=True)
            shutil.rmtree(tables_dir(self.directory, k), ignore_errors=True)
        return self.count("pending")

    def count(self, status: str | None = None) -> int:
        if status is None:
            return self.db.execute("SELECT count(*) FROM runs").fetchone()[0]
        return self.db.execute("SELECT count(*) FROM runs WHERE status = ?", (status,)).fetchone()[0]

    def keys(self, status: str) -> set[str]:
        return {k for (k,) in self.db.execute("SELECT key FROM runs WHERE status = ?", (status,))}

    def mark_running(self, keys: list[str]) -> None:
        now = time.time()
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany(
                "UPDATE runs SET status='running', attempts=attempts+1, started_at=?, error=NULL WHERE key=?",
                [(now, k) for k in keys],
            )

    def redo(self, keys: list[str]) -> None:
        """Finished runs whose files cannot be used (integrity.DamagedRun): pending again."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany("UPDATE runs SET status='pending', result_hash=NULL WHERE key=?", [(k,) for k in keys])

    def mark_pending(self, keys: list[str]) -> None:
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany(
                "UPDATE runs SET status='pending' WHERE key=? AND status='running'", [(k,) for k in keys]
            )

    def record(self, outcomes: list[dict]) -> None:
        """Stores finished runs (status done or failed) in one transaction."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany(
                "UPDATE runs SET status=:status, completions=completions+(:status='done'), started_at=:started_at, "
                "finished_at=:finished_at, wall_s=:wall_s, worker=:worker, result_hash=:result_hash, error=:error, "
                "random_draws=:random_draws WHERE key=:key",
                [{"random_draws": None, **o} for o in outcomes],
            )

    def add_missing_columns(self) -> None:
        """Gives an index written before a column existed that column (empty):
        random_draws came on 5 Dec 2026."""
        have = {row[1] for row in self.db.execute("PRAGMA table_info(runs)")}
        if "random_draws" not in have:
            self.db.execute("ALTER TABLE runs ADD COLUMN random_draws INTEGER")

    def random_draws(self, keys: Sequence[str]) -> dict[str, tuple[int | None, str]]:
        """Key -> (random_draws, result_hash) of those of `keys` that are done."""
        wanted = set(keys)
        rows = self.db.execute("SELECT key, random_draws, result_hash FROM runs WHERE status='done'")
        return {k: (draws, h) for k, draws, h in rows if k in wanted}

    def frame(self) -> pd.DataFrame:
        """The runs of the index in plan order (levels as JSON text)."""
        return pd.read_sql_query("SELECT * FROM runs ORDER BY position", self.db)


@contextlib.contextmanager
def locked(directory: str | Path) -> Iterator[None]:
    """Holds the lock of a campaign directory (ccbench.directory_lock, the
    one `ccbench run` takes) while a campaign runs in it, so a second
    campaign into it is refused at once instead of running the same runs
    again. Raises CampaignDirectoryError, also for a path that cannot be a
    directory (a file, or under one that cannot be written)."""
    d = Path(directory)
    if d.exists() and not d.is_dir():
        raise CampaignDirectoryError(f"{d} exists and is not a directory; choose another --out")
    resolved = d.resolve()
    try:
        lock = directory_lock.acquire(resolved)
    except directory_lock.Busy:
        raise CampaignDirectoryError(f"another ccbench campaign is running in {d}") from None
    except OSError as e:
        if e.errno in integrity.DISK_ERRNOS:  # a full disk or a read-only mount: say what to do
            raise integrity.explain(e, d) from None
        raise CampaignDirectoryError(f"cannot use the campaign directory {d}: {e.strerror}") from None
    try:
        yield
    finally:
        directory_lock.release(resolved, lock)


def prepare(directory: str | Path, campaign: Campaign, force: bool, version: str) -> Index:
    """Opens (or creates) the campaign directory for `campaign`. An existing
    directory of another campaign is refused unless `force`, which keeps
    every run whose scenario is unchanged. A directory's campaign is the
    text of its campaign.toml (campaign.saved_text) and the text of the base
    scenario file, copied beside it as SAVED_BASE. Raises CampaignDirectoryError."""
    d = Path(directory)
    saved = campaign.saved_text()
    same = False
    if (d / INDEX).exists():
        idx = Index(d, check=True)
        meta = idx.meta()
        same = _same_campaign(meta, campaign, saved)
        if not same and not force:
            idx.close()
            raise CampaignDirectoryError(_refusal(d, meta, campaign, saved))
    else:
        if d.exists() and any(d.iterdir()):
            raise CampaignDirectoryError(f"{d} exists and is not a campaign directory; choose another --out")
        d.mkdir(parents=True, exist_ok=True)
        idx = Index(d, create=True)
    idx.add_missing_columns()
    (d / "runs").mkdir(exist_ok=True)
    from ccbench.file_modes import atomic_write_bytes

    file_name = "campaign.json" if campaign.source == "<dict>" else "campaign.toml"
    for stale in ("campaign.json", "campaign.toml"):
        if stale != file_name:
            (d / stale).unlink(missing_ok=True)
    atomic_write_bytes(d / file_name, saved.encode("utf-8"))
    if campaign.base_text is None:
        (d / SAVED_BASE).unlink(missing_ok=True)
    else:
        atomic_write_bytes(d / SAVED_BASE, campaign.base_text.encode("utf-8"))
    idx.set_meta(
        {
            "schema_version": str(SCHEMA_VERSION),
            "name": campaign.name,
            "source": campaign.source,
            "campaign_file": file_name,
            "campaign_text": saved,
            "campaign_hash": text_hash(saved),
            "base_hash": campaign.base_hash,
            "design": json.dumps(campaign.design()),  # keeps the factors in the file's order
            "ccbench_version": version,
        }
    )
    idx.sync_plan(campaign, drop_unplanned=not same)
    return idx


def _same_campaign(meta: dict[str, str], campaign: Campaign, saved: str) -> bool:
    """Whether a directory (its index's meta) holds `campaign`, whose saved text is `saved`."""
    if "base_hash" not in meta:  # written before the base file was part of the identity: the file's text only
        return meta.get("campaign_hash") == campaign.text_hash
    return meta["campaign_hash"] == text_hash(saved) and meta["base_hash"] == campaign.base_hash


def _refusal(d: Path, meta: dict[str, str], campaign: Campaign, saved: str) -> str:
    """Why `d` is refused to `campaign` (without --force), and what to do."""
    keep = "(runs whose scenario is unchanged are kept)"
    old_source = meta.get("source", "?")
    old_text = meta.get("campaign_text", "")
    if old_text == saved:
        return (
            f"the base scenario {campaign.base_name} changed since {d} was written; use another --out, "
            f"or --force to run the changed runs again in {d} {keep}"
        )
    if old_text.removesuffix(QUICK_NOTE) == saved.removesuffix(QUICK_NOTE):
        if old_text.endswith(QUICK_NOTE):
            return (
                f"{d} holds the quick form of this campaign (--quick), not its full design; add --quick to resume "
                f"it, use another --out, or --force to run the full design in {d} {keep}"
            )
        return (
            f"{d} holds the full design of this campaign, not its quick form (--quick); drop --quick to resume "
            f"it, use another --out, or --force to run the quick form in {d} {keep}"
        )
    if not campaign.source.startswith("<") and Path(old_source).resolve() == Path(campaign.source).resolve():
        return (
            f"{campaign.source} changed since {d} was written (any edit counts, a comment too); "
            f"use another --out, or --force to switch {d} to the file as it is now {keep}"
        )
    return (
        f"{d} holds the results of another campaign file ({old_source}); "
        f"use another --out, or --force to switch it to this file {keep}"
    )


RUN_MEANS = (
    "goodput_bps",
    "throughput_bps",
    "rtt_mean_ms",
    "rtt_p95_ms",
    "queuing_mean_ms",
    "retrans_pct",
    "timeouts_per_100s",
)


def run_summary_frame(flows: pd.DataFrame) -> pd.DataFrame:
    """One row per run from the tidy flows table (grouped by `run`, in order
    of first appearance): per-flow means of the flow metrics, the data link's
    utilization (of the run's first flow) and Jain's index over the flows'
    goodputs (ccbench.metrics.jain_index, vectorized over runs; NaN for one flow)."""
    g = flows.groupby("run", sort=False)
    out = g[list(RUN_MEANS)].mean()
    out.insert(0, "flows", g.size())
    out.insert(3, "utilization", g["link_utilization"].first())
    goodput = flows["goodput_bps"].where(np.isfinite(flows["goodput_bps"]))
    parts = pd.DataFrame({"run": flows["run"], "x": goodput, "xx": goodput * goodput, "n": goodput.notna()})
    sums = parts.groupby("run", sort=False)[["x", "xx", "n"]].sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        jain = sums["x"] ** 2 / (sums["n"] * sums["xx"])
    out["jain"] = jain.where((out["flows"] > 1) & (sums["xx"] > 0))
    return out


def assemble(
    directory: str | Path, factor_levels: dict[str, list], fresh: dict | None = None, index: pd.DataFrame | None = None
) -> tuple:
    """(flows, runs): the tidy tables of every finished run, sorted by the
    factors' levels in the file's order, then repetition. A run's rows come
    from `fresh` (key -> Arrow table returned by its worker in this session)
    or else from its file (read_run, in threads). `index`: the index's
    frame when the caller read it already, so the tables hold exactly its
    done runs (more may finish meanwhile in a running campaign)."""
    from concurrent.futures import ThreadPoolExecutor

    d = Path(directory)
    fresh = fresh or {}
    factors = list(factor_levels)
    level_order = level_positions(factor_levels)
    as_text = {f: len({type(v) for v in levels}) > 1 for f, levels in factor_levels.items()}
    if index is None:
        with Index(d) as idx:
            index = idx.frame()
    done = index[index["status"] == "done"]
    levels = [json.loads(s) for s in done["levels"]]
    keys, reps, seeds = list(done["key"]), [int(x) for x in done["rep"]], [int(x) for x in done["seed"]]
    sort_keys = [tuple(level_order[f].get(lv[f], len(level_order[f])) for f in factors) for lv in levels]
    order = sorted(range(len(done)), key=lambda i: (sort_keys[i], reps[i]))
    if not order:
        return pd.DataFrame(), pd.DataFrame()
    hashes = dict(zip(done["key"], done["result_hash"]))
    missing = [keys[i] for i in order if keys[i] not in fresh]
    with ThreadPoolExecutor(max_workers=4) as pool:
        read = dict(zip(missing, pool.map(lambda k: read_run(d, k, hashes[k]), missing)))
    damaged = [r for r in read.values() if isinstance(r, integrity.DamagedRun)]
    if damaged:
        raise integrity.DamagedRunsError(d, damaged, REDO_ADVICE)
    tables = [fresh[keys[i]] if keys[i] in fresh else read[keys[i]] for i in order]
    counts = [t.num_rows for t in tables]

    def repeated(values: list) -> list:
        return [v for v, c in zip(values, counts) for _ in range(c)]

    front = {f: pa.array(repeated([str(levels[i][f]) if as_text[f] else levels[i][f] for i in order])) for f in factors}
    front["run"] = pa.array(repeated([keys[i] for i in order]), pa.string())
    front["rep"] = pa.array(repeated([reps[i] for i in order]), pa.int64())
    front["seed"] = pa.array(repeated([seeds[i] for i in order]), pa.int64())
    body = pa.concat_tables(tables, promote_options="permissive")
    flows = signed(pa.table({**front, **{c: body.column(c) for c in body.column_names}})).to_pandas()
    head = flows.drop_duplicates("run")[["run", *factors, "rep", "seed"]].set_index("run")
    runs = head.join(run_summary_frame(flows)).reset_index()
    rest = [c for c in runs.columns if c not in (*factors, "rep", "seed", "run")]
    return flows, runs[[*factors, "rep", "seed", "run", *rest]]


def write_tidy(directory: str | Path, flows: pd.DataFrame, runs: pd.DataFrame) -> None:
    """flows and runs as Parquet and CSV; the Parquet files carry the
    campaign as key-value metadata (ccbench.table, ccbench.version,
    ccbench.campaign: its name, ccbench.campaign_hash, ccbench.campaign_file:
    its text), so a tidy table copied elsewhere still says what it holds."""
    from ccbench.run_files import write_table

    with Index(Path(directory)) as idx:
        meta = idx.meta()
    about = {
        "version": meta.get("ccbench_version", ""),
        "campaign": meta.get("name", ""),
        "campaign_hash": meta.get("campaign_hash", ""),
        "campaign_file": meta.get("campaign_text", ""),
    }
    for name, df in (("flows", flows), ("runs", runs)):
        write_table(Path(directory), name, df, csv=True, metadata={"table": name, **about})
    with Index(Path(directory)) as idx:
        idx.set_meta({"tidy_hash": tidy_hash(Path(directory))})


def tidy_hash(directory: Path) -> str | None:
    """The hash of the tidy tables' Parquet files (None if one is missing or unreadable): stored in
    the index when they are written, compared when they are read."""
    try:
        return integrity.digest(b"".join((directory / f"{n}.parquet").read_bytes() for n in ("flows", "runs")))
    except OSError:
        return None


def index_size_bytes(directory: str | Path) -> int:
    d = Path(directory)
    return sum(os.path.getsize(p) for p in d.glob(INDEX + "*"))


class CampaignData:
    """A campaign directory read back: `flows` and `runs` (the tidy tables),
    `index` (one row per run with status, times, worker, hashes), `design`
    (factors and levels, repetitions, seed, ...), `text` (the campaign file);
    `figure_formats`: the files the report writes per figure into plots/ (PNG,
    which report.html embeds, and SVG when asked for; set by the report's build).

    `partial`: some of the `planned` runs are not finished yet (the campaign
    was interrupted, or is still running in another process); `flows` and
    `runs` then hold the `finished` runs only, assembled from their run files
    (any tidy tables in the directory are from an earlier completion, if any)."""

    def __init__(self, directory: str | Path):
        self.directory = Path(directory)
        self.figure_formats: tuple[str, ...] = ("png",)
        with Index(self.directory, check=True) as idx:
            self.meta = idx.meta()
            self.index = idx.frame()
        self.design = json.loads(self.meta["design"])
        self.text = self.meta["campaign_text"]
        self.name = self.meta.get("name", "")
        status = self.index["status"]
        self.planned = len(self.index)
        self.finished = int((status == "done").sum())
        self.partial = bool(status.isin(UNFINISHED).any())
        tidy = self.directory / "runs.parquet"
        # Not complete, stopped before writing its tables, or tables that are not the ones written
        # (changed, damaged, deleted): assembled from the run files, each checked against its hash.
        if self.partial or self.meta.get("tidy_hash") != tidy_hash(self.directory):
            self.flows, self.runs = assemble(self.directory, self.design["factors"], index=self.index)
        else:
            self.flows = signed(pq.read_table(self.directory / "flows.parquet")).to_pandas()
            self.runs = signed(pq.read_table(tidy)).to_pandas()

    @property
    def factors(self) -> list[str]:
        return list(self.design["factors"])

    def level_order(self) -> dict[str, dict]:
        return level_positions(self.design["factors"])

    def _repr_html_(self) -> str:
        """Jupyter's view: the design, how far it got, the mean per condition (ccbench.notebook)."""
        from ccbench.notebook import campaign_html

        return campaign_html(self)

    def plot(self, name: str = "bars", condition: int = 0, objective: str | None = None):
        """A figure of the report (bars, plane or cdfs) of one condition, by its
        number in the report's order, as a matplotlib Figure (ccbench.notebook)."""
        from ccbench.notebook import campaign_figure

        return campaign_figure(self, name, condition, objective)

    def __repr__(self) -> str:
        part = f", partial: {self.finished} of {self.planned} runs finished" if self.partial else ""
        return f"CampaignData({str(self.directory)!r}: {len(self.runs)} runs, {len(self.flows)} flows{part})"


def load(directory: str | Path) -> CampaignData:
    """The tidy tables, index and design of a campaign directory; of an
    unfinished campaign, its finished runs (CampaignData.partial)."""
    return CampaignData(directory)
