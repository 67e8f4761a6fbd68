"""The lock of an output directory, so two ccbench processes never write
into one directory at once (`ccbench run`: ccbench.run_directory; a campaign:
ccbench.campaigns.storage): an exclusive flock on `.NAME.lock` beside the
directory. The kernel releases it when its descriptor is closed or the
process ends, even by kill -9.

`release` removes the lock file while the lock is still held, so a finished
output leaves no empty `.NAME.lock` beside it. That is safe because `acquire`
checks, once it holds the lock, that the file it locked is still the one at
the path: a process that opened the file just before it was removed locks a
deleted file, sees so, and tries again with a new one. A process killed
while it holds the lock leaves the file (the next one locks and removes it).
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


class Busy(Exception):
    """Another process holds the directory's lock."""


def _lock_path(directory: Path) -> Path:
    return directory.parent / f".{directory.name}.lock"


def acquire(directory: Path) -> int:
    """Locks `directory` (a resolved path; its parent is created if needed)
    without waiting; returns the lock file's descriptor, to be given back
    with `release`. Raises Busy if another process holds the lock, OSError if
    the lock file cannot be made."""
    directory.parent.mkdir(parents=True, exist_ok=True)
    path = _lock_path(directory)
    while True:
        fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise Busy(str(directory)) from None
        except OSError:
            os.close(fd)
            raise
        try:
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)  # locked a file its holder removed on release: lock the new one


def release(directory: Path, fd: int) -> None:
    """Removes the lock file and releases the lock taken by `acquire`."""
    try:
        os.unlink(_lock_path(directory))
    except OSError:
        pass  # already gone, or a directory that cannot be written now: the lock is released all the same
    os.close(fd)
