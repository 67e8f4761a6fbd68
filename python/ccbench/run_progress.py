"""The progress bar of `ccbench run`: simulated time out of the scenario's
duration, elapsed wall time and an ETA.

The core reports the simulated time every 65,536 events (the same check that
lets Ctrl-C stop a run); the bar appears only on a terminal and only once the
run has taken longer than `SHOW_AFTER_S`, so short runs and piped output stay
clean.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

#: Wall seconds before the bar appears.
SHOW_AFTER_S = 1.0


class RunProgress:
    """A callable for `_ccsim.run(..., progress=)`, used as a context manager
    (which removes the bar at the end). `clock` gives wall seconds."""

    def __init__(
        self,
        console: Console,
        duration_s: float,
        show_after_s: float = SHOW_AFTER_S,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.console, self.duration_s, self.show_after_s, self.clock = console, duration_s, show_after_s, clock
        self.started = clock()
        self.progress: Progress | None = None
        self.task = None

    def __enter__(self) -> RunProgress:
        return self

    def __exit__(self, *exc) -> None:
        if self.progress is not None:
            self.progress.stop()

    def __call__(self, simulated_s: float) -> None:
        if self.progress is None:
            if not self.console.is_terminal or self.clock() - self.started < self.show_after_s:
                return
            self.progress = Progress(
                TextColumn("simulating"),
                BarColumn(),
                TextColumn("{task.completed:.1f} of {task.total:g} s simulated"),
                TextColumn("{task.fields[elapsed]}"),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=self.console,
                transient=True,
            )
            self.progress.start()
            self.task = self.progress.add_task("run", total=self.duration_s, elapsed="")
        # Elapsed since the run started (the bar itself appears a second later).
        elapsed_s = int(self.clock() - self.started)
        elapsed = f"{elapsed_s // 3600}:{elapsed_s // 60 % 60:02d}:{elapsed_s % 60:02d}"
        self.progress.update(self.task, completed=min(simulated_s, self.duration_s), elapsed=elapsed)
