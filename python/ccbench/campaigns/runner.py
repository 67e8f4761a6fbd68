"""The campaign driver: plans the runs, skips the finished ones, hands the
rest to an executor in batches, records each outcome in the index, and
assembles the tidy tables at the end.

While the workers run, the driver is idle: it can import, in a thread, the
modules its caller needs next (the report's: matplotlib, scipy), so that
time overlaps the runs instead of following them. The thread starts once
the worker processes exist (a fork while a thread imports could leave a
child with a held import lock) and is joined before `run` returns.

Interrupted (Ctrl-C), it stops the workers, marks the runs in flight as not
done and raises CampaignInterrupted; killed outright, the runs in flight stay
'running' in the index and run again next time. Either way, rerunning the
same command resumes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ccbench.campaigns import executors, integrity, repeats, spec, storage
from ccbench.campaigns.spec import Campaign, parse

#: What the report needs (matplotlib, scipy): the `preload` of a campaign whose report follows.
REPORT_MODULES = ("ccbench.report", "scipy.special")


class CampaignInterrupted(KeyboardInterrupt):
    """Ctrl-C during a campaign: the index is consistent; rerun to resume."""

    def __init__(self, done: int, total: int):
        self.done, self.total = done, total
        super().__init__(f"interrupted: {done} of {total} runs done")


@dataclass
class Progress:
    total: int
    done: int = 0
    failed: int = 0
    skipped: int = 0
    #: The keys of the repetitions written as copies of their condition's first run, which drew
    #: no random number (campaigns.repeats): done, but not run by any worker.
    copied: list[str] = dataclasses.field(default_factory=list)
    #: The keys of the runs this session runs (the others were done before).
    todo: tuple[str, ...] = ()
    #: The runs finished in this session, in the order their outcomes came:
    #: (key, worker, when it finished by its worker's clock).
    finished: list[tuple[str, str, float]] = dataclasses.field(default_factory=list)


@dataclass
class CampaignRun:
    """What `run` returns: the directory, the campaign, counts and timings."""

    directory: Path
    campaign: Campaign
    total: int
    skipped: int
    executed: int
    failed: int
    seconds: float
    driver_seconds: float
    #: Rounds of run_until_decided summed up in the counts (each raised the repetitions).
    rounds: int = 1
    #: Of the runs done now, those copied from their condition's first run (campaigns.repeats).
    copied: int = 0


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def default_out(campaign: Campaign) -> Path:
    stem = Path(campaign.source).stem if not campaign.source.startswith("<") else campaign.name
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in stem).strip("-") or "campaign"
    return Path("ccbench-out") / safe


def _import_in_background(modules: tuple[str, ...]) -> threading.Thread:
    """Imports `modules` in a daemon thread; returns it (to join). A failed
    import is left for the caller's own import to report."""

    def load():
        for m in modules:
            try:
                importlib.import_module(m)
            except Exception:  # noqa: BLE001 - the caller's own import raises it again
                continue

    thread = threading.Thread(target=load, name="ccbench-preload", daemon=True)
    thread.start()
    return thread


def _check_ray(executor: str, address: str | None) -> None:
    """Before the directory is touched: Ray not installed, or a Ray cluster that cannot be
    reached (executors.check_ray)."""
    if executor == "ray":
        executors.check_ray(address)


def run(
    campaign: Campaign | str | Path | Mapping[str, Any],
    out: str | Path | None = None,
    jobs: int | None = None,
    executor: str = "local",
    address: str | None = None,
    force: bool = False,
    on_progress: Callable[[Progress], None] = lambda p: None,
    preload: tuple[str, ...] = (),
) -> CampaignRun:
    """Runs (or resumes) a campaign into `out`; returns a CampaignRun. The
    tidy tables are written at the end. `preload`: modules to import while
    the workers run (see the module's doc). Raises CampaignFileError (bad
    file), CampaignDirectoryError (another campaign in `out`),
    executors.RayUnavailableError (Ray not installed, or a ClusterAddressError: a Ray
    `address` nothing answers at),
    CampaignInterrupted."""
    started = time.perf_counter()
    campaign = campaign if isinstance(campaign, Campaign) else parse(campaign)
    out = Path(out) if out is not None else default_out(campaign)
    _check_ray(executor, address)
    with storage.locked(out), _storage_faults(out):
        return _run(campaign, out, jobs, executor, address, force, on_progress, preload, started)


@contextlib.contextmanager
def _storage_faults(out: Path) -> Iterator[None]:
    """An sqlite3 or filesystem error of the campaign directory (full disk, read-only mount,
    damaged index) as one CampaignDirectoryError naming the path and what to do."""
    try:
        yield
    except (sqlite3.Error, OSError) as e:
        raise integrity.explain(e, out / storage.INDEX if isinstance(e, sqlite3.Error) else out) from None


