"""Outputs and parsing bounded by the input (issue 52): a string repeated in
every row (a scenario's name) is held and stored once, the estimate counts
what it adds to the text tables, and a dotted key thousands of levels deep is
refused before the TOML parser spends seconds and gigabytes on it."""

from __future__ import annotations

import pyarrow.parquet as pq
from ccbench import limits
from ccbench.cli import app
from ccbench.scenario import load

SCENARIO = 'duration = "1s"\n[downlink]\nrate = "2Mbit"\ndelay = "10ms"\n[[flows]]\ncc = "reno"\n'


def test_a_dotted_key_20000_levels_deep_is_refused_before_it_is_parsed(tmp_path, runner):
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO + "a" + ".a" * 20_000 + " = 1\n")
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 2
    assert f"{path}: line 7: a dotted key of more than 33 parts" in result.output


def test_dotted_keys_in_strings_comments_and_table_headers_are_told_apart(tmp_path):
    deep = ".".join(["k"] * 40)
    text = f'name = "{deep}"\n# {deep}\n' + SCENARIO.replace('cc = "reno"', f'cc = "reno"\n# also {deep}')
    path = tmp_path / "s.toml"
    path.write_text(text)
    assert load(path)["name"] == deep
    path.write_text(SCENARIO + f"[{deep}]\nx = 1\n")
    result = __import__("pytest").raises(Exception, load, path)
    assert "dotted key of more than 33 parts" in str(result.value)


def test_a_long_name_is_stored_once_per_table(tmp_path, runner):
    name = "n" * 100_000
    path = tmp_path / "s.toml"
    path.write_text(f'name = "{name}"\n' + SCENARIO)
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(path), "--out", str(out), "--no-plots"])
    assert result.exit_code == 0, result.output
    column = pq.read_table(out / "series.parquet").column("scenario")
    assert str(column.type).startswith("dictionary"), column.type
    assert column.chunk(0).dictionary.to_pylist() == [name]


def test_the_estimate_counts_a_name_repeated_in_every_row(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO)
    short = limits.estimate(load(path))["memory_bytes"]
    path.write_text('name = "' + "n" * 100_000 + '"\n' + SCENARIO)
    assert limits.estimate(load(path))["memory_bytes"] > short + 100_000 * 10
