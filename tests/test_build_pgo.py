"""scripts/build-pgo, the profile-guided build: its profile step is run for
real (an instrumented build of crates/ccsim/examples/pgo_train.rs, the
training run, llvm-profdata's merge), and the profile is checked to count the
simulator's hot path and every congestion control (an algorithm the training
left out would be compiled as cold code, slower than without PGO): the
training run's log names each with the events it simulated.

That a PGO build gives the same results bit for bit is checked where it is
cheap to build both: `python3 bench/result_digests.py --pgo --against FILE`."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def profdata_tool() -> str:
    """rustup's llvm-profdata, which build-pgo adds (the one matching rustc's LLVM)."""
    sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True, check=True).stdout
    host = re.search(r"^host: (\S+)", subprocess.run(["rustc", "-vV"], capture_output=True, text=True).stdout, re.M)
    return str(Path(sysroot.strip()) / "lib" / "rustlib" / host.group(1) / "bin" / "llvm-profdata")


def counted_functions(tool: str, profile: str, pattern: str) -> dict[str, int]:
    """Each profiled function whose mangled name contains `pattern`, with the
    sum of its block counts."""
    shown = subprocess.run(
        [tool, "show", "--counts", f"--function={pattern}", profile], capture_output=True, text=True, check=True
    ).stdout
    counts = {}
    for name, blocks in re.findall(r"^  (\S+):\n(?:    .*\n)*?    Block counts: \[([^\]]*)\]", shown, re.M):
        counts[name] = sum(int(b) for b in blocks.split(",") if b.strip())
    return counts


def test_profile_counts_the_hot_path_and_every_algorithm():
    if os.environ.get("CI", "").lower() != "true" and not Path(profdata_tool()).exists():
        pytest.skip("needs rustup's llvm-tools component (rustup component add llvm-tools)")
    proc = subprocess.run(
        [str(ROOT / "scripts" / "build-pgo"), "--profile-only"], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    profile = proc.stdout.strip().splitlines()[-1]
    assert Path(profile).stat().st_size > 0

    tool = profdata_tool()
    on_ack = counted_functions(tool, profile, "Sender6on_ack")
    assert on_ack and max(on_ack.values()) > 100_000, on_ack

    # Every algorithm trained (small hooks are inlined before counting, so the
    # log of the training run says it, not the hooks' own counts).
    from ccbench import _ccsim

    trained = {}
    for line in (Path(profile).parent / "training.log").read_text().splitlines():
        name, _, rest = line.partition(" ")
        trained.setdefault(name, 0)
        trained[name] += int(rest.split()[1]) if rest.split()[0] in ("clean", "lossy") else 0
    untrained = [a["name"] for a in _ccsim.algorithms() if not trained.get(a["name"])]
    assert not untrained, f"algorithms the training run never ran: {untrained}"
