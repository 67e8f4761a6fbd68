"""The CLI commands: run, algorithms, validate."""

import json
import re
from pathlib import Path

import ccbench
from ccbench import _ccsim
from ccbench.cli import app
from ccbench.listing import param_line
from ccbench.run_result import raw_columns
from ccbench.scenario import load as _load

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "two-flows-cubic-vs-reno.toml"


def test_run_writes_results_and_plots(tmp_path, runner):
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(EXAMPLE), "--out", str(out), "--seed", "3", "--plots"], terminal_width=250)
    assert result.exit_code == 0, result.output
    assert "cubic" in result.stdout and "reno" in result.stdout and "Jain" in result.stdout
    assert f"Results in {out}" in result.stdout
    for name in (
        "flows.csv",
        "flows.parquet",
        "series.parquet",
        "rtt.parquet",
        "meta.json",
        "cwnd.png",
        "rtt.png",
        "goodput.png",
        "rtt_cdf.png",
    ):
        assert (out / name).stat().st_size > 0, name
    assert (out / "cwnd.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_run_prints_what_udp_and_background_sent_and_lost(tmp_path, runner):
    """The summary printed only the flows' utilization (0.1% here), so a link
    that UDP saturated read as idle with many drops."""
    f = tmp_path / "s.toml"
    f.write_text(
        'duration = "2s"\n[downlink]\nrate = "10Mbit"\n[[flows]]\ncc = "cubic"\n[[udp]]\nrate = "20Mbit"\n'
        '[background]\nkind = "poisson-web"\nload = 0.2\n'
    )
    result = runner.invoke(app, ["run", str(f), "--out", str(tmp_path / "o")], terminal_width=250)
    assert result.exit_code == 0, result.output
    sources = raw_columns(_ccsim.run(json.dumps(_load(f))))["sources"]
    text = " ".join(result.stdout.split())  # lines wrapped at 80 columns, joined
    udp = text[text.index("udp[0]: ") : text.index("background (poisson-web over tcp): ")]
    assert f"sent 19.6 Mbit/s, delivered {sources['delivered_bps'][0] / 1e6:.3g} Mbit/s" in udp
    assert f"{sources['packets_lost'][0]} of {sources['packets_sent'][0]} packets lost" in udp
    assert f"{sources['transfers_started'][1]} transfers begun" in text[text.index("background (poisson-web") :]


def test_run_writes_plots_only_when_asked(tmp_path, runner):
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(EXAMPLE), "--out", str(out)], terminal_width=250)
    assert result.exit_code == 0, result.output
    assert (out / "flows.parquet").exists() and not list(out.glob("*.png"))
    assert "--plots for PNG plots" in result.stdout


