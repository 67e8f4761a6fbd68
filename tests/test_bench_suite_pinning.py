"""bench/suite.py pins each measured run to one CPU: the child starts with
only that CPU in its affinity, the thread that started it gets its own
affinity back, and with two CPUs the runs alongside ns-3 go to the other."""

import os
import sys

SHOW_AFFINITY = [sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"]


def test_a_measured_run_is_pinned_and_the_caller_keeps_its_affinity(bench_module):
    suite = bench_module("suite")
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


def test_without_a_cpu_the_run_keeps_the_callers_affinity(bench_module):
    suite = bench_module("suite")
    measured = suite.measure(SHOW_AFFINITY, use_perf=False)
    assert measured.stdout.strip() == str(sorted(os.sched_getaffinity(0)))
