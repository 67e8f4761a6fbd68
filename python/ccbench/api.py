"""Running one scenario from Python: `ccbench.run(scenario) -> Result`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ccbench import _ccsim
from ccbench.emulate.runner import emulate as _emulate_kernel
from ccbench.result import Result
from ccbench.scenario import load


def run(scenario: str | Path | Mapping[str, Any], seed: int | None = None) -> Result:
    """Runs a scenario (a TOML file path, TOML text, or a dict) and returns its
    Result; `seed` overrides the scenario's seed. Raises
    ccbench.ScenarioFileError before anything runs if a field is invalid."""
    normalized = load(scenario, seed=seed)
    raw = _ccsim.run(json.dumps(normalized))
    return Result.from_raw(raw, json.loads(raw["scenario"]), _ccsim.__version__)


def algorithms() -> list[dict]:
    """Every implemented algorithm: name, reference, summary, params, state."""
    return list(_ccsim.algorithms())


def emulate(
    scenario: str | Path | Mapping[str, Any], seed: int | None = None, packets_file: str | Path | None = None
) -> Result:
    """Runs a scenario through the real Linux kernel's TCP over links emulated
    by ccemu (root, /dev/net/tun and `ip netns` needed) and returns the same
    Result as `run` (meta["mode"] == "emulate"). See ccbench.emulate."""
    return _emulate_kernel(scenario, seed=seed, packets_file=packets_file)
