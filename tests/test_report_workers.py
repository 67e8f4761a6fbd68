"""No orphans (issue 52): the processes that draw a campaign report's figures
die with the process that started them, even by kill -9, as the workers of
a campaign's runs do (executors._die_with_parent)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time


def test_figure_workers_die_with_the_report(tmp_path):
    """A figure process of `ccbench report` is killed with its parent (kill -9), as a run worker is."""
    script = (
        "import os, sys, time\n"
        "from concurrent.futures import ProcessPoolExecutor\n"
        "from ccbench.campaigns import report\n"
        "pool = ProcessPoolExecutor(1, initializer=report._use_campaign, initargs=(None, os.getpid()))\n"
        "pool.submit(time.sleep, 600)\n"
        "while not pool._processes: time.sleep(0.05)\n"
        "time.sleep(1)\n"
        "print(*pool._processes, flush=True)\n"
        "time.sleep(600)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    worker = int(parent.stdout.readline())
    assert _alive(worker), "the figure worker did not start"
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and _alive(worker):
        time.sleep(0.1)
    alive = _alive(worker)
    if alive:
        os.kill(worker, signal.SIGKILL)
    assert not alive, "the figure worker outlived its parent"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False
