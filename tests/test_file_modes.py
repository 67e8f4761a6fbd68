"""Files and directories ccbench writes get the modes open() and mkdir() would
give them (0666 and 0777 less the umask), so others can read results."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from ccbench import file_modes
from ccbench.cli import app

SCENARIO = """name = "modes"
duration = "1s"
[downlink]
rate = "2Mbit"
delay = "10ms"
[[flows]]
cc = "reno"
[record.pcap]
path = "capture.pcap"
"""


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask():
    """Sets the umask for one test and restores it after."""
    old = os.umask(0o022)
    os.umask(old)
    yield lambda mask: os.umask(mask)
    os.umask(old)


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o077])
def test_a_run_directory_and_its_files_follow_the_umask(tmp_path, runner, umask, mask):
    umask(mask)
    (tmp_path / "s.toml").write_text(SCENARIO)
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(tmp_path / "s.toml"), "--out", str(out), "--plots"])
    assert result.exit_code == 0, result.output
    assert mode(out) == 0o777 & ~mask
    files = [p for p in out.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {"meta.json", "flows.parquet", "flows.csv", "cwnd.png", "capture.pcap"}
    assert {p.name: mode(p) for p in files} == {p.name: 0o666 & ~mask for p in files}


def test_the_umask_is_read_without_being_changed(umask):
    umask(0o027)
    assert file_modes.current_umask() == 0o027
    assert file_modes.file_mode() == 0o640 and file_modes.directory_mode() == 0o750
    assert os.umask(0o027) == 0o027


def test_an_atomically_written_file_replaces_with_the_umask_mode(tmp_path, umask):
    umask(0o002)
    target = tmp_path / "x.bin"
    target.write_bytes(b"old")
    os.chmod(target, 0o600)
    file_modes.atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"new" and mode(target) == 0o664
    assert [p.name for p in tmp_path.iterdir()] == ["x.bin"]


def test_campaign_files_are_readable_by_others(quick_campaign):
    out, _, _ = quick_campaign
    expected = file_modes.file_mode()
    files = [p for p in out.rglob("*") if p.is_file() and not p.name.startswith("index.sqlite")]
    assert any(p.name == "report.html" for p in files) and any(p.suffix == ".parquet" for p in files)
    assert {str(p.relative_to(out)): mode(p) for p in files} == {str(p.relative_to(out)): expected for p in files}


def test_a_released_lock_leaves_no_file_and_a_stale_holder_cannot_share_it(tmp_path):
    """Every finished output left a zero-byte .NAME.lock beside it. Now the
    file goes with the lock; one who opened it just before it went must not
    hold a lock on the deleted file while another locks the new one."""
    import fcntl
    import os

    from ccbench import directory_lock

    out = tmp_path / "out"
    fd = directory_lock.acquire(out)
    stale = os.open(tmp_path / ".out.lock", os.O_RDWR)  # opened while held, locked after release
    directory_lock.release(out, fd)
    assert not (tmp_path / ".out.lock").exists()
    fcntl.flock(stale, fcntl.LOCK_EX | fcntl.LOCK_NB)  # succeeds: it locks the removed file
    fd = directory_lock.acquire(out)  # a new file: the stale lock does not hold it
    try:
        assert os.fstat(fd).st_ino != os.fstat(stale).st_ino
        with pytest.raises(directory_lock.Busy):
            directory_lock.acquire(out)
    finally:
        directory_lock.release(out, fd)
        os.close(stale)
    assert list(tmp_path.iterdir()) == []