def test_a_run_without_plots_loads_neither_matplotlib_nor_pydantic(tmp_path):
    """Importing matplotlib costs about half a second, most of a short run:
    a run that draws no plot must not pay it (it once did, to check the
    plot options). Nor pydantic, which typer 0.29 imported to parse every
    command's options (0.16 s; pyproject.toml keeps typer below it)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from ccbench.cli import app\n"
        f"r = CliRunner().invoke(app, ['run', {str(EXAMPLE)!r}, '--out', {str(tmp_path / 'out')!r}])\n"
        "assert r.exit_code == 0, r.output\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('matplotlib', 'pydantic'))[:3])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout


def test_algorithms_lists_every_algorithm_with_reference_and_defaults(runner):
    result = runner.invoke(app, ["algorithms"], terminal_width=250)
    assert result.exit_code == 0
    for a in _ccsim.algorithms():
        assert a["name"] in result.stdout
        for p in a["params"]:
            assert p["name"] in result.stdout
            assert p["kind"] in ("float", "integer", "boolean")
    assert "RFC 9438" in result.stdout


def test_kernels_lists_each_preset_with_what_it_sets_and_its_source(runner):
    result = runner.invoke(app, ["kernels"], terminal_width=250)
    assert result.exit_code == 0, result.output
    for k in _ccsim.kernels()["presets"]:
        assert k["name"] in result.stdout
    assert "init_cwnd = 3" in result.stdout and "tcp_init_cwnd" in result.stdout
    # The old releases turn RACK-TLP off; what no preset models is listed.
    assert "rack = false" in result.stdout and "early_retrans = true" in result.stdout and "FACK" in result.stdout


def test_a_kernel_preset_reaches_the_core_with_its_initial_window():
    def completion_s(tcp: dict) -> float:
        scenario = {
            "duration": 5,
            "downlink": {"rate": "100Mbit", "delay": "50ms"},
            "flows": [{"cc": "reno", "size": "14480B", "tcp": tcp}],
        }
        return float(raw_columns(_ccsim.run(json.dumps(scenario)))["flows"]["completion_s"][0])

    # Ten segments: one round trip with Linux 6.x's window of 10, more with 2.6.24's 3.
    assert completion_s({"kernel": "2.6.24"}) > completion_s({"kernel": "6.x"}) + 0.09


def test_algorithms_say_that_linux_westwood_is_westwood_plus():
    summaries = {a["name"]: a["summary"] for a in _ccsim.algorithms()}
    assert "Linux's `westwood` module" in summaries["westwood+"]
    assert "not Linux's `westwood` module" in summaries["westwood"]


def test_algorithms_shows_each_parameter_with_its_kind():
    params = {a["name"]: {p["name"]: p for p in a["params"]} for a in _ccsim.algorithms()}
    assert param_line(params["vegas"]["alpha"]).startswith("alpha = 2 (integer, 0..1000): ")
    assert param_line(params["cubic"]["hystart"]).startswith("hystart = 1 (boolean: 0 or 1): ")
    assert param_line(params["cubic"]["beta"]).startswith("beta = 0.7 (float, 0.1..0.99): ")


def test_validate_accepts_a_good_file(runner):
    result = runner.invoke(app, ["validate", str(EXAMPLE)], terminal_width=250)
    assert result.exit_code == 0
    assert "OK, a scenario file (cubic vs reno: 2 flows (cubic, reno), 30 s, seed 1; about " in result.stdout


def test_validate_takes_campaign_and_study_files_and_says_which_kind(runner, tmp_path):
    """validate refused a campaign file with "repetitions: unknown field"."""
    campaign = tmp_path / "c.toml"
    campaign.write_text(
        'repetitions = 3\n[scenario]\nduration = "1s"\ndownlink = { rate = "10Mbit", delay = "10ms" }\n'
        'flows = [{ cc = "reno" }]\n[factors]\n"flows[0].cc" = ["reno", "cubic"]\n'
    )
    result = runner.invoke(app, ["validate", str(campaign)], terminal_width=250)
    assert result.exit_code == 0, result.output
    assert "OK, a campaign file: 1 factor(s), 2 condition(s) x 3 repetition(s) = 6 runs" in result.stdout
    study = Path(ccbench.__file__).parent / "campaigns" / "studies" / "umts.toml"
    result = runner.invoke(app, ["validate", str(study)], terminal_width=250)
    assert result.exit_code == 0, result.output
    assert "OK, a study file (umts)" in result.stdout
    campaign.write_text(campaign.read_text().replace('"cubic"]', '"nosuch"]'))
    result = runner.invoke(app, ["validate", str(campaign)], terminal_width=250)
    assert result.exit_code == 2 and "nosuch" in result.output


def _run_text(tmp_path, runner, scenario: str) -> str:
    """`ccbench run` of a scenario given as TOML text: its output, lines joined."""
    f = tmp_path / "s.toml"
    f.write_text(scenario)
    result = runner.invoke(app, ["run", str(f), "--out", str(tmp_path / "o")], terminal_width=250)
    assert result.exit_code == 0, result.output
    return " ".join(result.stdout.split())


def test_the_summary_prints_no_negative_zero():
    """An idle path's mean queuing time (its mean RTT less its minimum) can come to -1e-15: 0."""
    from ccbench.campaigns.analysis import METRICS, fmt
    from ccbench.cli.common import _num

    rate = METRICS["goodput_bps"]
    assert (_num(-1e-15), _num(-0.0, ".2f"), fmt(-0.0, rate), fmt(-1e-9, rate)) == ("0.0", "0.00", "0.00", "0.00")
    assert (_num(-0.06), _num(float("nan"))) == ("-0.1", "–")


