"""What a campaign directory holds is checked before it is used, and what goes
wrong with the disk under it is said in one line.

- A run file (runs/KEY.arrow) is read only through `verified_bytes`: its
  BLAKE2b must be the `result_hash` the index stored when the worker wrote
  it. A file that differs (a flipped byte), is cut short or cannot be read
  is a DamagedRun: a campaign runs it again, `ccbench report` refuses with
  the list of such files; its rows are never used.
- The index is checked when a campaign or a report opens it (SQLite's
  `PRAGMA quick_check`); a damaged index is refused with what can still be
  recovered and how.
- `explain` turns an sqlite3 or filesystem error (read-only mount, full
  disk, damaged header, missing file) into a CampaignDirectoryError: one
  line naming the path and what to do.
"""

from __future__ import annotations

import errno
import hashlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path


class CampaignDirectoryError(RuntimeError):
    """The directory holds another campaign, is not a campaign directory, or cannot be used
    (damaged, read-only, full): one line naming the path and what to do."""


def digest(data: bytes) -> str:
    """The hash a worker stores in the index for its run file (executors.execute)."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


@dataclass(frozen=True)
class DamagedRun:
    """A run file that cannot be used: its path and why."""

    path: Path
    reason: str

    def text(self) -> str:
        return f"{self.path}: {self.reason}"


class DamagedRunsError(CampaignDirectoryError):
    """Finished runs whose files cannot be used (`damaged`, a list of DamagedRun)."""

    def __init__(self, directory: Path, damaged: list[DamagedRun], advice: str):
        self.directory, self.damaged = directory, damaged
        more = f"; and {len(damaged) - 5} more" if len(damaged) > 5 else ""
        shown = "; ".join(d.text() for d in damaged[:5]) + more
        super().__init__(f"{len(damaged)} run file(s) of {directory} cannot be used: {shown}; {advice}")


def verified_bytes(path: Path, expected: str | None) -> bytes | DamagedRun:
    """The bytes of the run file at `path` if its hash is `expected`; else why not."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return DamagedRun(path, "missing")
    except OSError as e:
        return DamagedRun(path, f"cannot be read ({e.strerror})")
    if not expected:
        return DamagedRun(path, "the index holds no hash for it")
    if digest(data) != expected:
        return DamagedRun(path, f"its content does not match the hash in the index ({len(data)} bytes)")
    return data


def check_index(db: sqlite3.Connection, path: Path) -> None:
    """Raises CampaignDirectoryError if SQLite's quick_check finds the index at `path` damaged,
    saying what can be recovered."""
    try:
        problems = [row[0] for row in db.execute("PRAGMA quick_check(5)")]
    except sqlite3.DatabaseError as e:
        raise explain(e, path) from None
    if problems != ["ok"]:
        raise CampaignDirectoryError(_damaged_index(path, "; ".join(problems)[:300]))


def _damaged_index(path: Path, what: str) -> str:
    d = path.parent
    files = len(list((d / "runs").glob("*.arrow"))) if (d / "runs").is_dir() else 0
    return (
        f"{path} is damaged ({what}); the {files} run file(s) in {d / 'runs'} cannot be checked without it. "
        f"To recover: `sqlite3 {path} .recover | sqlite3 NEW.sqlite` may save the index (then replace it); "
        f"or move {d} away and run the campaign again into it, which runs every run again"
    )


#: The OS errors of a full disk or a read-only (or forbidden) place.
DISK_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM)
#: sqlite3 messages (lower case) and what they mean for a campaign directory.
_SQLITE_FULL = ("database or disk is full", "disk i/o error")
_SQLITE_READONLY = ("readonly database", "unable to open database file", "read-only")
_SQLITE_DAMAGED = ("file is not a database", "database disk image is malformed", "file is encrypted")


def explain(error: BaseException, path: Path | str):
    """A CampaignDirectoryError for an sqlite3 or OS error met using `path`
    (the index, or a file or folder of the directory): one line naming the
    path and what to do."""
    path = Path(getattr(error, "filename", None) or path)
    text = str(error).lower()
    code = getattr(error, "errno", None)
    if code in (errno.ENOSPC, errno.EDQUOT) or any(m in text for m in _SQLITE_FULL):
        what = "the disk is full; free some space and run the same command again to resume (finished runs are kept)"
    elif code in (errno.EROFS, errno.EACCES, errno.EPERM) or any(m in text for m in _SQLITE_READONLY):
        what = (
            "cannot be written (a read-only mount or no permission); copy the campaign directory to a writable "
            "place and run the command on the copy"
        )
    elif any(m in text for m in _SQLITE_DAMAGED):
        return CampaignDirectoryError(_damaged_index(path, str(error)))
    else:
        reason = getattr(error, "strerror", None) or str(error)
        what = f"{reason}; check the file system, then run the same command again to resume"
    return CampaignDirectoryError(f"{path}: {what}")
