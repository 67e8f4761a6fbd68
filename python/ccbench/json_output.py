"""Machine-readable output of the CLI (`--json`): the summary of `ccbench run`,
of a campaign (`campaign`, `compare`, `study`: campaign_summary), and the
listings of `algorithms`, `profiles` and `kernels`.

The keys are stable (a script may rely on them; new keys may be added, none
renamed or removed without a note in the README). Numbers keep their units in
their names (_bps, _ms, _s); a value that does not exist (no RTT sample, a
bulk flow's completion time) is null.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

#: Per flow in `ccbench run --json`: key -> column of the flows table.
RUN_FLOW_KEYS = (
    "flow",
    "cc",
    "direction",
    "route",
    "goodput_bps",
    "throughput_bps",
    "retrans_pct",
    "timeouts",
    "rtt_mean_ms",
    "rtt_p95_ms",
    "queuing_mean_ms",
    "completion_s",
)
#: Per link in `ccbench run --json`.
RUN_LINK_KEYS = (
    "link",
    "rate_bps",
    "offered_rate_bps",
    "capacity_bps",
    "goodput_bps",
    "utilization",
    "nominal_utilization",
    "queue_drops",
    "channel_losses",
)


def plain(value: Any) -> Any:
    """`value` as JSON can hold it: NumPy scalars as Python numbers, NaN and
    infinities as None, tuples as lists, dicts and lists recursively."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def dumps(value: Any) -> str:
    """Indented JSON text of `value` (made plain first)."""
    return json.dumps(plain(value), indent=2, ensure_ascii=False)


def _rows(table, keys: tuple[str, ...]) -> list[dict]:
    present = [k for k in keys if k in table.columns]
    return [{k: row[k] for k in present} for row in table[present].to_dict("records")]


def run_summary(result, scenario_name: str, out: Path, files: list[str], warnings: list[str], notes: list[str]) -> dict:
    """The summary `ccbench run --json` prints: the run's facts, per flow and
    per link key numbers, the output directory and the files written, and
    the warnings and notes the text output prints."""
    return plain(
        {
            "scenario": scenario_name,
            "seed": result.meta["seed"],
            "duration_s": result.meta["duration_s"],
            "wall_seconds": result.meta["wall_seconds"],
            "out": str(out),
            "files": sorted(files),
            "flows": _rows(result.flows, RUN_FLOW_KEYS),
            "links": _rows(result.links, RUN_LINK_KEYS),
            # The name of the runs table's column (runs.parquet) and of the campaign objective.
            "jain": result.jain_index() if len(result.flows) > 1 else None,
            "warnings": warnings,
            "notes": notes,
        }
    )


def campaign_summary(directory: Path, done, report: Path) -> dict:
    """The summary `ccbench campaign|compare|study --json` prints: where the
    campaign and its report are, what ran (`done`: a runner.CampaignRun),
    and per condition the recommendation of recommendations.json (the pick,
    the candidates tied with it and those undecided, and each candidate's
    mean with its 95% CI under the objective)."""
    from ccbench.campaigns.report import recommendations

    return plain(
        {
            "directory": str(directory),
            "report": str(report),
            "runs": {
                "total": done.total,
                "run_now": done.executed,
                "copied_no_randomness": done.copied,
                "already_done": done.skipped,
                "failed": done.failed,
                "seconds": round(done.seconds, 3),
                "rounds": done.rounds,
            },
            "conditions": recommendations(directory),
        }
    )
