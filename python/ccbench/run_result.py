"""The result model of one run: the simulator's tables as Arrow, and tidy
pandas tables built from them the first time they are touched.

`Result.from_raw` takes the simulator's tables (Arrow record batches from the
binding, or dicts of columns) and adds what they lack when a table is first
read (the per-run metrics of the kernel emulator's flows and links tables,
computed by the core through the binding; each flow's route; the series'
rates per sample), so a run whose tables are only saved, or only partly
read, never pays for the rest. The same object
is rebuilt from a saved run directory by ccbench.run_files.load, so plots and
reports work from saved results only.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd
import pyarrow as pa

from ccbench import _ccsim, metrics, traces

#: Version of the tables' layout and of meta.json; bump on incompatible change.
SCHEMA_VERSION = 2
#: The tables of a run, in the order they are saved (the core's list:
#: flows, series, cc_state, rtt, links, link_series, sources, source_series).
TABLES = tuple(_ccsim.TABLES)

#: The columns of the `cc_state` table, as the simulator makes them (a run
#: without algorithm state, e.g. the kernel emulator's, has it empty).
CC_STATE_SCHEMA = pa.schema(
    [
        ("t", pa.float64()),
        ("flow", pa.uint32()),
        ("var", pa.dictionary(pa.uint32(), pa.string())),
        ("value", pa.float64()),
        ("label", pa.dictionary(pa.uint32(), pa.string())),
    ]
)

#: The dumbbell shorthand's routes: (data links, ACK links) per direction.
DUMBBELL_ROUTES = {"down": (["downlink"], ["uplink"]), "up": (["uplink"], ["downlink"])}
#: Separator of the link names in the flows table's `route` and `ack_route`.
ROUTE_SEPARATOR = ">"


def flow_routes(scenario: dict) -> list[tuple[list[str], list[str]]]:
    """Per [[flows]] entry of a normalized scenario: the links its data
    crosses and those its ACKs cross, in order (the shorthand's direction
    "down" is (["downlink"], ["uplink"]))."""
    if scenario.get("links"):
        return [(list(f["route"]), list(f["ack_route"])) for f in scenario["flows"]]
    return [DUMBBELL_ROUTES[f.get("direction", "down")] for f in scenario["flows"]]


def route_links(route: str) -> list[str]:
    """The link names of a `route` cell of the flows table."""
    return route.split(ROUTE_SEPARATOR) if route else []


#: The per-flow metrics the simulator core puts in its flows table.
FLOW_METRIC_COLUMNS = list(_ccsim.FLOW_METRIC_COLUMNS)
#: The flows table's counters those are computed from (record::summary::FlowCounters).
FLOW_COUNTER_COLUMNS = list(_ccsim.FLOW_COUNTER_COLUMNS)
#: The flows table's RTT statistics (record::rtt_stats): rtt_samples, rtt_mean_ms, ..., queuing_mean_ms.
RTT_STAT_COLUMNS = list(_ccsim.RTT_STAT_COLUMNS)
#: The per-link metrics the simulator core puts in its links table.
LINK_METRIC_COLUMNS = list(_ccsim.LINK_METRIC_COLUMNS)


def _frame(columns: Mapping) -> pd.DataFrame:
    return signed_frame(
        pd.DataFrame({k: (np.asarray(v) if not isinstance(v, list) else v) for k, v in columns.items()})
    )


def _has_columns(table: pa.Table, names) -> bool:
    """Whether `table` has every column of `names` (its column_names is a
    new list at every access: read once)."""
    return set(names) <= set(table.column_names)


def as_arrow(table) -> pa.Table:
    """A pyarrow Table of an Arrow table or record batch, or of anything
    exporting one through the Arrow PyCapsule interface (the binding's
    tables); numeric columns are not copied."""
    if isinstance(table, pa.Table):
        return table
    if not isinstance(table, pa.RecordBatch):
        table = pa.record_batch(table)
    return pa.Table.from_batches([table])


def _shares_buffers() -> bool:
    """Whether pandas copies a column before writing into it (copy-on-write:
    pandas 3, or pandas 2 with the option on), so a DataFrame may read the
    Arrow buffers in place."""
    return int(pd.__version__.split(".")[0]) >= 3 or pd.get_option("mode.copy_on_write") is True


#: The signed integer type of each unsigned one's width.
_SIGNED = {pa.uint8(): pa.int8(), pa.uint16(): pa.int16(), pa.uint32(): pa.int32(), pa.uint64(): pa.int64()}


def signed(table: pa.Table) -> pa.Table:
    """`table` with its unsigned integer columns (the core's counters, cwnd,
    flow numbers) as the signed type of their width, for a pandas DataFrame:
    NumPy's unsigned arithmetic wraps, so a difference between two runs'
    counters, or cwnd less in_flight, would read 18446744073709551615
    instead of -1. The values stay far below the signed limits (counters
    below 2^63, windows and flow numbers below 2^31), so the columns are the
    same buffers read as signed (no copy). The Arrow tables and the saved
    files keep the core's types."""
    schema = table.schema
    unsigned = [i for i, field in enumerate(schema) if field.type in _SIGNED]
    if not unsigned:
        return table
    fields, columns = list(schema), table.columns
    for i in unsigned:
        to = _SIGNED[fields[i].type]
        fields[i] = fields[i].with_type(to)
        columns[i] = pa.chunked_array([c.view(to) for c in columns[i].chunks], type=to)
    return pa.Table.from_arrays(columns, schema=pa.schema(fields, metadata=schema.metadata))


