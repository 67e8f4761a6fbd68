"""Where a campaign's runs execute: in this process (--jobs 1), a local
process pool (--jobs N, the default on all cores), or Ray (--executor ray).

Every executor runs the same `execute_batch` on batches of jobs (Batch). A worker
runs the simulator, writes the run's per-flow Arrow file into the campaign
directory itself (temporary file + rename) and returns only a small record
(status, hash of the file, worker, times) and the file's bytes, so the
driver assembles the tidy tables without reading every file back and is not
the bottleneck. The file's bytes depend only on the scenario and seed, so
the result never depends on where a run ran. On Ray
with --address, the campaign directory must be on a filesystem every node
sees (same path).
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ccbench.campaigns.spec import Run
    from ccbench.traces import Opportunities

EXECUTORS = ("local", "ray")
#: Most runs handed to one worker task: small enough that an interrupt loses little.
MAX_BATCH = 8
#: How long a Ray --address may take to accept a connection: a cluster's head answers in
#: milliseconds, and a remote host that drops the packets is given a few seconds.
ADDRESS_TIMEOUT_S = 5.0


#: How to install what --executor ray needs: the package's `ray` extra (pyproject.toml).
RAY_MISSING = "--executor ray: Ray is not installed; install the ray extra: pip install 'ccbench[ray]'"


class RayUnavailableError(ValueError):
    """--executor ray where Ray cannot run (not installed, or a ClusterAddressError),
    found before anything is written."""


class ClusterAddressError(RayUnavailableError):
    """A Ray --address where no cluster can be reached, found before anything is written."""


def check_ray(address: str | None) -> None:
    """Raises RayUnavailableError if Ray is not installed, or ClusterAddressError
    for an `address` where no cluster answers (check_address). Ray is imported
    here, as RayExecutor would import it once the campaign directory is written."""
    try:
        import ray  # noqa: F401
    except ImportError:
        raise RayUnavailableError(RAY_MISSING) from None
    if address:
        check_address(address)


def check_address(address: str, timeout_s: float = ADDRESS_TIMEOUT_S) -> None:
    """Raises ClusterAddressError unless something accepts a TCP connection at
    a HOST:PORT `address`: ray.init retries an unreachable cluster's GCS for
    minutes before it fails. "auto", "local" and SCHEME://... (Ray Client)
    are Ray's to resolve and are left to it."""
    from ccbench.limits import shown

    if address in ("auto", "local") or "://" in address:
        return
    host, sep, port = address.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")  # an IPv6 address: [::1]:6379
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ClusterAddressError(
            f"--address {shown(address)}: not an address of a Ray cluster; HOST:PORT of its head, auto or ray://HOST:PORT"
        )
    try:
        socket.create_connection((host, int(port)), timeout=timeout_s).close()
    except OSError as e:
        raise ClusterAddressError(
            f"--address {shown(address)}: no Ray cluster answers there ({e.strerror or e}); "
            "start one (ray start --head) or correct the address"
        ) from None


@dataclass(frozen=True)
class Job:
    key: str
    #: The run's normalized scenario, its traces as stand-ins for its batch's (scenario.dumps_sharing).
    scenario_json: str
    directory: str
    #: The tables saved in tables/KEY/ (none: the run's tables are not kept).
    keep_tables: tuple[str, ...]


@dataclass(frozen=True)
class Batch:
    """Runs handed to a worker at once: their jobs, and the JSON text of
    each trace their scenarios hold (a job's text holds `"shared:N"` for the
    N-th). A measured trace is megabytes: sent once a batch, not once a run,
    and decoded once per worker (scenario.decoded_trace)."""

    jobs: list[Job]
    traces: tuple[str, ...]

    @staticmethod
    def of(runs: Sequence[Run], directory: str | Path, keep_tables: Callable[[Run], tuple[str, ...]]) -> Batch:
        from ccbench.scenario import dumps_sharing

        shared: list[Opportunities] = []
        jobs = [Job(r.key, dumps_sharing(r.scenario, shared), str(directory), keep_tables(r)) for r in runs]
        return Batch(jobs, tuple(o.json for o in shared))


