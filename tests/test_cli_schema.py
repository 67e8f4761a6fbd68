"""The JSON Schema of scenario files (`ccbench schema`), generated from the
core's schema types: every shipped scenario validates, a bad one fails on the
right field, and the copy shipped for editors is current."""

import json
from pathlib import Path

import jsonschema
import pytest
import tomllib
from ccbench import profiles, starter
from ccbench.cli import app
from ccbench.json_schema import scenario_schema, scenario_schema_text
from ccbench.scenario import load

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))
SHIPPED = ROOT / "schema" / "scenario.schema.json"


@pytest.fixture(scope="module")
def validator():
    schema = scenario_schema()
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def _errors(validator, scenario: dict) -> list:
    return sorted(validator.iter_errors(scenario), key=lambda e: list(e.absolute_path))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_validates(validator, path):
    assert not _errors(validator, tomllib.loads(path.read_text())), path


def _without_none(value):
    """A normalized scenario as a TOML file would say it (TOML has no null)."""
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value]
    return value


@pytest.mark.parametrize("name", profiles.profile_names())
def test_every_profile_scenario_validates_as_written_and_expanded(validator, name):
    written = {"profile": name, "duration": "5s", "flows": [{"cc": "cubic"}]}
    assert not _errors(validator, written)
    assert not _errors(validator, profiles.expand(written))
    assert not _errors(validator, _without_none(load(written)))


CAMPAIGNS = sorted((ROOT / "python" / "ccbench" / "campaigns").glob("**/*.toml"))


@pytest.mark.parametrize("path", CAMPAIGNS, ids=lambda p: p.name)
def test_every_shipped_campaign_scenario_validates(validator, path):
    assert not _errors(validator, tomllib.loads(path.read_text())["scenario"]), path


def test_the_starter_scenario_validates(validator):
    assert not _errors(validator, tomllib.loads(starter.STARTER.format(file="x.toml")))


@pytest.mark.parametrize(
    "fragment, path",
    [
        ({"downlink": {"rate": "fast"}}, ["downlink", "rate"]),
        ({"downlink": {"rate": "1Mbit", "delay": -1}}, ["downlink", "delay"]),
        ({"downlink": {"rate": "1Mbit", "rat": 3}}, ["downlink"]),
        ({"flows": [{"cc": "cubik"}]}, ["flows", 0, "cc"]),
        ({"flows": [{"cc": "cubic", "tcp": {"sack": "yes"}}]}, ["flows", 0, "tcp", "sack"]),
        ({"record": {"interval": "10 parsecs!"}}, ["record", "interval"]),
    ],
)
def test_a_bad_field_fails_on_that_field(validator, fragment, path):
    scenario = {"duration": "5s", "downlink": {"rate": "1Mbit"}, "flows": [{"cc": "cubic"}], **fragment}
    errors = _errors(validator, scenario)
    assert errors, fragment
    assert [list(e.absolute_path) for e in errors] == [path] * len(errors), [e.message for e in errors]


def test_duration_and_flows_are_required(validator):
    errors = _errors(validator, {"downlink": {"rate": "1Mbit"}})
    assert {e.message for e in errors} == {"'duration' is a required property", "'flows' is a required property"}


def test_schema_command_prints_it_and_the_shipped_copy_is_current(runner):
    result = runner.invoke(app, ["schema"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == scenario_schema()
    assert SHIPPED.read_text() == scenario_schema_text(), "regenerate: ccbench schema > schema/scenario.schema.json"