def signed_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """`signed` of a pandas DataFrame (a table given as columns, or one a
    user read from saved files)."""
    unsigned = [c for c, t in frame.dtypes.items() if pd.api.types.is_unsigned_integer_dtype(t)]
    if not unsigned:
        return frame
    return frame.assign(**{c: frame[c].to_numpy().view(f"i{frame[c].dtype.itemsize}") for c in unsigned})


#: Tables up to this many rows become a DataFrame of its own copy (for a
#: few rows, pandas' cost is per column, not per byte); larger ones read
#: the Arrow buffers in place where they can (frame_of).
COPIED_TABLE_ROWS = 10_000


def frame_of(table: pa.Table) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A pandas DataFrame of an Arrow table (its unsigned integers `signed`),
    and the frame it is a view of, to be kept alive as long as it. A small
    table (COPIED_TABLE_ROWS) is copied into pandas' own blocks, without
    threads: most of a run's tables, for which that is the faster route.
    Under copy-on-write the numeric columns of a larger table are the Arrow
    buffers themselves (one block per column, no copy: a long run's series
    is not held twice); as the view shares them with the kept frame, pandas
    copies a column before writing into it instead of writing into the
    read-only buffer. Otherwise pandas' own copy (its own base). A table
    without pandas' metadata (the simulator's) skips reading it."""
    table = signed(table)
    options = {"ignore_metadata": not (table.schema.metadata or {}).get(b"pandas")}
    if table.num_rows <= COPIED_TABLE_ROWS:
        frame = table.to_pandas(use_threads=False, **options)
        return frame, frame
    if not _shares_buffers():
        frame = table.to_pandas(**options)
        return frame, frame
    base = table.to_pandas(split_blocks=True, **options)
    return base.copy(deep=False), base


def columns(table: pa.Table) -> dict:
    """An Arrow table as a dict of NumPy arrays (numeric ones without a copy;
    text as object arrays): what the metric functions take."""
    return {name: table.column(name).to_numpy() for name in table.column_names}


def raw_columns(raw: dict) -> dict:
    """The binding's output (ccbench._ccsim.run) with each table as a dict of
    NumPy columns (see `columns`), for scripts that read the raw tables."""
    return {**raw, **{name: columns(as_arrow(raw[name])) for name in TABLES}}


def flow_summary(flows, rtt, scenario: dict, links) -> pd.DataFrame:
    """The per-flow counters and the SPEC's per-flow metrics, plus each
    flow's `route` and `ack_route` (link names joined by ">") and `link`: its
    bottleneck, the slowest link of its data route by the links table's
    `rate_bps` (the first of equals). The simulator core computes the metrics
    (from every RTT sample, whatever `record.rtt_samples` kept); a table
    without them gets them from the same code through the binding: the
    kernel emulator's lacks the rate metrics (flow_metrics; its RTT
    statistics are ccsim's, from the emulator's per-ACK samples), one given
    without RTT statistics takes them from the `rtt` table
    (rtt_stats_per_flow). `flows`, `rtt` and `links`: DataFrames or dicts of
    columns; `scenario`: the normalized scenario."""
    cols = {c: list(flows[c]) if c in ("cc", "direction") else np.asarray(flows[c]) for c in flows}
    cols.update(route_columns(cols["group"], scenario, links))
    if "goodput_bps" not in cols:
        cols.update(flow_metrics(cols))
    if "rtt_mean_ms" not in cols:
        cols.update(rtt_stats_per_flow(rtt, cols["flow"]))
    return pd.DataFrame(cols)


def route_columns(groups, scenario: dict, links) -> dict[str, list[str]]:
    """The flows table's `route`, `ack_route` and `link` (flow_summary) of
    flows of the given [[flows]] entries (`groups`); `links`: a DataFrame or
    dict of columns with `link` and `rate_bps`."""
    routes = flow_routes(scenario)
    rate = dict(zip(links["link"], np.asarray(links["rate_bps"], dtype=float)))
    data = [routes[g][0] for g in groups]
    return {
        "route": [ROUTE_SEPARATOR.join(r) for r in data],
        "ack_route": [ROUTE_SEPARATOR.join(routes[g][1]) for g in groups],
        "link": [min(r, key=lambda name: rate[name]) for r in data],
    }


#: Every column flow_summary computes for a flows table that lacks it.
FLOW_SUMMARY_COLUMNS = [*FLOW_METRIC_COLUMNS, *RTT_STAT_COLUMNS]


def arrow_flow_summary(
    flows: pa.Table, rtt: Callable[[], pa.Table], scenario: dict, links: pa.Table
) -> pa.Table | pd.DataFrame:
    """flow_summary of the simulator's Arrow tables: when the core computed
    the metrics (it does), the flows table with the route columns appended,
    without building a DataFrame (the same columns, types and values);
    otherwise flow_summary's DataFrame. `rtt` gives the rtt table, read
    only in that case."""
    if not _has_columns(flows, FLOW_SUMMARY_COLUMNS):
        return flow_summary(columns(flows), columns(rtt()), scenario, columns(links))
    groups = flows["group"].to_pylist()
    for name, values in route_columns(groups, scenario, columns(links.select(["link", "rate_bps"]))).items():
        flows = flows.append_column(name, pa.array(values, pa.string()))
    return flows


def _floats(values) -> list[float]:
    return np.asarray(values, dtype=float).tolist()


def flow_metrics(cols: dict) -> dict:
    """FLOW_METRIC_COLUMNS of a flows table that comes without them (the
    kernel emulator's), from its FLOW_COUNTER_COLUMNS (`cols`: a dict of
    columns; `timeouts` NaN where the kernel does not count them), computed
    by the core (_ccsim.flow_metrics: record::summary, as for a simulated
    run)."""
    return columns(as_arrow(_ccsim.flow_metrics({c: _floats(cols[c]) for c in FLOW_COUNTER_COLUMNS})))


def rtt_stats_per_flow(rtt, flows) -> dict:
    """RTT_STAT_COLUMNS of each flow id of `flows` from the per-ACK samples
    (`rtt`: a DataFrame or dict with columns flow and rtt_ms, in time order),
    computed by the core's RttStats (_ccsim.rtt_stats: the simulator's
    streaming statistics, its percentiles from the same sketch)."""
    ids = np.asarray(flows, dtype=np.int64).tolist()
    table = _ccsim.rtt_stats(ids, np.asarray(rtt["flow"], dtype=np.int64).tolist(), _floats(rtt["rtt_ms"]))
    return columns(as_arrow(table))


def interval_rates_per_flow(flow, t, counter_bytes) -> np.ndarray:
    """metrics.interval_rates of each flow's samples of a series (rows of
    several flows interleaved), in the rows' order."""
    flow, t, counter = np.asarray(flow), np.asarray(t, dtype=float), np.asarray(counter_bytes, dtype=float)
    out = np.full(len(flow), np.nan)
    order = np.argsort(flow, kind="stable")
    sorted_flow = flow[order]
    bounds = np.flatnonzero(np.diff(sorted_flow)) + 1 if len(flow) else np.array([], dtype=int)
    for idx in np.split(order, bounds):
        if len(idx):
            out[idx] = metrics.interval_rates(t[idx], counter[idx])
    return out


