"""ccbench.quick_exit: the `ccbench` process ends without the interpreter's
teardown of its modules, after everything a normal exit does before it."""

from __future__ import annotations

import subprocess
import sys

import pytest
from ccbench.quick_exit import exit_status

#: A command as `ccbench` runs one: an exit handler registered while it runs,
#: a thread still at work when it returns, a megabyte on a piped stdout, then
#: SystemExit(argv[1]) or a bug. A module-level object says when the
#: interpreter's teardown frees it.
SCRIPT = """
import atexit, sys, threading, time
from ccbench import quick_exit

class Teardown:
    def __del__(self):
        print("teardown ran", flush=True)

KEPT = Teardown()

def command():
    atexit.register(lambda: print("handler ran"))
    def late():
        time.sleep(0.3)
        print("thread done")
    threading.Thread(target=late).start()
    sys.stdout.write("x" * 1_000_000 + "\\n")
    if sys.argv[1] == "bug":
        raise RuntimeError("a bug")
    raise SystemExit(None if sys.argv[1] == "none" else int(sys.argv[1]))

quick_exit.run(command)
"""


def run(tmp_path, argument: str) -> subprocess.CompletedProcess:
    script = tmp_path / "command.py"
    script.write_text(SCRIPT)
    return subprocess.run([sys.executable, str(script), argument], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(("argument", "status"), [("none", 0), ("0", 0), ("3", 3), ("130", 130)])
def test_the_process_ends_with_the_commands_status_after_its_threads_and_handlers(tmp_path, argument, status):
    done = run(tmp_path, argument)
    assert done.returncode == status, done.stderr
    first, *rest = done.stdout.split("\n")
    assert first == "x" * 1_000_000  # flushed before the end
    assert rest == ["thread done", "handler ran", ""]  # no "teardown ran": skipped


def test_a_bug_exits_the_usual_way_with_its_traceback(tmp_path):
    done = run(tmp_path, "bug")
    assert done.returncode == 1
    assert done.stderr.rstrip().endswith("RuntimeError: a bug")
    assert done.stdout.split("\n")[1:] == ["thread done", "handler ran", "teardown ran", ""]


def test_exit_status_is_pythons():
    assert [exit_status(c) for c in (None, 0, 2, 130, "a message", True)] == [0, 0, 2, 130, 1, 1]
