"""bench/versus.py compares two builds in adjacent pairs of runs: the order
alternates from pair to pair, each pair is kept as (this, other) whichever
ran first, and the ratio it prints is this over the other."""

import json
from pathlib import Path


def stand_in(tmp_path: Path, name: str, cpu_seconds: float, log: Path) -> Path:
    """A program that prints what the speed example prints, with a fixed
    CPU time, and notes each run in `log`."""
    line = {
        "events": 1000,
        "bottleneck": "downlink",
        "bottleneck_packets": 500,
        "cpu_seconds": cpu_seconds,
        "wall_seconds": cpu_seconds,
        "peak_rss_bytes": 1,
        "delivered_bytes": 1,
        "digest": f"digest-{name}",
    }
    program = tmp_path / name
    program.write_text(f"#!/bin/sh\necho {name} >> {log}\necho '{json.dumps(line)}'\n")
    program.chmod(0o755)
    return program


def test_pairs_alternate_their_order_and_the_ratio_is_this_over_the_other(tmp_path, bench_module):
    versus = bench_module("versus")
    log = tmp_path / "runs.log"
    this = stand_in(tmp_path, "this", 0.2, log)
    other = stand_in(tmp_path, "other", 0.25, log)

    runs = versus.paired_runs(str(tmp_path / "scenario.json"), this, other, 4)

    assert log.read_text().split() == ["this", "other", "other", "this", "this", "other", "other", "this"]
    assert [(a["digest"], b["digest"]) for a, b in runs] == [("digest-this", "digest-other")] * 4
    text = versus.report("(x) stand-ins", runs, (900, 1000), "REV")
    assert "CPU time this / REV: median 0.800 (q1 0.800, q3 0.800)" in text
    assert "2,500 bottleneck pkts/CPU s" in text
    assert "results: differ" in text
    assert "this 900 (1/event), REV 1,000: -10.0%" in text
