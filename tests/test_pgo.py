"""scripts/install-pgo, the profile-guided build of the simulator core: the
profile its training runs write covers the core's event loop, and the core
built with that profile gives the default build's results bit for bit on
bench/result_digests.py's 22 varied scenarios.

Slow: three release builds of the core (instrumented, optimized, default),
kept in target/ for the next run. Needs rustup's llvm-tools component, which
the script adds (skipped without rustup, except under CI=true).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"


def llvm_profdata() -> Path:
    """rustc's own llvm-profdata, where the script finds it."""
    sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True, check=True).stdout
    host = re.search(r"^host: (\S+)", subprocess.run(["rustc", "-vV"], capture_output=True, text=True).stdout, re.M)
    return Path(sysroot.strip()) / "lib" / "rustlib" / host.group(1) / "bin" / "llvm-profdata"


def test_the_pgo_build_gives_the_default_builds_results(tmp_path, require_tool, bench_module):
    require_tool("rustup", install="https://rustup.rs: PGO needs rustup's llvm-tools component")
    script = subprocess.run(
        [str(ROOT / "scripts" / "install-pgo"), "--profile-only"],
        cwd=ROOT,
        env={**os.environ, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
    )
    assert script.returncode == 0, script.stderr
    profile = ROOT / "target" / "pgo" / "ccsim.profdata"
    assert f"profile: {profile}" in script.stderr

    # The training ran the event loop: its counters are in the profile, and not all zero.
    shown = subprocess.run(
        [str(llvm_profdata()), "show", "--function=World22run_unless_interrupted", str(profile)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert re.search(r"Functions shown: [1-9]", shown), shown
    assert int(re.search(r"Maximum function count: (\d+)", shown).group(1)) > 1000, shown

    optimized = bench_module("suite").build_pgo_speed_binary()
    default = tmp_path / "default.txt"
    digests = [sys.executable, str(BENCH / "result_digests.py")]
    subprocess.run([*digests, "--save", str(default)], cwd=ROOT, capture_output=True, check=True)
    same = subprocess.run(
        [*digests, "--binary", str(optimized), "--against", str(default)], cwd=ROOT, capture_output=True, text=True
    )
    assert same.returncode == 0, same.stdout + same.stderr
    count = len(bench_module("result_digests").scenarios())
    assert f"all {count} digests match" in same.stderr, same.stderr


def test_a_profile_older_than_the_sources_is_written_again(tmp_path, bench_module):
    """bench/suite.py --pgo built with whatever profile target/pgo held, so
    after a change to the core it measured a build whose changed functions
    rustc had left unoptimized ("hash mismatch")."""
    profile_is_current = bench_module("suite").profile_is_current
    sources = tmp_path / "src"
    (sources / "tcp").mkdir(parents=True)
    source, lock, profile = sources / "tcp" / "scoreboard.rs", tmp_path / "Cargo.lock", tmp_path / "ccsim.profdata"
    for f in (source, lock):
        f.write_text("x", encoding="utf-8")
        os.utime(f, (1000, 1000))
    assert not profile_is_current(profile, (sources, lock))
    profile.write_text("p", encoding="utf-8")
    os.utime(profile, (2000, 2000))
    assert profile_is_current(profile, (sources, lock))
    os.utime(source, (3000, 3000))
    assert not profile_is_current(profile, (sources, lock))