def execute(job: Job, shared: Sequence[Opportunities] = (), kernel: bool = False) -> dict:
    """Runs one job, whose traces are `shared` (its batch's, decoded), in the
    simulator or (`kernel`) through the real Linux kernel with
    ccbench.emulate; writes runs/KEY.arrow (and tables/KEY/ when kept);
    returns the record the index stores, with the file's bytes as `table`
    for the driver."""
    import pyarrow as pa

    from ccbench import _ccsim, run_files
    from ccbench.campaigns import integrity
    from ccbench.campaigns.storage import arrow_file_bytes, run_file, tables_dir
    from ccbench.file_modes import atomic_write_bytes
    from ccbench.run_result import Result
    from ccbench.scenario import loads_sharing

    started = time.time()
    record = {"key": job.key, "started_at": started, "worker": f"{socket.gethostname()}:{os.getpid()}"}
    try:
        # The job's scenario is normalized (the campaign checked it).
        scenario = loads_sharing(job.scenario_json, shared)
        if kernel:
            from ccbench.emulate.runner import emulate

            result = emulate(scenario)
        else:
            # The job's text goes to the core as it is: its stand-ins are
            # `shared`'s places, and each trace is read into the core once per
            # worker (Opportunities.core).
            # A packet capture (record.pcap) goes beside the run's full tables.
            # Only the kept tables are recorded: the summary this returns is the
            # same, and a run on a slow link spends most of its time sampling.
            raw = _ccsim.run(
                job.scenario_json,
                capture_dir=str(tables_dir(Path(job.directory), job.key)),
                tables=list(job.keep_tables),
                traces=[o.core for o in shared],
            )
            result = Result.from_raw(raw, scenario, _ccsim.__version__)
        if job.keep_tables:
            run_files.save(result, tables_dir(Path(job.directory), job.key), csv=False, tables=job.keep_tables)
        # The per-flow rows (the one DataFrame built: flow_summary's) and each
        # flow's link utilization, from the links' Arrow table.
        links = result.arrow("links")
        utilization = dict(zip(links["link"].to_pylist(), links["utilization"].to_pylist()))
        table = result.arrow("flows")
        table = table.append_column(
            "link_utilization", pa.array([float(utilization[link]) for link in table["link"].to_pylist()])
        )
        data = arrow_file_bytes(table)
        atomic_write_bytes(run_file(Path(job.directory), job.key), data)
        record.update(status="done", result_hash=integrity.digest(data), error=None)
        record["random_draws"] = result.meta.get("random_draws")  # None in kernel mode: not counted
        record["table"] = data
    except Exception as e:  # noqa: BLE001 - a failed run is recorded, the campaign goes on
        record.update(status="failed", result_hash=None, error=f"{type(e).__name__}: {e}")
    record["finished_at"] = time.time()
    record["wall_s"] = record["finished_at"] - started
    return record


def execute_batch(batch: Batch, kernel: bool = False) -> list[dict]:
    from ccbench.scenario import decoded_trace

    shared = [decoded_trace(t) for t in batch.traces]
    return [execute(j, shared, kernel) for j in batch.jobs]


#: prctl(2) option: the signal a process gets when its parent dies (Linux).
PR_SET_PDEATHSIG = 1


def _die_with_parent(parent_pid: int) -> None:
    """On Linux, a worker is killed when the driver dies (even by SIGKILL),
    instead of running on as an orphan; elsewhere nothing changes."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:  # the driver died before prctl took effect
        os._exit(1)


def _ignore_sigint(parent_pid: int | None = None) -> None:
    """Pool workers leave Ctrl-C to the driver, which stops them, and die with it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if parent_pid is not None:
        _die_with_parent(parent_pid)


