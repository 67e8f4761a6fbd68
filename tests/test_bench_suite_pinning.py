"""bench/suite.py pins each measured run to one CPU: the child starts with
only that CPU in its affinity, the thread that started it gets its own
affinity back, and with two CPUs the runs alongside ns-3 go to the other."""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"

SHOW_AFFINITY = [sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"]


def suite_module():
    sys.path.insert(0, str(BENCH))
    try:
        import suite
    finally:
        sys.path.remove(str(BENCH))
    return suite


def test_a_measured_run_is_pinned_and_the_caller_keeps_its_affinity():
    suite = suite_module()
    before = os.sched_getaffinity(0)
    cpu, other = suite.measurement_cpus()
    assert cpu == max(before)

    measured = suite.measure(SHOW_AFFINITY, use_perf=False, cpu=cpu)

    assert measured.stdout.strip() == f"[{cpu}]"
    assert os.sched_getaffinity(0) == before
    if len(before) > 1:
        assert other is not None and other != cpu
        assert suite.measure(SHOW_AFFINITY, use_perf=False, cpu=other).stdout.strip() == f"[{other}]"
    else:
        assert other is None


def test_without_a_cpu_the_run_keeps_the_callers_affinity():
    suite = suite_module()
    measured = suite.measure(SHOW_AFFINITY, use_perf=False)
    assert measured.stdout.strip() == str(sorted(os.sched_getaffinity(0)))
