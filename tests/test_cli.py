"""The CLI commands: run, algorithms, validate."""

from pathlib import Path

from ccbench import _ccsim
from ccbench.cli import _param_line, app

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "two-flows-cubic-vs-reno.toml"


def test_run_writes_results_and_plots(tmp_path, runner):
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(EXAMPLE), "--out", str(out), "--seed", "3"], terminal_width=250)
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


def test_algorithms_lists_every_algorithm_with_reference_and_defaults(runner):
    result = runner.invoke(app, ["algorithms"], terminal_width=250)
    assert result.exit_code == 0
    for a in _ccsim.algorithms():
        assert a["name"] in result.stdout
        for p in a["params"]:
            assert p["name"] in result.stdout
            assert p["kind"] in ("float", "integer", "boolean")
    assert "RFC 9438" in result.stdout


def test_algorithms_shows_each_parameter_with_its_kind():
    params = {a["name"]: {p["name"]: p for p in a["params"]} for a in _ccsim.algorithms()}
    assert _param_line(params["vegas"]["alpha"]).startswith("alpha = 2 (integer, 0..1000): ")
    assert _param_line(params["cubic"]["hystart"]).startswith("hystart = 1 (boolean: 0 or 1): ")
    assert _param_line(params["cubic"]["beta"]).startswith("beta = 0.7 (float, 0.1..0.99): ")


def test_validate_accepts_a_good_file(runner):
    result = runner.invoke(app, ["validate", str(EXAMPLE)], terminal_width=250)
    assert result.exit_code == 0
    assert "OK" in result.stdout and "2 flow(s)" in result.stdout