def test_rates_of_a_slow_path_show_three_significant_digits(tmp_path, runner):
    """On a UMTS-like path every flow's goodput printed 0.07 or 0.10 (two
    decimals of Mbit/s); the table now shows its largest rate to three digits."""
    text = _run_text(
        tmp_path,
        runner,
        'duration = "20s"\n[downlink]\nrate = "384kbit"\ndelay = "100ms"\n'
        '[[flows]]\ncc = "reno"\n[[flows]]\ncc = "cubic"\n',
    )
    rows = re.findall(r"\b(?:0 reno|1 cubic) down (\S+) (\S+) ", text)
    assert len(rows) == 2, text
    for goodput, sending in rows:
        assert re.fullmatch(r"0\.\d{3}", goodput) and re.fullmatch(r"0\.\d{3}", sending), text


def test_rates_print_without_scientific_notation(tmp_path, runner):
    """A 10 Gbit/s link printed as "1e+04 Mbit/s nominal rate"."""
    from ccbench.cli.run import mbit_text

    assert [mbit_text(v) for v in (1e10, 1.2345e9, 12.34e6, 384e3, 15, 0)] == [
        "10000",
        "1230",
        "12.3",
        "0.384",
        "0.000015",
        "0",
    ]
    text = _run_text(tmp_path, runner, 'duration = "0.2s"\n[downlink]\nrate = "10Gbit"\n[[flows]]\ncc = "cubic"\n')
    assert "of the 10000 Mbit/s nominal rate" in text and "e+" not in text


def test_flows_that_deliver_nothing_share_one_warning(tmp_path, runner):
    """A thousand flows that delivered nothing printed a thousand warnings."""
    text = _run_text(
        tmp_path,
        runner,
        'duration = "5ms"\n[downlink]\nrate = "10Mbit"\ndelay = "10ms"\n[[flows]]\ncc = "cubic"\ncount = 12\n',
    )
    assert text.count("delivered nothing") == 1, text
    assert (
        "warning: 12 flows (0 (cubic), 1 (cubic), 2 (cubic), 3 (cubic), 4 (cubic) and 7 more) delivered nothing" in text
    )


def test_a_flow_that_got_no_ack_shows_no_sending_rate(tmp_path, runner):
    """duration = "1ns" printed a sending rate of 115840000 Mbit/s: the first window over 1 ns."""
    text = _run_text(
        tmp_path, runner, 'duration = "1ns"\n[downlink]\nrate = "10Gbit"\ndelay = "10ms"\n[[flows]]\ncc = "cubic"\n'
    )
    assert "0 cubic down 0.00 – 0.00 0" in text and "115840000" not in text
    assert "note: flow 0 (cubic) got no ACK back" in text
    (tmp_path / "b").mkdir()
    text = _run_text(tmp_path / "b", runner, 'duration = "1s"\n[downlink]\nrate = "10Mbit"\n[[flows]]\ncc = "cubic"\n')
    assert "got no ACK" not in text and "0 cubic down 9." in text


def test_validate_reads_a_file_with_the_input_checks_before_toml(tmp_path, monkeypatch):
    """validate's look at a file's kind parsed it with tomllib straight away:
    a 20,000-part dotted key cost tomllib 40 s and 1.5 GB before the scenario
    loader's own check refused it. It now goes through ccbench.inputs first."""
    import tomllib
    from ccbench.cli.files import _file_kind

    deep = tmp_path / "deep.toml"
    deep.write_text("a" + ".a" * 20_000 + " = 1\n")

    def never(text):
        raise AssertionError("tomllib reached before the dotted-key check")

    monkeypatch.setattr(tomllib, "loads", never)
    assert _file_kind(deep) == "scenario"