def series_rates(series) -> dict:
    """Per-interval goodput_bps and throughput_bps of a series (a DataFrame or
    dict of columns), from the diffs of delivered_bytes and bytes_sent
    between a flow's consecutive samples."""
    flow, t = np.asarray(series["flow"]), np.asarray(series["t"])
    return {
        "goodput_bps": interval_rates_per_flow(flow, t, np.asarray(series["delivered_bytes"])),
        "throughput_bps": interval_rates_per_flow(flow, t, np.asarray(series["bytes_sent"])),
    }


def series_with_rates(series: pd.DataFrame) -> pd.DataFrame:
    """The series plus its per-interval goodput_bps and throughput_bps (series_rates)."""
    return series.assign(**series_rates(series))


def arrow_series_with_rates(series: pa.Table) -> pa.Table:
    """series_with_rates of an Arrow series, without pandas."""
    for name, values in series_rates(columns(series.select(["flow", "t", "delivered_bytes", "bytes_sent"]))).items():
        series = series.append_column(name, pa.array(values))
    return series


def _trace(spec: dict) -> tuple[list[int], int] | None:
    """A link's trace as the core's link_metrics takes it (opportunities ms,
    bytes per opportunity), or None for a link without one."""
    trace = spec.get("trace")
    if not (isinstance(trace, dict) and trace.get("opportunities_ms")):
        return None
    return list(trace["opportunities_ms"]), int(
        trace.get("bytes_per_opportunity", traces.MAHIMAHI_BYTES_PER_OPPORTUNITY)
    )


