"""The modes of the files and directories ccbench writes: what open() and
mkdir() would give them (0666 and 0777 less the umask), so results are as
readable by others as any program's, even when written through temporary
files (mkstemp and mkdtemp make them 0600 and 0700)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def current_umask() -> int:
    """The process's umask, read from /proc where there is one, since reading
    it with os.umask means changing it for a moment (for every thread)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def file_mode() -> int:
    """The mode open() gives a new file: 0666 less the umask."""
    return 0o666 & ~current_umask()


def directory_mode() -> int:
    """The mode mkdir() gives a new directory: 0777 less the umask."""
    return 0o777 & ~current_umask()


def atomic_write_bytes(path: Path, data: bytes, fsync: bool = False) -> None:
    """Writes `data` to `path` through a temporary file in the same directory and
    a rename: readers see the old file or the new one, never half of one. The
    file gets the mode open() would give it (mkstemp's is 0600). With
    `fsync` the data also survives a power cut (slower: campaigns skip it)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, file_mode())
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
