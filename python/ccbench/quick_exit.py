"""Ending the `ccbench` process without the interpreter's teardown.

At exit CPython frees every loaded module object by object: with pandas,
pyarrow and matplotlib loaded that takes about 0.3 s (a third of `ccbench
run examples/clean-path.toml`), to free memory the system takes back at
once anyway. `run` ends the process with os._exit instead, from an exit
handler it registers before the command starts. So the interpreter still
waits for the command's threads, and every exit handler registered since
(Ray's, multiprocessing's, weakref finalizers) runs first, handlers running
last-registered first; only the teardown after them is skipped. The
standard streams are flushed before the end, as the teardown would have.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
from collections.abc import Callable


def run(command: Callable[[], object]) -> None:
    """Calls `command`; if it ends with SystemExit (as a typer app always
    does), the process ends with its status once the exit handlers have run.
    Any other exception (a bug) propagates and the process exits the usual way."""
    status: list[int] = []
    atexit.register(_end, status)
    try:
        command()
    except SystemExit as e:
        status.append(exit_status(e.code))
        raise
    except BaseException:
        atexit.unregister(_end)
        raise


def exit_status(code: object) -> int:
    """The process's exit status for SystemExit(code), as Python gives it:
    None is 0, a whole number itself, anything else (a message) 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    return 1


def _end(status: list[int]) -> None:
    if not status:
        return
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed pipe: nothing more can be said
            stream.flush()
    os._exit(status[0])