def _redo_damaged(out: Path, index: storage.Index) -> None:
    """Finished runs whose files do not match their hash in the index (or cannot be read) run
    again: each is named on stderr, and never used."""
    frame = index.frame()
    damaged = storage.damaged_runs(out, frame[frame["status"] == "done"])
    for d in damaged:
        print(f"warning: {d.text()}; the run is run again", file=sys.stderr)
    index.redo([d.path.stem for d in damaged])


def _run(
    campaign: Campaign,
    out: Path,
    jobs: int | None,
    executor: str,
    address: str | None,
    force: bool,
    on_progress: Callable[[Progress], None],
    preload: tuple[str, ...],
    started: float,
) -> CampaignRun:
    """`run`, with the directory's lock held; `started`: perf_counter() when the call began."""
    from ccbench import _ccsim

    jobs = jobs or default_jobs()
    index = storage.prepare(out, campaign, force, _ccsim.__version__)
    _redo_damaged(out, index)
    driver_seconds = time.perf_counter() - started
    in_flight: dict[str, None] = {}
    fresh: dict = {}  # key -> the run's rows as returned by its worker
    ex = None
    preloading = None
    try:
        todo_keys = index.keys("pending")
        todo = [r for r in campaign.runs if r.key in todo_keys]
        progress = Progress(
            total=len(campaign.runs), skipped=len(campaign.runs) - len(todo), todo=tuple(r.key for r in todo)
        )
        progress.done = progress.skipped
        on_progress(progress)
        keep_all, keep_first = campaign.keep_tables == "all", campaign.keep_tables == "first"
        # A condition with no randomness runs once (campaigns.repeats): its first
        # repetition runs first, and the later ones wait to see whether it drew.
        first_of = repeats.first_runs(campaign.runs) if executor != "kernel" and not keep_all else {}
        later = [r for r in todo if first_of.get(r.key, r.key) != r.key]
        phases = [[r for r in todo if first_of.get(r.key, r.key) == r.key], later] if later else [todo]
        for phase, phase_runs in enumerate(phases):
            if phase == 1:  # the later repetitions: copies of first runs that drew nothing, the rest run
                copied = _copy_repetitions(out, phase_runs, first_of, index, fresh, progress)
                phase_runs = [r for r in phase_runs if r.key not in copied]
                on_progress(progress)
            if not phase_runs:
                continue
            ex = ex or executors.make(executor, jobs, address)
            size = executors.batch_size(len(phase_runs), ex.workers)

            def batches(phase_runs=phase_runs, size=size):
                nonlocal driver_seconds
                for i in range(0, len(phase_runs), size):
                    t0 = time.perf_counter()
                    chunk = phase_runs[i : i + size]
                    # In flight first: a Ctrl-C that lands while the index is
                    # being written must still find these runs to reset.
                    in_flight.update((r.key, None) for r in chunk)
                    index.mark_running([r.key for r in chunk])
                    batch = executors.Batch.of(
                        chunk, out, lambda r: campaign.kept_tables if keep_all or (keep_first and r.rep == 0) else ()
                    )
                    driver_seconds += time.perf_counter() - t0
                    yield batch

            for outcomes in ex.run(batches()):
                t0 = time.perf_counter()
                # The last phase's workers exist now: no fork follows in run (a fork while the
                # thread imports could leave a worker holding an import lock forever).
                if preload and preloading is None and phase == len(phases) - 1:
                    preloading = _import_in_background(preload)
                for o in outcomes:
                    table = o.pop("table", None)
                    if table is not None:
                        fresh[o["key"]] = storage.table_of_arrow_file(table)
                index.record(outcomes)
                for o in outcomes:
                    in_flight.pop(o["key"], None)
                    progress.done += 1
                    progress.failed += o["status"] == "failed"
                    progress.finished.append((o["key"], o["worker"], o["finished_at"]))
                driver_seconds += time.perf_counter() - t0
                on_progress(progress)
        t0 = time.perf_counter()
        flows, runs = storage.assemble(out, {f.name: list(f.levels) for f in campaign.factors}, fresh)
        storage.write_tidy(out, flows, runs)
        driver_seconds += time.perf_counter() - t0
    except KeyboardInterrupt:
        if ex is not None:
            ex.stop()
        index.mark_pending(list(in_flight))
        raise CampaignInterrupted(index.count("done"), len(campaign.runs)) from None
    finally:
        if ex is not None:
            ex.stop()
        index.close()
        if preloading is not None:
            preloading.join()
    return CampaignRun(
        directory=out,
        campaign=campaign,
        total=len(campaign.runs),
        skipped=progress.skipped,
        executed=len(todo) - len(progress.copied),
        failed=progress.failed,
        copied=len(progress.copied),
        seconds=time.perf_counter() - started,
        driver_seconds=driver_seconds,
    )


