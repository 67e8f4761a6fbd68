"""A condition with no randomness runs once.

The simulator counts the random numbers a run draws (`random_draws`, every
stream, the building of the network included). A run that drew none gave
the result every other seed would give, bit for bit: the path, its queues
and its flows have no random part. So the runner first runs the first
repetition of each condition, and a later repetition of a condition whose
first run drew nothing is not simulated: its run file is a copy of the first
run's (the same bytes and hash; its seed and repetition are the index's),
and the index names it as such (worker "copy of KEY: no random draws").

Runs go through the simulator every time when the campaign runs in kernel
mode (the real kernel's randomness is not counted), when it keeps every
run's tables (each run's own files hold its seed), when they write a
packet capture of their own (record.pcap), or when the first run's file
cannot be read back whole.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from ccbench.campaigns import integrity
from ccbench.campaigns.spec import Run
from ccbench.campaigns.storage import run_file

#: The index's `worker` of a copied run; `{key}` is the run it copies.
COPY_WORKER = "copy of {key}: no random draws"


def is_copy(worker: object) -> bool:
    """Whether an index row's `worker` names a copy (COPY_WORKER)."""
    prefix, suffix = COPY_WORKER.split("{key}")
    return isinstance(worker, str) and worker.startswith(prefix) and worker.endswith(suffix)


def writes_own_files(run: Run) -> bool:
    """Whether the run writes files of its own beside its run file (a packet
    capture, record.pcap): a copy would not have them, so it runs."""
    record = run.scenario.get("record") or {}
    return bool(record.get("pcap"))


def first_runs(runs: Sequence[Run]) -> dict[str, str]:
    """Run key -> the key of its condition's first run (the lowest
    repetition among the runs whose scenarios differ only in their seed),
    for the runs a copy may stand for (not writes_own_files)."""
    first: dict[str, str] = {}
    out: dict[str, str] = {}
    for r in sorted(runs, key=lambda r: r.rep):
        if not writes_own_files(r):
            out[r.key] = first.setdefault(r.condition_hash, r.key)
    return out


def source(directory: Path, key: str, result_hash: str) -> bytes | None:
    """Run `key`'s file, when it is the one the index vouches for (`result_hash`); else None."""
    try:
        data = run_file(directory, key).read_bytes()
    except OSError:
        return None
    return data if integrity.digest(data) == result_hash else None


def copy(directory: Path, key: str, source_key: str, source_hash: str, data: bytes | None = None) -> dict | None:
    """Writes run `key`'s file as a copy of run `source_key`'s, whose index
    hash is `source_hash` (`data`: its bytes, when the caller has read them
    with `source`), and returns the outcome the index records (with the
    bytes as `table`, as a worker returns them); None when the source file
    is missing or not the one the index vouches for (then the run runs)."""
    from ccbench.file_modes import atomic_write_bytes

    data = data if data is not None else source(directory, source_key, source_hash)
    if data is None:
        return None
    atomic_write_bytes(run_file(directory, key), data)
    now = time.time()
    return {
        "key": key,
        "status": "done",
        "started_at": now,
        "finished_at": now,
        "wall_s": 0.0,
        "worker": COPY_WORKER.format(key=source_key),
        "result_hash": source_hash,
        "error": None,
        "random_draws": 0,
        "table": data,
    }
