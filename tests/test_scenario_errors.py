"""A bad scenario file: one clear message (field path, bad value, what is
allowed), exit code 2, nothing run, nothing written."""

import pytest
from ccbench.cli import app

GOOD = """
duration = "2s"
[downlink]
rate = "10Mbit"
delay = "10ms"
[[flows]]
cc = "cubic"
"""

CASES = {
    # name: (file text, words the one message must contain)
    "wrong_type": (GOOD.replace('duration = "2s"', "duration = true"), ["duration", "true", "a duration such as"]),
    "unknown_field": (
        GOOD.replace('cc = "cubic"', 'cc = "cubic"\ncolour = "red"'),
        ["flows[0].colour", "unknown field", "'colour'", "expected one of"],
    ),
    "unknown_algorithm": (
        GOOD.replace('"cubic"', '"cubc"'),
        ["flows[0].cc", "'cubc'", "did you mean 'cubic'", "known:"],
    ),
    "negative_rate": (GOOD.replace('"10Mbit"', '"-5Mbit"'), ["downlink.rate", "negative", "-5Mbit", "a rate such as"]),
    "toml_syntax": (GOOD.replace('rate = "10Mbit"', "rate = 10Mbit"), ["TOML syntax error", "line 4"]),
    "bad_probability": (
        GOOD.replace('delay = "10ms"', 'delay = "10ms"\nloss = { model = "bernoulli", p = 1.5 }'),
        ["downlink.loss.p", "1.5", "0 to 1"],
    ),
    "fractional_integer_parameter": (
        GOOD.replace('cc = "cubic"', 'cc = "vegas"\ncc_params = { alpha = 2.9 }'),
        ["flows[0].cc_params.alpha", "2.9", "an integer from 0 to 1000"],
    ),
    "send_buffer_overhead_too_large": (
        GOOD.replace('cc = "cubic"', 'cc = "cubic"\ntcp = { snd_skb_overhead = "100KB" }'),
        ["flows[0].tcp.snd_skb_overhead", "100000 bytes", "more than 64 KB per segment"],
    ),
    "fractional_bytes": (
        GOOD.replace('cc = "cubic"', 'cc = "cubic"\nsize = "1.5B"'),
        ["flows[0].size", '"1.5B"', "1.5 bytes is not a whole number of bytes"],
    ),
    "boolean_parameter_not_0_or_1": (
        GOOD.replace('cc = "cubic"', 'cc = "cubic"\ncc_params = { hystart = 0.5 }'),
        ["flows[0].cc_params.hystart", "0.5", "0 or 1"],
    ),
    # 2^64 reached the core as a float: "invalid type: floating point".
    "seed_beyond_64_bits": (
        "seed = 18446744073709551616\n" + GOOD,
        ["seed: 18446744073709551616 is out of range", "an integer from 0 to 9223372036854775807"],
    ),
    # A link so slow that the default 1bdp queue holds no packet named queue.size, which the file does not give.
    "default_queue_below_one_packet": (
        GOOD.replace('"10Mbit"', '"10kbit"'),
        ["downlink.queue: the default size, 1bdp, is 0.017 packets here", "set downlink.queue.size to a larger"],
    ),
    # Keywords are case-sensitive (algorithm names, deliberately, are not): the message says how to write it.
    "keyword_in_capitals": (
        GOOD + '[record]\nrtt_samples = "ALL"\n',
        ["record.rtt_samples", '"ALL" is not "all", "none"', 'case matters: write "all"'],
    ),
    "queue_kind_in_capitals": (
        GOOD.replace('delay = "10ms"', 'delay = "10ms"\nqueue = { kind = "RED" }'),
        ["downlink.queue.kind", "'RED'", "case matters: write 'red'"],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("command", ["run", "validate"])
def test_bad_file_exits_2_with_one_clear_message(tmp_path, runner, case, command):
    text, words = CASES[case]
    f = tmp_path / "bad.toml"
    f.write_text(text)
    out = tmp_path / "out"
    args = [command, str(f)] + (["--out", str(out)] if command == "run" else [])
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    message = result.stderr.strip()
    assert message.count("\n") == 0, message  # one message
    assert message.startswith(f"error: {f}: ")
    for w in words:
        assert w in message, (w, message)
    assert not out.exists()  # nothing created
    assert result.stdout == ""  # nothing run


def test_existing_output_is_not_touched(tmp_path, runner):
    f = tmp_path / "bad.toml"
    f.write_text(CASES["unknown_algorithm"][0])
    out = tmp_path / "out"
    out.mkdir()
    (out / "flows.csv").write_text("old results\n")
    before = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in out.iterdir()}
    result = runner.invoke(app, ["run", str(f), "--out", str(out)])
    assert result.exit_code == 2
    assert {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in out.iterdir()} == before


def test_missing_file(tmp_path, runner):
    result = runner.invoke(app, ["validate", str(tmp_path / "nope.toml")])
    assert result.exit_code == 2
    assert "cannot read the file" in result.stderr


def test_python_api_raises_scenario_error_with_path():
    import ccbench

    with pytest.raises(ccbench.ScenarioFileError) as e:
        ccbench.run({"duration": 1, "downlink": {"rate": "1Mbit"}, "flows": [{"cc": "renoo"}]})
    assert e.value.path == "flows[0].cc"
    assert "did you mean 'reno'" in e.value.detail
