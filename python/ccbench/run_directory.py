"""The output directory of `ccbench run`: never mixed, never half-written.

A directory that is not empty is refused; `force` replaces one that holds
another run's results (its meta.json), never a directory of other files (the
scenario itself may be in it) nor the current directory or one holding it;
while a run writes, a lock (`.NAME.lock` beside the directory, removed after,
ccbench.directory_lock) refuses a second run into the same directory; everything
(tables, plots, the packet capture) is written into a temporary sibling
(`.NAME.*.partial`) that is renamed into place only when complete, so a run
that fails or is interrupted leaves the old directory as it was and writes
nothing. The directory and its files get the modes mkdir() and open() would
give them (the umask decides, as for any program).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ccbench import directory_lock
from ccbench.file_modes import directory_mode
from ccbench.limits import shown


class OutputDirectoryError(Exception):
    """An output directory that cannot be used; the message says why."""


def _holds_a_run(out: Path) -> bool:
    return (out / "meta.json").exists()


@contextlib.contextmanager
def staged(out: str | Path, force: bool = False) -> Iterator[Path]:
    """Yields a temporary directory to write a run into; on success it
    replaces `out` (created with its parents if needed). Raises
    OutputDirectoryError before anything is written if `out` cannot be used."""
    name = shown(str(out))
    try:
        out = Path(out).resolve()
        if out.exists() and not out.is_dir():
            raise OutputDirectoryError(f"{name} exists and is not a directory")
        if out == Path.cwd() or out in Path.cwd().parents:
            raise OutputDirectoryError(f"{name} is the current directory or holds it; choose another directory")
        if out.is_dir() and any(out.iterdir()):
            if not force:
                holds = "another run" if _holds_a_run(out) else "other files"
                raise OutputDirectoryError(f"{name} is not empty (it holds {holds}); --force replaces it")
            if not _holds_a_run(out):
                raise OutputDirectoryError(
                    f"{name} holds other files, not a run's results; --force replaces only a run's directory"
                )
        lock = directory_lock.acquire(out)
    except directory_lock.Busy:
        raise OutputDirectoryError(f"another ccbench run is writing to {name}") from None
    except OSError as e:
        raise OutputDirectoryError(f"cannot use the output directory {name}: {e.strerror}") from None
    try:
        try:
            stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
            # mkdtemp's 0700 would become the run directory's mode.
            os.chmod(stage, directory_mode())
        except OSError as e:
            raise OutputDirectoryError(f"cannot write in {shown(str(out.parent))}: {e.strerror}") from None
        try:
            yield stage
            _replace(stage, out)
        finally:
            shutil.rmtree(stage, ignore_errors=True)
    finally:
        directory_lock.release(out, lock)


def _replace(stage: Path, out: Path) -> None:
    """Moves the finished `stage` to `out`; an existing `out` (empty, or
    replaced with --force) is moved aside first and removed after."""
    old = None
    if out.is_dir():
        if any(out.iterdir()):
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=out.parent))
            os.replace(out, old / "run")
        else:
            out.rmdir()
    os.replace(stage, out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