def _link_specs(scenario: dict) -> dict[str, dict]:
    """A normalized scenario's links by their names in the results (an
    omitted uplink has the downlink's rate source, as the core builds it)."""
    if scenario.get("links"):
        return {link["name"]: link for link in scenario["links"]}
    return {"downlink": scenario["downlink"], "uplink": scenario.get("uplink") or scenario["downlink"]}


def _crossing(flows: pd.DataFrame, link: str) -> np.ndarray:
    """Which flows' data route crosses `link` (saved results without a
    `route` column: the flows whose `link` it is)."""
    if "route" not in flows:
        return (flows["link"] == link).to_numpy()
    return np.array([link in route_links(r) for r in flows["route"]], dtype=bool)


def link_metrics(links, flows: pd.DataFrame, scenario: dict) -> dict:
    """LINK_METRIC_COLUMNS of a links table that comes without them (the
    kernel emulator's; `links`: a DataFrame or dict of columns with `link`
    and `rate_bps`), computed by the core as for a simulated run
    (_ccsim.link_metrics: record::summary::link_rates). Per link: the rate
    it offered while the flows whose data crosses it ran (a trace's
    opportunities then, otherwise its `rate_bps`), its payload capacity
    (that rate x the payload share of those flows' full segments), their
    goodput, the channel utilization (that goodput / payload capacity) and
    `nominal_utilization` (that goodput / the offered rate, headers counted
    as overhead: the measurement studies' definition, e.g. 56.44 of 64
    kbit/s = 88.2%)."""
    specs = _link_specs(scenario)
    names = list(links["link"])
    tcp = [scenario["flows"][g]["tcp"] for g in flows["group"].to_numpy()]
    activity = {
        "start_s": _floats(flows["start_s"]),
        "active_s": _floats(flows["active_s"]),
        "delivered_bytes": _floats(flows["delivered_bytes"]),
        "mss": [float(t["mss"]) for t in tcp],
        "timestamps": [float(t["timestamps"]) for t in tcp],
    }
    table = _ccsim.link_metrics(
        _floats(links["rate_bps"]),
        [_trace(specs.get(name, {})) for name in names],
        [np.flatnonzero(_crossing(flows, name)).tolist() for name in names],
        activity,
        float(scenario["duration"]),
    )
    return columns(as_arrow(table))


