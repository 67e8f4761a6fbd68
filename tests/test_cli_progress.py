"""The progress of `ccbench run`: the core reports simulated time to a
callback; the bar appears only on a terminal and only after a second."""

import io
import json

import pytest
from ccbench import _ccsim
from ccbench.run_progress import RunProgress
from rich.console import Console

# About 400,000 events: several reports (one every 65,536 events).
SCENARIO = {"duration": 5, "downlink": {"rate": "1Gbit", "delay": "5ms"}, "flows": [{"cc": "cubic"}]}


def test_the_core_reports_increasing_simulated_time_within_the_run():
    reached = []
    raw = _ccsim.run(json.dumps(SCENARIO), progress=reached.append)
    assert raw["duration_s"] == 5
    assert len(reached) >= 2
    assert reached == sorted(reached) and 0 < reached[0] and reached[-1] <= 5


def test_an_exception_in_the_progress_callback_stops_the_run():
    class Stop(Exception):
        pass

    def stop(_simulated_s):
        raise Stop

    with pytest.raises(Stop):
        _ccsim.run(json.dumps(SCENARIO), progress=stop)


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def _terminal() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, width=100), out


def test_the_bar_appears_after_a_second_with_simulated_time_and_eta():
    console, out = _terminal()
    clock = Clock()
    with RunProgress(console, 20.0, clock=clock) as progress:
        progress(2.0)
        assert progress.progress is None and out.getvalue() == ""
        clock.now += 1.5
        progress(5.0)
        assert progress.progress is not None
        progress.progress.refresh()
        shown = out.getvalue()
    assert "5.0 of 20 s simulated" in shown and "ETA" in shown
    assert "0:00:01" in shown  # elapsed since the run started, not since the bar appeared


def test_no_bar_when_not_on_a_terminal():
    out = io.StringIO()
    clock = Clock()
    with RunProgress(Console(file=out, force_terminal=False), 20.0, clock=clock) as progress:
        clock.now += 10
        progress(5.0)
        assert progress.progress is None
    assert out.getvalue() == ""


def test_a_campaign_bar_is_redrawn_as_it_goes_on_a_terminal_only():
    """To a pipe, a file or with --quiet the bar is printed once at its end (or
    not at all): no refresh thread building it ten times a second meanwhile."""
    from ccbench.cli.common import _animated

    assert _animated(Console(file=io.StringIO(), force_terminal=True))
    assert not _animated(Console(file=io.StringIO()))
    assert not _animated(Console(file=io.StringIO(), force_terminal=True, quiet=True))


def test_a_campaign_bar_shows_the_time_its_runs_need_once_measured():
    """The ETA of `ccbench study wan` came from the count of runs done, as if
    every run cost the same, while its jittered 2000 s runs come last: the bar
    now shows campaigns.estimate's time left (the task's left_s) once it is
    measured, rich's own ETA before."""
    from ccbench.cli.campaign import TimeLeftColumn
    from rich.progress import Progress

    progress = Progress(TimeLeftColumn(), console=Console(file=io.StringIO(), width=40))
    task = progress.add_task("runs", total=360, left_s=None)
    progress.update(task, completed=180)
    column = TimeLeftColumn()
    assert column.render(progress.tasks[0]).plain == "-:--:--"  # rich's: no speed measured by it yet
    progress.update(task, left_s=3725.6)
    assert column.render(progress.tasks[0]).plain == "1:02:05"