def batch_size(pending: int, workers: int) -> int:
    return max(1, min(MAX_BATCH, pending // (max(1, workers) * 16)))


class SerialExecutor:
    """--jobs 1: every run in this process, one after the other."""

    workers = 1

    def run(self, batches: Iterator[Batch]) -> Iterator[list[dict]]:
        for b in batches:
            yield execute_batch(b)

    def stop(self) -> None:
        pass


class KernelExecutor(SerialExecutor):
    """`--mode emulate`: every run through the real kernel (ccbench.emulate),
    one after the other in this process, since runs share the machine's
    clock and network namespaces."""

    def run(self, batches: Iterator[Batch]) -> Iterator[list[dict]]:
        for b in batches:
            yield execute_batch(b, kernel=True)


class LocalExecutor:
    """A pool of `jobs` processes; at most two batches per process in flight.
    The pool lasts until `stop`, so the runs of a campaign's phases (each
    condition's first repetition, then the others: campaigns.repeats) go to
    the same workers: a Ctrl-C never lands while a second pool forks, which
    could leave a half-started worker and the driver waiting on it."""

    def __init__(self, jobs: int):
        self.workers = jobs
        self.pool: ProcessPoolExecutor | None = None

    def run(self, batches: Iterator[Batch]) -> Iterator[list[dict]]:
        if self.pool is None:
            self.pool = ProcessPoolExecutor(
                max_workers=self.workers, initializer=_ignore_sigint, initargs=(os.getpid(),)
            )
        in_flight = set()
        source = iter(batches)
        exhausted = False
        while True:
            while not exhausted and len(in_flight) < 2 * self.workers:
                b = next(source, None)
                if b is None:
                    exhausted = True
                else:
                    in_flight.add(self.pool.submit(execute_batch, b))
            if not in_flight:
                break
            done, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
            for f in done:
                yield f.result()

    def stop(self) -> None:
        """Stops the workers now (runs in flight are lost and rerun on resume).

        A worker stopped while it sends a result leaves half a message in the
        pool's result pipe, and one stopped while batches wait in the pool's
        call pipe leaves that pipe's feeder thread blocked on it. Either used
        to hang this process at exit, which joins the pool's manager thread
        (it waited forever for the rest of the message) and the feeder. With
        every worker gone, this process's end of the result pipe is closed,
        so the manager reads an end of file, takes the pool as broken and
        finishes, and the feeder is not waited for."""
        if self.pool is None:
            return
        pool, self.pool = self.pool, None
        # Read before shutdown, which drops the pool's references to them.
        processes = list((getattr(pool, "_processes", None) or {}).values())
        call_queue = getattr(pool, "_call_queue", None)
        writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
        pool.shutdown(wait=False, cancel_futures=True)
        for p in processes:
            if p.is_alive():
                p.terminate()
        for p in processes:
            p.join(timeout=10)
        if any(p.is_alive() for p in processes):
            return
        if call_queue is not None:
            call_queue.cancel_join_thread()
        if writer is not None:
            writer.close()


class RayExecutor:
    """Ray tasks of batches of runs. Without `address` a local Ray is started
    on loopback with `jobs` CPUs (and shut down at the end)."""

    def __init__(self, jobs: int, address: str | None):
        try:
            import ray
        except ImportError:
            raise RayUnavailableError(RAY_MISSING) from None
        self.ray = ray
        self.started_here = False
        if not ray.is_initialized():
            if address:
                ray.init(address=address, log_to_driver=False, configure_logging=False)
            else:
                ray.init(
                    num_cpus=jobs,
                    include_dashboard=False,
                    _node_ip_address="127.0.0.1",
                    log_to_driver=False,
                    configure_logging=False,
                )
            self.started_here = True
        self.workers = max(1, int(ray.cluster_resources().get("CPU", jobs)))
        self.remote = ray.remote(num_cpus=1, max_retries=0)(execute_batch)
        self.in_flight: list = []

    def run(self, batches: Iterator[Batch]) -> Iterator[list[dict]]:
        source = iter(batches)
        exhausted = False
        while True:
            while not exhausted and len(self.in_flight) < 2 * self.workers:
                b = next(source, None)
                if b is None:
                    exhausted = True
                else:
                    self.in_flight.append(self.remote.remote(b))
            if not self.in_flight:
                break
            done, self.in_flight = self.ray.wait(self.in_flight, num_returns=1)
            for ref in done:
                yield self.ray.get(ref)
        self.stop()

    def stop(self) -> None:
        for ref in self.in_flight:
            self.ray.cancel(ref, force=True)
        self.in_flight = []
        if self.started_here and self.ray.is_initialized():
            self.ray.shutdown()
            self.started_here = False


def make(executor: str, jobs: int, address: str | None = None):
    if executor == "ray":
        return RayExecutor(jobs, address)
    if executor == "kernel":  # --mode emulate, not a user's choice of executor
        return KernelExecutor()
    if executor != "local":
        raise ValueError(f"executor {executor!r}: one of {', '.join(EXECUTORS)}")
    return SerialExecutor() if jobs <= 1 else LocalExecutor(jobs)
