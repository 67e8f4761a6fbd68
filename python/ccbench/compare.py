"""`ccbench compare`: the shipped campaign file campaigns/compare.toml (every
algorithm over four network conditions) run by the campaign engine, with the
command's options applied to it: the simulator's full list of algorithms
(so a new algorithm joins automatically) or --algorithms, --reps, --seed and
--quick (every duration times 0.3).

The campaign directory is the engine's (ccbench.campaigns.storage); rerun
with the same options, `compare` skips every finished run.
"""

from __future__ import annotations

import copy
from pathlib import Path

from ccbench import _ccsim
from ccbench.campaigns import spec
from ccbench.campaigns.quick import scale_time

CAMPAIGN_FILE = Path(__file__).resolve().parent / "campaigns" / "compare.toml"
ALGORITHM_FACTOR = "flows[*].cc"
CONDITION_FACTOR = "condition"
#: --quick: every simulated duration times this (20 s -> 6 s, 30 s -> 9 s).
QUICK_DURATION_FACTOR = 0.3
#: --quick: the repetitions unless --reps says otherwise.
QUICK_REPS = 2
#: The last line of a compare campaign's text starts so, then the command that reruns it (`rerun_command`).
RERUN_NOTE = "# rerun with: "


def algorithm_names() -> list[str]:
    return [a["name"] for a in _ccsim.algorithms()]


def campaign(
    algorithms: list[str] | None = None,
    reps: int | None = None,
    seed: int | None = None,
    quick: bool = False,
    allow_large: bool = False,
) -> spec.Campaign:
    """The compare campaign with the command's options applied (`allow_large`: --allow-large)."""
    raw, source, text, folder = spec.read(CAMPAIGN_FILE)
    raw = copy.deepcopy(raw)
    raw["factors"][ALGORITHM_FACTOR] = list(algorithms or algorithm_names())
    options = {"algorithms": raw["factors"][ALGORITHM_FACTOR]}
    if reps is not None:
        raw["repetitions"] = options["repetitions"] = reps
    if seed is not None:
        raw["seed"] = options["seed"] = seed
    if quick:
        raw["scenario"]["duration"] = scale_time(raw["scenario"]["duration"], QUICK_DURATION_FACTOR)
        for level in raw["factors"][CONDITION_FACTOR].values():
            if "duration" in level:
                level["duration"] = scale_time(level["duration"], QUICK_DURATION_FACTOR)
        options["quick"] = f"every duration x {QUICK_DURATION_FACTOR}"
    if allow_large:
        raw["allow_large"] = options["allow_large"] = True
    note = "".join(f"\n# applied by ccbench compare (not part of the file): {k} = {v!r}" for k, v in options.items())
    note += f"\n{RERUN_NOTE}{command(algorithms, reps, seed, quick, allow_large)} --out DIR"
    return spec.parse_raw(raw, source, text + note, folder)


def command(
    algorithms: list[str] | None = None,
    reps: int | None = None,
    seed: int | None = None,
    quick: bool = False,
    allow_large: bool = False,
) -> str:
    """The `ccbench compare` command (without --out) that gives the campaign of these options;
    every algorithm is the default, so no --algorithms then."""
    words = ["ccbench compare"]
    if reps is not None:
        words.append(f"--reps {reps}")
    if quick:
        words.append("--quick")
    if seed is not None:
        words.append(f"--seed {seed}")
    if algorithms and list(algorithms) != algorithm_names():
        words.append(f"--algorithms {','.join(algorithms)}")
    if allow_large:
        words.append("--allow-large")
    return " ".join(words)


def rerun_command(text: str) -> str | None:
    """The command a compare campaign's text ends with (None for any other campaign): the
    campaign file saved in its directory is compare.toml, whose options are only notes in it."""
    last = text.rpartition("\n")[2]
    return last.removeprefix(RERUN_NOTE) if last.startswith(RERUN_NOTE + "ccbench compare") else None