def _copy_repetitions(
    out: Path, runs: list, first_of: dict[str, str], index: storage.Index, fresh: dict, progress: Progress
) -> set[str]:
    """Writes each of `runs` whose condition's first run is done and drew no
    random number as a copy of it (campaigns.repeats), records them in the
    index at once, and returns their keys."""
    firsts = index.random_draws([first_of[r.key] for r in runs])
    sources: dict[str, bytes | None] = {}  # each first run's file, read and checked once
    outcomes = []
    for r in runs:
        first = first_of[r.key]
        draws, result_hash = firsts.get(first, (None, None))
        if draws != 0:
            continue
        if first not in sources:
            sources[first] = repeats.source(out, first, result_hash)
        if (data := sources[first]) is not None:
            o = repeats.copy(out, r.key, first, result_hash, data)
            o.pop("table")
            if first not in fresh:
                fresh[first] = storage.table_of_arrow_file(data)
            fresh[r.key] = fresh[first]
            outcomes.append(o)
    index.record(outcomes)
    progress.done += len(outcomes)
    progress.copied.extend(o["key"] for o in outcomes)
    return {o["key"] for o in outcomes}


def run_until_decided(
    raw: dict,
    source: str,
    text: str,
    folder: Path,
    out: str | Path | None = None,
    jobs: int | None = None,
    executor: str = "local",
    address: str | None = None,
    force: bool = False,
    max_reps: int = 12,
    on_round: Callable[[int], Callable[[Progress], None]] = lambda reps: lambda p: None,
    preload: tuple[str, ...] = (),
    parsed: spec.Campaign | None = None,
    allow_large: bool = False,
) -> tuple[CampaignRun, list, int]:
    """Runs a campaign (as read by spec.read; `parsed`, if the caller has
    parsed it already with these repetitions), then raises its repetitions
    while the analysis (the file's [analysis] settings) has a condition it
    cannot decide yet, to the number it estimates, at most `max_reps`. The
    file's text (and so the directory's campaign) stays the same; only the
    new repetitions run. `preload`: modules to import while the workers
    run, as `run` does. Returns the CampaignRun of all the rounds
    (`_over_rounds`), the conditions' analyses and the repetitions reached."""
    from ccbench.campaigns import analysis

    started = time.perf_counter()
    reps = int(raw.get("repetitions", 1))
    campaign = parsed or spec.parse_raw({**raw, "repetitions": reps}, source, text, folder, allow_large=allow_large)
    out = Path(out) if out is not None else default_out(campaign)
    _check_ray(executor, address)
    with storage.locked(out), _storage_faults(out):  # across the rounds
        rounds: list[CampaignRun] = []
        while True:
            rounds.append(
                _run(campaign, out, jobs, executor, address, force and not rounds, on_round(reps), preload, started)
            )
            started = time.perf_counter()
            data = storage.load(out)
            conf = campaign.analysis
            _, conditions = analysis.analyze(
                data.runs,
                data.factors,
                data.level_order(),
                conf.get("compare"),
                conf.get("objective", analysis.DEFAULT_OBJECTIVE),
                conf.get("margin", analysis.DEFAULT_MARGIN),
            )
            undecided = [c for c in conditions if c.undecided]  # a condition without a pick needs no more
            if not undecided or reps >= max_reps:
                return _over_rounds(rounds), conditions, reps
            # No estimate: with one repetition (no spread yet) try 3, else go to the cap.
            reps = min(max_reps, max(reps + 1, *(c.reps_needed or (3 if c.reps < 2 else max_reps) for c in undecided)))
            # The runs of the earlier repetitions are the same: only the new ones are planned.
            campaign = spec.parse_raw(
                {**raw, "repetitions": reps}, source, text, folder, planned=campaign.runs, allow_large=allow_large
            )


def _over_rounds(rounds: list[CampaignRun]) -> CampaignRun:
    """The rounds of run_until_decided as one CampaignRun: the last round's
    plan (total) and failures (a round reruns those of the round before),
    the runs done before the first round (skipped), every run executed in
    any round, and the time of all."""
    first, last = rounds[0], rounds[-1]
    return dataclasses.replace(
        last,
        skipped=first.skipped,
        executed=sum(r.executed for r in rounds),
        copied=sum(r.copied for r in rounds),
        seconds=sum(r.seconds for r in rounds),
        driver_seconds=sum(r.driver_seconds for r in rounds),
        rounds=len(rounds),
    )