def link_summary(links: pd.DataFrame, flows: pd.DataFrame, scenario: dict) -> pd.DataFrame:
    """Links plus their link_metrics (the core's, when the table has them)."""
    if all(c in links for c in LINK_METRIC_COLUMNS):
        return links
    return links.assign(**link_metrics(links, flows, scenario))


def arrow_link_summary(links: pa.Table, flows: Callable[[], pd.DataFrame], scenario: dict) -> pa.Table:
    """link_summary of an Arrow links table, without building its DataFrame.
    `flows` gives the flows DataFrame; it is called only for a table without
    the core's link metrics, so the simulator's runs never build it here."""
    if _has_columns(links, LINK_METRIC_COLUMNS):
        return links
    for name, values in link_metrics(columns(links.select(["link", "rate_bps"])), flows(), scenario).items():
        links = links.append_column(name, pa.array(values))
    return links


#: Columns run_files.save puts in front of a run's tables (and load drops): which run a row is from.
RUN_COLUMNS = ("scenario", "seed")


def cc_state_wide(cc_state, at=None) -> pd.DataFrame:
    """The long `cc_state` table (t, flow, var, value, label: a DataFrame or
    Arrow table; a row when a variable's value changed, every variable at a
    flow's first series row) in the wide layout: a row per (t, flow) of `at`
    (a DataFrame with `t` and `flow`, e.g. the series; flows without state
    left out), or without `at` per (t, flow) that has a state row; and a
    column `cc_<var>` per variable (the prefix keeps them apart from the
    series' columns when joined on t and flow): its value at that time, the
    value of the flow's latest row of it at or before then: a number (NaN
    for flows whose algorithm has no such variable), a mode's label (""
    likewise). A variable is a mode when any of its rows has a label.

    Saved tables (run_files) start with the run columns `scenario`, `seed`
    (and `cc`): when both tables have them, a flow is a flow of its run, so
    the tables of many runs read as one dataset give each run's rows, with
    those columns in front. Rows of runs that they do not tell apart (the
    same scenario, seed and algorithm twice) are a ValueError."""
    s = signed_frame(cc_state) if isinstance(cc_state, pd.DataFrame) else signed(as_arrow(cc_state)).to_pandas()
    at = None if at is None else signed_frame(at)
    if s.empty:
        return pd.DataFrame({"t": pd.Series(dtype=float), "flow": pd.Series(dtype=np.int32)})
    run = [c for c in (*RUN_COLUMNS, "cc") if c in s.columns and (at is None or c in at.columns)]
    by = [*run, "flow"]
    if s.duplicated([*by, "t", "var"]).any():
        raise ValueError(
            f"the cc_state table has rows of more than one run with the same {', '.join(['t', *by, 'var'])}: "
            "give it one run at a time"
        )
    s = s.sort_values("t", kind="stable")
    var = s["var"].astype(str).to_numpy()
    label = s["label"].astype(str).to_numpy()
    order = list(dict.fromkeys(var))
    modes = set(var[label != ""])
    keys = s[["t", *by]] if at is None else at[["t", *by]].merge(s[by].drop_duplicates(), on=by)
    rows = pd.MultiIndex.from_frame(keys[["t", *by]]).unique().sort_values()
    wanted = rows.to_frame(index=False)
    out = {}
    for name in order:
        pick = var == name
        cells = s.loc[pick, ["t", *by]].assign(cell=np.arange(pick.sum()))
        latest = pd.merge_asof(wanted, cells, on="t", by=by, direction="backward")["cell"]
        found = latest.notna().to_numpy()
        cell = latest.fillna(0).to_numpy(dtype=np.int64)
        if name in modes:
            out[f"cc_{name}"] = np.where(found, label[pick][cell], "").astype(object)
        else:
            out[f"cc_{name}"] = np.where(found, s["value"].to_numpy()[pick][cell], np.nan)
    wide = pd.DataFrame(out)
    wide.insert(0, "flow", rows.get_level_values("flow").to_numpy())
    wide.insert(0, "t", rows.get_level_values("t").to_numpy())
    for i, column in enumerate(run):
        wide.insert(i, column, rows.get_level_values(column))
    return wide


