"""Running one scenario from Python: `ccbench.run(scenario) -> Result`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ccbench import _ccsim
from ccbench.run_result import Result
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
