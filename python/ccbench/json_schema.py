"""The JSON Schema of scenario files, for `ccbench schema` and editors.

The core generates it from its own schema types (crates/ccsim/src/scenario/
json_schema.rs); this module adds what only the front end reads: the
`profile` key (ccbench.profiles), and the algorithm names as the values of
`cc`. The core stays the exact check (`ccbench validate`).
"""

from __future__ import annotations

import json
import re
from functools import cache

from ccbench import _ccsim


def _profile_schema() -> dict:
    from ccbench import profiles

    names = profiles.profile_names()
    name = {
        "description": "A shipped network profile (`ccbench profiles`) or trace:PATH (a Mahimahi trace)",
        "anyOf": [{"enum": names}, {"type": "string", "pattern": "^trace:"}],
    }
    return {
        "description": (
            "A named network (`ccbench profiles`): sets the links and TCP defaults; "
            "fields written in the scenario win. A name, or { name = ..., option = value }"
        ),
        "anyOf": [
            name,
            {"type": "object", "required": ["name"], "properties": {"name": name}},
        ],
    }


@cache
def scenario_schema() -> dict:
    """The scenario files' JSON Schema (draft-07) as a dict."""
    schema = json.loads(_ccsim.scenario_schema())
    schema["properties"]["profile"] = _profile_schema()
    names = [a["name"] for a in _ccsim.algorithms()]
    # The core takes a name in any case ("CUBIC" is cubic): the names for
    # completion, and a pattern that accepts them in any case.
    any_case = "|".join("".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c) for c in n) for n in names)
    for flow in ("FlowSpec", "BackgroundSpec"):
        properties = schema["definitions"][flow]["properties"]
        properties["cc"] = {
            "description": properties["cc"].get("description", "Congestion control algorithm"),
            "anyOf": [{"enum": names}, {"type": "string", "pattern": f"^({any_case})$"}],
        }
    return schema


def scenario_schema_text() -> str:
    return json.dumps(scenario_schema(), indent=2) + "\n"
