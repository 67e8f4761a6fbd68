"""Campaign files: every combination planned and validated up front, stable
seeds, clear errors (file, field path, value, what is allowed), exit 2 and
nothing written."""

from __future__ import annotations

import pytest
from ccbench.campaigns import spec
from ccbench.cli import app
from ccbench.inputs import TomlText

CAMPAIGN = """
name = "reno vs cubic on two rates"
repetitions = 2
seed = 1
[scenario]
duration = "1s"
downlink = { rate = "10Mbit", delay = "10ms" }
flows = [{ cc = "reno" }]
[factors]
"flows[0].cc" = ["reno", "cubic"]
"downlink.rate" = ["10Mbit", "20Mbit"]
[[exclude]]
"flows[0].cc" = "reno"
"downlink.rate" = "20Mbit"
"""


def test_every_combination_but_the_excluded_runs_with_each_repetition():
    c = spec.parse(TomlText(CAMPAIGN))
    combos = [(r.levels["flows[0].cc"], r.levels["downlink.rate"], r.rep) for r in c.runs]
    assert combos == [
        ("reno", "10Mbit", 0),
        ("reno", "10Mbit", 1),
        ("cubic", "10Mbit", 0),
        ("cubic", "10Mbit", 1),
        ("cubic", "20Mbit", 0),
        ("cubic", "20Mbit", 1),
    ]
    run = c.runs[4]
    assert run.scenario["flows"][0]["cc"] == "cubic"
    assert run.scenario["downlink"]["rate"] == 20_000_000
    assert run.scenario["seed"] == run.seed
    assert len({r.seed for r in c.runs}) == len(c.runs)


def test_a_combination_is_read_and_checked_once_for_all_its_repetitions(monkeypatch):
    """Repetitions differ in their seed alone (without random fields): the
    combination is loaded once (with a trace, most of the planning)."""
    seeds = []
    load = spec.load_scenario
    monkeypatch.setattr(spec, "load_scenario", lambda *a, **k: seeds.append(k["seed"]) or load(*a, **k))
    c = spec.parse(TomlText(CAMPAIGN))
    assert len(c.runs) == 6 and len(seeds) == 3
    for r in c.runs:  # each repetition's scenario is what checking it with its seed gives
        assert r.scenario["seed"] == r.seed and load(r.scenario, seed=r.seed) == r.scenario
    assert c.runs[0].scenario["flows"] is not c.runs[1].scenario["flows"]  # not shared
    seeds.clear()  # random fields draw values for each repetition: each is checked
    spec.parse(
        TomlText(CAMPAIGN + '[random]\n"flows[*].access_delay" = { min = 0, max = 2, step = 0.1, unit = "ms" }\n')
    )
    assert len(seeds) == 6


def test_adding_a_level_or_a_repetition_keeps_every_existing_run():
    before = {r.key: r.seed for r in spec.parse(TomlText(CAMPAIGN)).runs}
    grown = CAMPAIGN.replace("repetitions = 2", "repetitions = 3").replace(
        '["reno", "cubic"]', '["vegas", "reno", "cubic"]'
    )
    after = {r.key: r.seed for r in spec.parse(TomlText(grown)).runs}
    assert len(after) == 5 * 3 and set(before) < set(after)
    assert all(after[k] == s for k, s in before.items())
    # a different campaign seed changes every run's seed
    reseeded = {r.key: r.seed for r in spec.parse(TomlText(CAMPAIGN.replace("seed = 1", "seed = 2"))).runs}
    assert all(reseeded[k] != s for k, s in before.items())


def test_common_seeds_share_a_seed_across_the_levels_of_a_factor():
    c = spec.parse(TomlText(CAMPAIGN))
    shared = spec.parse(TomlText(CAMPAIGN.replace("seed = 1\n", 'seed = 1\ncommon_seeds = ["flows[0].cc"]\n')))
    by = {(r.levels["flows[0].cc"], r.levels["downlink.rate"], r.rep): r.seed for r in shared.runs}
    assert by[("reno", "10Mbit", 0)] == by[("cubic", "10Mbit", 0)]
    assert by[("reno", "10Mbit", 0)] != by[("reno", "10Mbit", 1)]
    assert len({r.seed for r in c.runs}) == 6


def test_base_file_relative_to_the_campaign_file_named_factor_and_random_fields(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "path.toml").write_text(
        'duration = "1s"\n[downlink]\nrate = "5Mbit"\ndelay = "10ms"\n[[flows]]\ncc = "reno"\n'
    )
    f = tmp_path / "c.toml"
    f.write_text(
        """
base = "sub/path.toml"
repetitions = 2
[factors.path]
short = { downlink = { delay = "5ms" } }
two = { flows = [{ cc = "reno" }, { cc = "reno" }] }
[factors]
"flows[*].cc" = ["cubic"]
[random]
"flows[*].access_delay" = { min = 0, max = 2, step = 0.1, unit = "ms" }
"""
    )
    c = spec.parse(f)
    assert [r.levels["path"] for r in c.runs] == ["short", "short", "two", "two"]
    two = c.runs[2].scenario
    assert [fl["cc"] for fl in two["flows"]] == ["cubic", "cubic"]
    assert c.runs[0].scenario["downlink"]["delay"] == 0.005 and two["downlink"]["delay"] == 0.01
    delays = [fl["access_delay"] for r in c.runs for fl in r.scenario["flows"]]
    assert all(0 <= d <= 0.002 for d in delays) and len(set(delays)) > 1
    assert [fl["access_delay"] for fl in spec.parse(f).runs[2].scenario["flows"]] == [
        fl["access_delay"] for fl in two["flows"]
    ]


