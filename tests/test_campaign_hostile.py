"""Hostile campaign files (issue 52): each gets one `error:` line naming the
field, exit 2, and leaves nothing behind (no directory, no lock), as a
scenario file does. Every example of the issue is here, with `base.toml`
beside the campaign file (one reno flow of 1 s)."""

from __future__ import annotations

import warnings

import pytest
from ccbench.campaigns import spec
from ccbench.cli import app

BASE = 'duration = "1s"\n[downlink]\nrate = "5Mbit"\ndelay = "10ms"\n[[flows]]\ncc = "reno"\n'
HEAD = 'base = "base.toml"\n'
FACTOR = '[factors]\n"flows[0].cc" = ["reno", "cubic"]\n'


def _campaign(tmp_path, data: bytes | str):
    (tmp_path / "base.toml").write_text(BASE)
    path = tmp_path / "c.toml"
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def _refused(tmp_path, runner, data, *expected: str) -> str:
    """Runs `ccbench campaign` on the file; asserts one clean error line with
    every `expected` text in it, exit 2, and nothing written beside the file."""
    path = _campaign(tmp_path, data)
    out = tmp_path / "out"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a NumPy RuntimeWarning printed before the error is a failure
        result = runner.invoke(app, ["campaign", str(path), "--out", str(out), "--jobs", "1"], terminal_width=200)
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert result.exit_code == 2, result.output[-3000:]
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output[-3000:]
    for text in expected:
        assert text in lines[0], lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["base.toml", "c.toml"]
    return lines[0]


@pytest.mark.parametrize(
    "encoding",
    ["latin-1", "utf-16"],
)
def test_a_file_not_in_utf8_is_refused_naming_the_line(tmp_path, runner, encoding):
    text = HEAD + 'name = "café"\n' + FACTOR
    _refused(tmp_path, runner, text.encode(encoding), "c.toml: line ", "not a UTF-8 text file")


def test_nesting_3000_deep_is_refused(tmp_path, runner):
    _refused(tmp_path, runner, HEAD + FACTOR + "x = " + "[" * 3000 + "]" * 3000 + "\n", "nested deeper than 32")


def test_a_dotted_key_20000_deep_is_refused_before_toml_reads_it(tmp_path, runner):
    _refused(tmp_path, runner, HEAD + FACTOR + "a" + ".a" * 20_000 + " = 1\n", "dotted key of more than 33 parts")


def test_a_dotted_key_in_a_string_is_a_string(tmp_path):
    text = HEAD + 'name = "' + "a." * 50 + '"\n# ' + "b." * 50 + "\n" + FACTOR
    assert spec.parse(_campaign(tmp_path, text)).name == "a." * 50


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('study = ["umts"]', 'study: ["umts"] is not allowed'),
        ("analysis = 1", "analysis: 1 is not allowed; expected a table"),
        ("quick = { tables = 1 }", "quick.tables: 1 is not allowed"),
        ("quick = { levels = 1 }", "quick.levels: 1 is not allowed"),
        ("random = 5", "random: 5 is not allowed; expected a table"),
        ('common_seeds = "flows[0].cc"', 'common_seeds: "flows[0].cc" is not allowed'),
        ("keep_tables = [1]", "keep_tables: [1] is not allowed"),
        ("kept_tables = [[1]]", "kept_tables[0]"),
        ("analysis = { compare = [1] }", "analysis.compare: [1] is not a factor"),
        ("analysis = { objective = [1] }", "analysis.objective: [1] is not allowed"),
        ("seed = 9007199254740992", "seed: 9007199254740992 is not allowed"),
    ],
)
def test_a_field_of_the_wrong_type_is_refused_with_its_path(tmp_path, runner, line, expected):
    _refused(tmp_path, runner, HEAD + line + "\n" + FACTOR, expected)


def test_a_study_without_the_studys_factors_is_refused_before_anything_runs(tmp_path, runner):
    # Today: every run ran, then KeyError: 'workload' while drawing the report, 10 files and a lock left.
    _refused(tmp_path, runner, HEAD + 'study = "umts"\n' + FACTOR, 'study: "umts"', "lacks workload")


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ("min = 1, max = " + "1" + "0" * 400, 'random."flows[0].access_delay".max: an integer of about 401 digits'),
        ("min = 0.001, max = 0.002, step = 1e-320", ".step: 1e-320 is not allowed"),
        ("min = 1, max = 2, unit = 5", ".unit: 5 is not allowed"),
        ('min = 1, max = 2, unit = "ms; x"', '.unit: "ms; x" is not allowed'),
        ("min = true, max = 2", ".min: true is not allowed"),
        ("min = 3, max = 2", "min 3 is above max 2"),
        ("min = -1e300, max = 1e300", ".min: -1e+300 is not allowed"),
    ],
)
def test_a_random_bound_out_of_range_is_refused(tmp_path, runner, table, expected):
    text = HEAD + FACTOR + f'[random]\n"flows[0].access_delay" = {{ {table} }}\n'
    _refused(tmp_path, runner, text, expected)


def test_true_in_exclude_is_not_the_level_1(tmp_path):
    text = HEAD + '[factors]\n"flows[0].tcp.init_cwnd" = [1, 10]\n[[exclude]]\n"flows[0].tcp.init_cwnd" = true\n'
    with pytest.raises(spec.CampaignFileError, match=r'exclude\[0\]."flows\[0\].tcp.init_cwnd": true is not a level'):
        spec.parse(_campaign(tmp_path, text))


def test_true_in_quick_levels_is_not_the_level_1(tmp_path):
    """`true` kept the level 1 (True == 1 in Python). A [quick] level the factor
    does not have is stale (an edited file still runs: the factor's first
    level, and stale_levels names it), never the level 1."""
    import tomllib
    from ccbench.campaigns import quick

    factor = '"flows[0].tcp.init_cwnd"'
    text = HEAD + f"[factors]\n{factor} = [10, 1]\n[quick]\nlevels = {{ {factor} = [true] }}\n"
    path = _campaign(tmp_path, text)
    runs = spec.parse_study(path, quick=True).runs
    assert {r.levels["flows[0].tcp.init_cwnd"] for r in runs} == {10}
    assert quick.stale_levels(tomllib.loads(text)) == {"flows[0].tcp.init_cwnd": [True]}


def test_a_unit_is_appended_to_the_drawn_number(tmp_path):
    text = HEAD + FACTOR + '[random]\n"flows[0].access_delay" = { min = 1, max = 3, unit = "ms" }\n'
    run = spec.parse(_campaign(tmp_path, text)).runs[0]
    assert 0.001 <= run.scenario["flows"][0]["access_delay"] <= 0.003


def test_a_file_above_1_mib_is_refused_as_a_scenario_is(tmp_path, runner):
    padding = ("# " + "x" * 98 + "\n") * 30_000  # 3 MB of comments
    _refused(tmp_path, runner, HEAD + FACTOR + padding, "larger than the limit of 1048576 bytes")


def test_toml_text_gets_the_same_checks(tmp_path):
    from ccbench.inputs import TomlText

    with pytest.raises(spec.CampaignFileError, match="nested deeper"):
        spec.parse(TomlText("x = " + "[" * 3000 + "]" * 3000))


def test_a_dict_nested_too_deep_is_refused():
    deep: dict = {}
    node = deep
    for _ in range(100):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(spec.CampaignFileError, match="nested deeper"):
        spec.parse({"scenario": {"duration": "1s"}, "factors": {"x": [1]}, "deep": deep})