def arrow_table(df: pd.DataFrame) -> pa.Table:
    """The frame as an Arrow table, column by column (much faster than
    Table.from_pandas; no pandas metadata is needed for these flat tables)."""
    return pa.table({c: pa.array(df[c].to_numpy() if df[c].dtype.kind in "biuf" else list(df[c])) for c in df.columns})


class TableNotSaved(LookupError):
    """A table a run did not record (`ccbench.run(..., tables=...)`), or a
    table of a saved run that was not saved (a campaign's kept_tables)."""


def not_recorded(raw: Mapping) -> dict[str, str]:
    """Table name -> why it is missing, for the tables a simulator run
    (`_ccsim.run(..., tables=...)`) did not record: its output has only
    those it recorded."""
    recorded = [name for name in TABLES if name in raw]
    return {
        name: f"this run did not record the {name} table (it recorded: {', '.join(recorded)}); "
        f"run it with tables=None, or naming {name}, to have it"
        for name in TABLES
        if name not in raw
    }


def _unsaved(message: str) -> Callable[[Result], pd.DataFrame]:
    def fail(_):
        raise TableNotSaved(message)

    return fail


class _Table:
    """A table attribute of Result: read, a pandas DataFrame (built on first read)."""

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, result, owner=None):
        return self if result is None else result.frame(self.name)