NO_EXCLUDE = CAMPAIGN.split("[[exclude]]")[0]
BAD = {
    # name: (campaign text, the field path named, words the message contains)
    "not_a_field": (
        CAMPAIGN.replace('"downlink.rate" = ["10Mbit", "20Mbit"]', '"downlink.ratez" = ["10Mbit"]').split(
            "[[exclude]]"
        )[0],
        'factors."downlink.ratez"[0]',
        ["unknown field 'ratez'", "expected one of", '"10Mbit"'],
    ),
    "invalid_level": (
        CAMPAIGN.replace('["reno", "cubic"]', '["reno", "cubc"]').replace('"flows[0].cc" = "reno"', ""),
        'factors."flows[0].cc"[1]',
        ["'cubc'", "did you mean 'cubic'"],
    ),
    "excluded_level_unknown": (
        CAMPAIGN.replace('"downlink.rate" = "20Mbit"', '"downlink.rate" = "30Mbit"'),
        'exclude[0]."downlink.rate"',
        ['"30Mbit" is not a level', '"10Mbit", "20Mbit"'],
    ),
    "repetitions": (CAMPAIGN.replace("repetitions = 2", "repetitions = 0"), "repetitions", ["0", ">= 1"]),
    "unknown_key": ('colour = "red"\n' + CAMPAIGN, "colour", ["unknown field", "factors"]),
    "objective": (
        CAMPAIGN + '[analysis]\nobjective = "fast"\n',
        "analysis.objective",
        ['"fast"', "throughput", "latency", "balanced"],
    ),
    "no_base": (CAMPAIGN.replace("[scenario]", "[other]"), "", ["unknown field"]),
    "kept_table_unknown": (
        'kept_tables = ["flows", "cwnd"]\n' + CAMPAIGN,
        "kept_tables[1]",
        ['"cwnd" is not a table', "flows, series, cc_state, rtt"],
    ),
    "allow_large": ('allow_large = "yes"\n' + CAMPAIGN, "allow_large", ['"yes" is not allowed; true or false']),
    "kept_tables_empty": ("kept_tables = []\n" + CAMPAIGN, "kept_tables", ["expected a list of table names"]),
    # These ran every run, then the report failed with an IndexError.
    "no_factors": (NO_EXCLUDE.split("[factors]")[0], "factors", ["at least one factor is needed"]),
    "empty_factors": (NO_EXCLUDE.split("[factors]")[0] + "[factors]\n", "factors", ["at least one factor"]),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_malformed_campaign_exits_2_with_one_message_and_writes_nothing(tmp_path, runner, case):
    text, path, words = BAD[case]
    f = tmp_path / "bad.toml"
    f.write_text(text)
    out = tmp_path / "out"
    result = runner.invoke(app, ["campaign", str(f), "--out", str(out)], terminal_width=250)
    assert result.exit_code == 2, result.output
    lines = [x for x in result.output.splitlines() if x.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith(f"error: {f}: "), lines[0]
    assert path in lines[0]
    for w in words:
        assert w in lines[0], (w, lines[0])
    assert not out.exists()


def test_a_malformed_campaign_leaves_an_existing_directory_untouched(tmp_path, runner):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    f = tmp_path / "bad.toml"
    f.write_text(BAD["invalid_level"][0])
    before = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in out.iterdir()}
    result = runner.invoke(app, ["campaign", str(f), "--out", str(out)], terminal_width=250)
    assert result.exit_code == 2
    assert {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in out.iterdir()} == before


def test_a_level_beyond_a_limit_advises_the_files_allow_large_which_lifts_it(tmp_path, runner):
    """The limit's message advised --allow-large, which `campaign` does not have: a campaign lifts
    the limits in its file, so reruns and the report's command (the saved file) lift them too."""
    big = NO_EXCLUDE.replace('"downlink.rate" = ["10Mbit", "20Mbit"]', '"downlink.delay" = ["10ms", "61s"]')
    f = tmp_path / "big.toml"
    f.write_text(big)
    result = runner.invoke(app, ["campaign", str(f), "--out", str(tmp_path / "out")], terminal_width=300)
    assert result.exit_code == 2 and result.output.startswith(f'error: {f}: factors."downlink.delay"[1]: ')
    assert result.output.endswith("; add allow_large = true in the campaign file if you mean it\n")
    c = spec.parse(TomlText("allow_large = true\n" + big))
    assert sorted({r.scenario["downlink"]["delay"] for r in c.runs}) == [0.01, 61.0]


def test_stable_hash_is_order_independent():
    assert spec.run_seed(1, {"a": 1, "b": "x"}, 0) == spec.run_seed(1, {"b": "x", "a": 1}, 0)
    assert spec.run_key({"a": 1}, 0) != spec.run_key({"a": 1}, 1)
    assert 0 <= spec.run_seed(1, {}, 0) < 2**53
