"""The lock of an output directory, so two ccbench processes never write
into one directory at once (`ccbench run`: ccbench.run_directory; a campaign:
ccbench.campaigns.storage): an exclusive flock on `.NAME.lock` beside the
directory. The kernel releases it when its descriptor is closed or the
process ends, even by kill -9. The lock file stays (removing it would let a
waiting process lock a deleted file).
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


class Busy(Exception):
    """Another process holds the directory's lock."""


def acquire(directory: Path) -> int:
    """Locks `directory` (a resolved path; its parent is created if needed)
    without waiting; returns the lock file's descriptor: os.close releases it.
    Raises Busy if another process holds the lock, OSError if the lock file
    cannot be made."""
    directory.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(directory.parent / f".{directory.name}.lock", os.O_CREAT | os.O_RDWR, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise Busy(str(directory)) from None
    except OSError:
        os.close(fd)
        raise
    return fd
