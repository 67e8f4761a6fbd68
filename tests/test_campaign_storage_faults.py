"""A campaign directory's files are checked before they are used, and a fault
of the disk under it is one clean line (issue 52): a run file that does not
match the hash the index stored (a flipped byte, a truncated file) is named
and run again by the campaign, and refused by the report; a damaged index is
refused at open; a full disk and a read-only mount say what to do."""

from __future__ import annotations

import contextlib
import os
import shutil
import struct
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from ccbench.campaigns import storage
from ccbench.cli import app
from typer.testing import CliRunner

BASE = 'duration = "1s"\n[downlink]\nrate = "5Mbit"\ndelay = "10ms"\n[[flows]]\ncc = "reno"\n'
CAMPAIGN = 'base = "base.toml"\nkeep_tables = "none"\n[factors]\n"flows[0].cc" = ["reno", "cubic"]\n'


def _run(args: list[str]):
    return CliRunner().invoke(app, args, terminal_width=300)


def _one_error_line(result) -> str:
    assert "Traceback" not in result.output, result.output[-3000:]
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), result.output[-3000:]
    return lines[0]


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    """A finished campaign of two runs (run once; each test works on a copy)."""
    d = tmp_path_factory.mktemp("campaign")
    (d / "base.toml").write_text(BASE)
    (d / "c.toml").write_text(CAMPAIGN)
    result = _run(["campaign", str(d / "c.toml"), "--out", str(d / "out"), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    return d


@pytest.fixture
def campaign(finished, tmp_path) -> Path:
    shutil.copytree(finished, tmp_path / "c")
    return tmp_path / "c"


def _run_files(out: Path) -> list[Path]:
    return sorted((out / "runs").glob("*.arrow"))


def _flip_goodput(path: Path) -> float:
    """Changes the first flow's goodput in a run file, leaving a valid Arrow file; returns the value."""
    table = storage.table_of_arrow_file(path.read_bytes())
    value = table["goodput_bps"][0].as_py()
    data = path.read_bytes()
    at = data.index(struct.pack("<d", value))
    path.write_bytes(data[:at] + struct.pack("<d", value * 1.05) + data[at + 8 :])
    assert storage.table_of_arrow_file(path.read_bytes())["goodput_bps"][0].as_py() != value
    return value


def _goodputs(out: Path) -> list[float]:
    return sorted(pq.read_table(out / "flows.parquet")["goodput_bps"].to_pylist())


def test_a_flipped_byte_in_a_run_file_is_run_again_by_the_campaign(campaign):
    out = campaign / "out"
    before = _goodputs(out)
    _flip_goodput(_run_files(out)[0])
    for name in ("flows.parquet", "runs.parquet"):
        (out / name).unlink()
    result = _run(["campaign", str(campaign / "c.toml"), "--out", str(out), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert f"{_run_files(out)[0].name}: its content does not match the hash in the index" in result.output
    assert "1 run now, 1 already done" in result.output
    assert _goodputs(out) == before


def test_the_report_refuses_a_run_file_that_does_not_match_its_hash(campaign, runner):
    out = campaign / "out"
    path = _run_files(out)[0]
    _flip_goodput(path)
    (out / "flows.parquet").unlink()  # the tidy tables are rebuilt from the run files
    line = _one_error_line(_run(["report", str(out)]))
    assert f"{path}: its content does not match the hash in the index" in line
    assert "run the campaign again" in line


def test_tidy_tables_changed_after_they_were_written_are_not_used(campaign):
    out = campaign / "out"
    path = _run_files(out)[0]
    _flip_goodput(path)
    shutil.copy(out / "runs.parquet", out / "flows.parquet")  # not the tables the campaign wrote
    line = _one_error_line(_run(["report", str(out)]))
    assert path.name in line


def test_a_truncated_run_file_is_named_run_again_and_refused_by_the_report(campaign):
    out = campaign / "out"
    path = _run_files(out)[0]
    path.write_bytes(path.read_bytes()[:100])
    (out / "runs.parquet").unlink()
    assert path.name in _one_error_line(_run(["report", str(out)]))
    result = _run(["campaign", str(campaign / "c.toml"), "--out", str(out), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert f"warning: {path}: its content does not match" in result.output
    assert (out / "report.html").exists()


def test_a_missing_run_file_is_run_again(campaign):
    out = campaign / "out"
    path = _run_files(out)[1]
    path.unlink()
    result = _run(["campaign", str(campaign / "c.toml"), "--out", str(out), "--jobs", "1"])
    assert result.exit_code == 0 and f"{path}: missing" in result.output, result.output
    assert path.exists()


def _damage_a_page(index: Path) -> None:
    """Overwrites the b-tree page header of the index's runs table (page 3 on): quick_check fails."""
    data = bytearray(index.read_bytes())
    page = int.from_bytes(data[16:18], "big") or 65536
    for p in range(2, len(data) // page):
        data[p * page : p * page + 8] = b"\x0d\xff\xff\xff\xff\xff\xff\xff"
    index.write_bytes(bytes(data))


def _checkpoint(out: Path) -> None:
    import sqlite3

    with contextlib.closing(sqlite3.connect(out / storage.INDEX)) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def test_a_damaged_index_is_refused_at_open_with_what_can_be_recovered(campaign):
    out = campaign / "out"
    _checkpoint(out)
    _damage_a_page(out / storage.INDEX)
    for args in (["report", str(out)], ["campaign", str(campaign / "c.toml"), "--out", str(out)]):
        line = _one_error_line(_run(args))
        assert f"{out / storage.INDEX} is damaged" in line and "2 run file(s)" in line and ".recover" in line


def test_a_damaged_index_header_is_one_line(campaign):
    out = campaign / "out"
    _checkpoint(out)
    index = out / storage.INDEX
    data = bytearray(index.read_bytes())
    data[0:16] = b"not a database!!"
    index.write_bytes(bytes(data))
    for args in (["report", str(out)], ["campaign", str(campaign / "c.toml"), "--out", str(out)]):
        line = _one_error_line(_run(args))
        assert str(index) in line and "damaged" in line


# The faults of the file system itself: a tmpfs mounted (and remounted read-only) for the test.
needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("mount") is None, reason="mounts a tmpfs: needs root and mount"
)


@contextlib.contextmanager
def _tmpfs(path: Path, size: str):
    path.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {r.stderr.decode().strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


@needs_root
def test_a_campaign_on_a_read_only_mount_is_one_line(finished, tmp_path):
    with _tmpfs(tmp_path / "mnt", "20m") as mnt:
        shutil.copytree(finished, mnt / "c")
        subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True)
        for args in (
            ["campaign", str(mnt / "c" / "c.toml"), "--out", str(mnt / "c" / "out")],
            ["report", str(mnt / "c" / "out")],
        ):
            line = _one_error_line(_run(args))
            assert str(mnt / "c") in line and "read-only" in line and "copy the campaign directory" in line


@needs_root
def test_a_full_disk_is_one_line_and_the_campaign_resumes_after_space_is_freed(finished, tmp_path):
    with _tmpfs(tmp_path / "mnt", "4m") as mnt:
        shutil.copytree(finished, mnt / "c")
        out = mnt / "c" / "out"
        (mnt / "c" / "c.toml").write_text(CAMPAIGN.replace("[factors]", "repetitions = 3\n[factors]"))
        filler = mnt / "filler"
        with open(filler, "wb") as f, contextlib.suppress(OSError):
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        args = ["campaign", str(mnt / "c" / "c.toml"), "--out", str(out), "--force", "--jobs", "1"]
        line = _one_error_line(_run(args))
        assert "the disk is full; free some space and run the same command again" in line
        filler.unlink()
        result = _run(args)
        assert result.exit_code == 0, result.output
        assert pq.read_table(out / "runs.parquet").num_rows == 6