class Result:
    """One run. Tables: `flows` (per-flow summary with metrics), `series`
    (sampled kernel-style variables plus interval goodput/throughput: the
    same columns for every algorithm), `cc_state` (the algorithms' own state
    at the series rows where it changed, long: t, flow, var, value, label;
    `state()` gives it wide at every series row), `rtt`
    (per-ACK samples), `links` (counters, capacity, utilization),
    `link_series`, `sources` and `source_series` (UDP and background traffic),
    each a pandas DataFrame built the first time it is read; `arrow(name)`:
    the same table as a pyarrow Table. `meta`: schema_version, seed,
    scenario, ccbench_version, events, duration_s, pcap (path and packets,
    when one was asked for), wall_seconds for a fresh run, and for a
    simulated run random_draws (0: no part of the scenario is random, so
    every seed gives this result).

    A table given to the constructor is a DataFrame, a pyarrow Table or
    record batch, anything exporting one through the Arrow PyCapsule
    interface, or None (empty). `unsaved`: table name -> why it is missing
    (a saved run that kept only some tables); reading it raises
    TableNotSaved with that message."""

    flows = _Table()
    series = _Table()
    cc_state = _Table()
    rtt = _Table()
    links = _Table()
    link_series = _Table()
    sources = _Table()
    source_series = _Table()

    def __init__(
        self,
        flows=None,
        series=None,
        cc_state=None,
        rtt=None,
        links=None,
        link_series=None,
        sources=None,
        source_series=None,
        meta: dict | None = None,
        unsaved: Mapping[str, str] | None = None,
    ):
        given = dict(
            flows=flows,
            series=series,
            cc_state=cc_state,
            rtt=rtt,
            links=links,
            link_series=link_series,
            sources=sources,
            source_series=source_series,
        )
        pending = {name: _unsaved(message) for name, message in (unsaved or {}).items()}
        self._hold(meta, {name: table for name, table in given.items() if table is not None}, pending)

    def _hold(self, meta: dict | None, tables: dict, pending: dict) -> None:
        """Keeps `tables` (name -> DataFrame or Arrow table) and `pending`
        (name -> function of this Result computing the table when first read;
        no reference cycle, so a run's tables are freed as soon as it is
        dropped). A table in neither is empty."""
        self.meta = {} if meta is None else meta
        self._frames: dict[str, pd.DataFrame] = {}
        #: The frames those read from Arrow are views of (frame_of).
        self._frame_bases: dict[str, pd.DataFrame] = {}
        self._arrow: dict[str, pa.Table] = {}
        self._pending: dict[str, Callable[[Result], pd.DataFrame | pa.Table]] = pending
        for name, table in tables.items():
            if isinstance(table, pd.DataFrame):
                self._frames[name] = table
            else:
                self._arrow[name] = as_arrow(table)

    @classmethod
    def from_raw(cls, raw: dict, scenario: dict, version: str) -> Result:
        """A run from the simulator's output (ccbench._ccsim.run: Arrow tables;
        ccbench.emulate: dicts of columns). The summaries (and, from dicts,
        the DataFrames) are computed when first read."""
        meta = {
            "schema_version": SCHEMA_VERSION,
            "ccbench_version": version,
            "seed": scenario["seed"],
            "scenario": scenario,
            "events": int(raw["events"]),
            "duration_s": float(raw["duration_s"]),
            "wall_seconds": float(raw["wall_seconds"]),
        }
        if "random_draws" in raw:  # the simulator's count; a kernel run's randomness is not counted
            meta["random_draws"] = int(raw["random_draws"])
        if raw.get("pcap"):
            meta["pcap"] = dict(raw["pcap"])
        r = cls.__new__(cls)
        if isinstance(raw["flows"], Mapping):  # dicts of columns
            pending = {
                name: (lambda _, name=name: _frame(raw.get(name, {})))
                for name in ("rtt", "link_series", "sources", "source_series")
            }
            pending["cc_state"] = lambda _: (
                _frame(raw["cc_state"]) if "cc_state" in raw else CC_STATE_SCHEMA.empty_table()
            )
            pending["flows"] = lambda _: flow_summary(raw["flows"], raw["rtt"], scenario, raw["links"])
            pending["series"] = lambda _: series_with_rates(_frame(raw["series"]))
            pending["links"] = lambda r: link_summary(_frame(raw["links"]), r.flows, scenario)
            r._hold(meta, {}, pending)
            return r
        # Each table is imported from the binding when first read: a campaign
        # worker or a user reading `flows` pays for two of the eight (flows and links).
        table = functools.cache(lambda name: as_arrow(raw[name]))
        pending = {
            "flows": lambda _: arrow_flow_summary(table("flows"), lambda: table("rtt"), scenario, table("links")),
            "series": lambda _: arrow_series_with_rates(table("series")),
            "links": lambda r: arrow_link_summary(table("links"), lambda: r.flows, scenario),
        }
        for name in ("cc_state", "rtt", "link_series", "sources", "source_series"):
            pending[name] = lambda _, name=name: table(name)
        pending.update({name: _unsaved(message) for name, message in not_recorded(raw).items()})
        r._hold(meta, {}, pending)
        return r

    def _compute(self, name: str) -> None:
        table = self._pending[name](self)
        del self._pending[name]
        self._frames.pop(name, None)
        self._arrow.pop(name, None)
        if isinstance(table, pd.DataFrame):
            self._frames[name] = signed_frame(table)
        else:
            self._arrow[name] = as_arrow(table)

    def _check_name(self, name) -> None:
        if name not in TABLES:
            raise KeyError(f"{name!r} is not a table of a run; one of {', '.join(TABLES)}")

    def frame(self, name: str) -> pd.DataFrame:
        """The table `name` (one of TABLES) as a pandas DataFrame."""
        self._check_name(name)
        if name in self._pending:
            self._compute(name)
        if name not in self._frames:
            if name in self._arrow:
                self._frames[name], self._frame_bases[name] = frame_of(self._arrow[name])
            else:
                self._frames[name] = pd.DataFrame()
        return self._frames[name]

    def arrow(self, name: str) -> pa.Table:
        """The table `name` (one of TABLES) as a pyarrow Table (the
        simulator's own buffers for its numeric columns where no metric was added)."""
        self._check_name(name)
        if name in self._pending:
            self._compute(name)
        if name not in self._arrow:
            self._arrow[name] = arrow_table(self.frame(name))
        return self._arrow[name]

    def __repr__(self) -> str:
        """What ran (scenario.summary: its name, or for an unnamed one its flows), never just ''."""
        from ccbench.scenario import summary

        scenario = self.meta.get("scenario")
        return f"<ccbench.Result {summary(scenario) if scenario else 'without a scenario'}>"

    def _repr_html_(self) -> str:
        """Jupyter's view: what ran and one row per flow (ccbench.notebook)."""
        from ccbench.notebook import result_html

        return result_html(self)

    def plot(self, name: str = "cwnd", window_s: float = 0.5):
        """One of the run's standard figures as a matplotlib Figure: cwnd,
        rtt, goodput, rtt_cdf or links (ccbench.run_plots; rates as means
        over windows of `window_s`), the ones `ccbench run --plots` saves."""
        from ccbench import run_plots

        return run_plots.figure(self, name, window_s)

    @property
    def scenario(self) -> dict:
        return self.meta["scenario"]

    def state(self, flow: int | None = None) -> pd.DataFrame:
        """The algorithms' state in the wide layout (cc_state_wide) at every
        series row of the flows with state: t, flow and a `cc_<var>` column
        per variable; of one flow if `flow` is given."""
        wide = cc_state_wide(self.arrow("cc_state"), at=self.arrow("series").select(["t", "flow"]).to_pandas())
        return wide if flow is None else wide[wide["flow"] == flow].reset_index(drop=True)

    def jain_index(self, link: str | None = None) -> float:
        """Jain's fairness index over the flows' goodputs (of the flows whose
        data crosses `link`, if given: a name of the links table, else a
        KeyError; NaN for a link that carries no flow's data)."""
        if link is not None and link not in set(self.links["link"]):
            raise KeyError(f"{link!r} is not a link of the run; one of {', '.join(self.links['link'])}")
        f = self.flows if link is None else self.flows[_crossing(self.flows, link)]
        return metrics.jain_index(f["goodput_bps"])

    def window_throughput(self, a: float, b: float, what: str = "throughput") -> pd.Series:
        """Mean rate (bit/s) of each flow in the window [a, b) seconds:
        'throughput' counts payload bytes sent (retransmissions included),
        'goodput' bytes delivered in order. Indexed by flow id."""
        column = metrics.RATE_COUNTERS[what]
        out = {}
        for fid in self.flows["flow"]:
            s = self.series[self.series["flow"] == fid]
            out[int(fid)] = metrics.window_rate_bps(s["t"], s[column], a, b)
        return pd.Series(out, name=f"{what}_bps_{a:g}_{b:g}", dtype=float)

    def recovery_ratio(self, before=(0.0, 50.0), after=(100.0, 150.0), what: str = "throughput") -> pd.Series:
        """Per flow: rate in `after` over rate in `before` (the high-speed study's
        throughput(100-150 s) / throughput(0-50 s))."""
        b = self.window_throughput(*before, what=what)
        a = self.window_throughput(*after, what=what)
        return pd.Series({k: metrics.recovery_ratio(a[k], b[k]) for k in b.index}, name="recovery_ratio", dtype=float)
