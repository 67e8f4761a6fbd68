"""`ccbench recommend`'s answers where the right answer is known (issue 50),
its network forms, roles, harm, JSON and refusals. Runs are seconds of
simulated time with a few candidates, so the file stays fast."""

import json
from pathlib import Path

import pytest
from ccbench import _ccsim
from ccbench.campaigns import answer, harm, recommend
from ccbench.cli import app
from hypothesis import given
from hypothesis import strategies as st

SHALLOW = """
name = "shallow"
duration = "10s"
[downlink]
rate = "20Mbit"
delay = "20ms"
queue = { size = "0.25bdp" }
[[flows]]
cc = "cubic"
"""


def run_json(runner, tmp_path, *args, name="rec"):
    out = tmp_path / name
    result = runner.invoke(app, ["recommend", *args, "--jobs", "2", "--max-reps", "3", "--out", str(out), "--json"])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout), out


def row(ans, name):
    return next(r for r in ans["candidates"] if r["name"] == name)


def test_every_algorithm_declares_a_role_from_the_core():
    roles = {a["name"]: (a["role"], a["requires"]) for a in _ccsim.algorithms()}
    assert roles["ledbat"] == ("scavenger", []) and roles["lp"] == ("scavenger", [])
    assert roles["dctcp"] == ("datacenter", ["ecn"])
    assert roles["tahoe"][0] == "historical" and roles["cubic"] == ("general", [])
    assert set(r for r, _ in roles.values()) <= {"general", "scavenger", "datacenter", "historical"}


def test_the_algorithms_command_shows_the_role(runner):
    out = " ".join(runner.invoke(app, ["algorithms", "ledbat"]).output.split())  # wrapped at 80 columns
    assert "role: scavenger (less than best effort): recommended only for background transfers" in out
    dctcp = runner.invoke(app, ["algorithms", "dctcp", "--json"]).output
    assert json.loads(dctcp)[0]["requires"] == ["ecn"]


def test_scavengers_run_only_for_background_and_dctcp_only_where_every_queue_marks_ecn():
    bulk = recommend.candidates(recommend.parse_workload("bulk"), None, ecn=False, incumbent="cubic")
    assert {"ledbat", "lp", "dctcp", "tahoe"} <= set(bulk.not_ranked) and "ledbat" not in bulk.ranked
    assert "scavenger" in bulk.not_ranked["ledbat"] and "ECN" in bulk.not_ranked["dctcp"]
    background = recommend.candidates(recommend.parse_workload("background"), None, ecn=True, incumbent="cubic")
    assert {"ledbat", "lp", "dctcp"} <= set(background.ranked)
    marked = {"downlink": {"queue": {"kind": "droptail", "ecn_threshold": 20}}}
    assert recommend.route_marks_ecn(marked, "down") and not recommend.route_marks_ecn(marked, "up")


def test_ledbat_and_lp_are_never_the_pick_for_a_foreground_workload(runner, tmp_path):
    """Today's code picked ledbat on lte-edge with 3 s runs (issue 50)."""
    args = ["lte-edge", "--duration", "3s", "--algorithms", "ledbat,lp,vegas", "--compete", "none"]
    ans, _ = run_json(runner, tmp_path, *args)
    assert ans["pick"] not in ("ledbat", "lp")
    assert {r["name"] for r in ans["not_ranked"]} == {"ledbat", "lp"}
    assert "Not ranked: ledbat (scavenger), lp (scavenger)." in ans["answer"]
    assert {r["name"] for r in ans["candidates"]} == {"vegas", "cubic"}


def test_on_a_shallow_buffer_bbr_shows_a_large_harm_to_cubic_in_words(runner, tmp_path):
    path = tmp_path / "shallow.toml"
    path.write_text(SHALLOW)
    ans, _ = run_json(runner, tmp_path, str(path), "--duration", "8s", "--algorithms", "bbr")
    bbr, base = row(ans, "bbr")["harm_throughput"], ans["incumbent_harm"]["throughput"]
    assert bbr["mean"] > base["mean"] + answer.LARGE_HARM_GAP and bbr["low"] > base["mean"], (bbr, base)
    assert "large harm to cubic traffic" in ans["answer"], ans["answer"]


def test_with_one_percent_random_loss_reno_is_not_the_pick_for_bulk_and_goodput_shows_why(runner, tmp_path):
    lossy = "examples/lossy-path.toml"
    ans, _ = run_json(runner, tmp_path, lossy, "--duration", "8s", "--algorithms", "reno,bbr", "--compete", "none")
    assert ans["pick"] != "reno"
    reno, pick = row(ans, "reno")["goodput_bps"], row(ans, ans["pick"])["goodput_bps"]
    assert reno["high"] < pick["low"], (reno, pick)  # the table's goodput intervals do not overlap


def test_on_a_deep_buffered_cellular_path_latency_picks_lower_delay_at_cubics_goodput(runner, tmp_path):
    # 30 s: the umts DCH starts on its lowest bearer and upgrades with the buffer, and over the first
    # 10 s every algorithm's p95 is that start's (2018.7 ms for cubic and vegas alike).
    args = ["umts", "--duration", "30s", "--algorithms", "vegas,bbr", "--objective", "latency", "--compete", "none"]
    ans, _ = run_json(runner, tmp_path, *args)
    pick, cubic = row(ans, ans["pick"]), row(ans, "cubic")
    assert ans["pick"] != "cubic"
    assert pick["rtt_p95_ms"]["mean"] < cubic["rtt_p95_ms"]["mean"]
    assert pick["goodput_bps"]["mean"] >= (1 - ans["margin"]) * cubic["goodput_bps"]["mean"]


def test_a_scenario_file_gives_its_path_and_its_flows_are_replaced(tmp_path):
    path = tmp_path / "p.toml"
    path.write_text(SHALLOW)
    raw, _ = recommend.campaign_dict(str(path), reps=1, algorithms=["reno"], compete="none")
    runs = recommend.parse(raw).runs
    assert raw["base"] == str(path.resolve())
    assert {r.scenario["downlink"]["rate"] for r in runs} == {20_000_000}
    assert [f["cc"] for f in runs[0].scenario["flows"]] == ["reno"]


def test_a_mahimahi_trace_is_a_network(tmp_path):
    trace = "trace:python/ccbench/presets/traces/ATT-LTE-driving-2016.down"
    raw, _ = recommend.campaign_dict(trace, reps=1, algorithms=["reno"], compete="none", duration="1s")
    assert recommend.parse(raw).runs[0].scenario["downlink"]["trace"]


def test_capture_needs_the_fit_module_and_says_so_in_one_line(runner, monkeypatch, tmp_path):
    import sys

    monkeypatch.setitem(sys.modules, "ccbench.fit", None)  # as before the fit branch is merged
    result = runner.invoke(app, ["recommend", "capture:x.pcap", "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert result.output == (
        "error: NETWORK: 'capture:x.pcap': capture:FILE needs ccbench.fit (`ccbench fit`), not in this installation\n"
    )
    assert not (tmp_path / "o").exists()


def test_the_web_workload_is_surge_sizes_and_its_objective_is_completion_time():
    sizes = recommend.web_sizes()
    assert sizes == (2139, 5801, 11580, 23113, 62698)  # lognormal(9.357, 1.318) at 0.1, 0.3, ..., 0.9
    raw, _ = recommend.campaign_dict("lte-good", workload="web", reps=1, algorithms=["reno"], compete="none")
    settings = list(raw["factors"]["setting"])
    assert settings[:2] == ["alone (2139B)", "vs itself (2139B)"] and len(settings) == 10
    assert raw["analysis"]["objective"] == "throughput"  # the report's: a file's goodput is size / completion time
    with pytest.raises(recommend.RecommendError, match="--objective: completion needs"):
        answer.objective_of("completion", sized=False)


def test_file_workload_answers_by_completion_time(runner, tmp_path):
    args = ["lte-good", "--duration", "4s", "--workload", "file:200KB", "--algorithms", "reno", "--compete", "none"]
    ans, out = run_json(runner, tmp_path, *args)
    assert ans["objective"] == "completion" and ans["pick"] in ("reno", "cubic")
    assert all(r["completion_ms"]["mean"] > 0 for r in ans["candidates"])
    assert "completion time" in ans["answer"] or ans["pick"] == "cubic"
    saved = json.loads((out / answer.ANSWER_FILE).read_text())
    assert saved["answer"]["pick"] == ans["pick"]
    # the report opens with the answer, and `ccbench report` rebuilds it from the saved runs and options
    (out / "report.html").unlink()
    assert runner.invoke(app, ["report", str(out)]).exit_code == 0
    html = (out / "report.html").read_text()
    assert '<h2 id="answer">The answer</h2>' in html and f"On this path pick {ans['pick']}" in html


def test_the_json_answer_has_its_documented_keys_and_is_deterministic(runner, tmp_path):
    args = ["lte-good", "--duration", "2s", "--algorithms", "reno", "--max-harm", "0.3"]
    a, _ = run_json(runner, tmp_path, *args, name="a")
    b, _ = run_json(runner, tmp_path, *args, name="b")
    keys = {"network", "workload", "direction", "flows", "compete", "objective", "margin", "max_harm", "repetitions"}
    keys |= {"pick", "answer", "decided", "no_pick", "incumbent_harm", "candidates", "not_ranked", "directory"}
    assert set(a) == keys
    assert set(a["candidates"][0]) == {
        "name", "role", "rank", "verdict", "goodput_bps", "rtt_p95_ms", "retrans_pct", "completion_ms", "power",
        "harm_throughput", "harm_delay", "jain_self", "above_max_harm",
    }  # fmt: skip
    assert {k: v for k, v in a.items() if k != "directory"} == {k: v for k, v in b.items() if k != "directory"}
    for r in a["candidates"]:
        assert r["above_max_harm"] == (r["harm_throughput"]["mean"] > 0.3)


def test_a_rerun_with_other_options_into_the_same_directory_is_refused_without_force(runner, tmp_path):
    out = tmp_path / "rec"
    base = ["recommend", "lte-good", "--duration", "1s", "--algorithms", "reno", "--compete", "none", "--jobs", "2"]
    assert runner.invoke(app, [*base, "--out", str(out)]).exit_code == 0
    again = runner.invoke(app, [*base, "--out", str(out), "--flows", "2"], terminal_width=200)
    assert again.exit_code == 2 and again.output.startswith("error: ") and "--force" in again.output
    forced = runner.invoke(app, [*base, "--out", str(out), "--flows", "2", "--force"])
    assert forced.exit_code == 0, forced.output


def test_harm_is_ware_et_al_s_relative_loss():
    # more is better: (x - y) / x; less is better: (y - x) / y
    assert list(harm.harm_values([10.0, 10.0], [6.0, 8.0], True)) == [0.4, 0.2]
    assert list(harm.harm_values([50.0], [100.0], False)) == [0.5]
    assert list(harm.harm_values([10.0], [12.0], True)) == [-0.2]  # a gain is a negative harm


def test_options_are_checked_before_anything_runs(runner, tmp_path):
    out = tmp_path / "o"
    for args, start in (
        (["umts", "--workload", "files"], "error: --workload: 'files' is not allowed"),
        (["umts", "--compete", "nope"], "error: --compete: 'nope' is not allowed"),
        (["umts", "--objective", "speed"], "error: --objective: 'speed' is not allowed"),
        (["umts", "--max-harm", "2"], "error: --max-harm: 2 is not allowed"),
        (["umts", "--objective", "completion"], "error: --objective: completion needs"),
        (["umts", "--profile", "lte-good"], "error: NETWORK and --profile: give one of them"),
        ([], "error: NETWORK: missing"),
    ):
        result = runner.invoke(app, ["recommend", *args, "--out", str(out)], terminal_width=200)
        assert result.exit_code == 2 and result.output.startswith(start), (args, result.output)
        assert not out.exists()


def test_a_capture_is_the_path_ccbench_fit_estimates(runner, tmp_path):
    """capture:FILE runs the candidates on the path `ccbench fit` estimates
    from the capture (examples/fit/path.pcap: 4 Mbit/s, 50 ms base RTT, 1%
    random loss), end to end through the command."""
    from ccbench.fit import fit_capture

    capture = Path(__file__).resolve().parents[1] / "examples" / "fit" / "path.pcap"
    fitted = fit_capture(capture).scenario_dict()
    raw, _ = recommend.campaign_dict(f"capture:{capture}", reps=1, algorithms=["reno"], compete="none", duration="1s")
    runs = recommend.parse(raw).runs
    assert runs[0].scenario["downlink"]["rate"] == pytest.approx(4e6, rel=0.05)
    assert raw["scenario"]["downlink"] == fitted["downlink"]
    out = tmp_path / "o"
    args = ["recommend", f"capture:{capture}", "--duration", "2s", "--algorithms", "reno,bbr", "--compete", "none"]
    result = runner.invoke(app, [*args, "--max-reps", "3", "--out", str(out)], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "pick" in result.output and (out / "report.html").exists()


def test_the_campaign_file_written_beside_the_results_reads_back_as_the_campaign():
    import tomllib

    raw, _ = recommend.campaign_dict("lte-good", workload="file:1MB,2MB", reps=1, algorithms=["reno", "bbr"])
    assert tomllib.loads(recommend.campaign_toml(raw)) == raw
    assert raw["exclude"]  # lists of tables too


@given(
    solo=st.lists(st.floats(0.1, 1e9), min_size=1, max_size=5),
    ratio=st.floats(0.0, 1.0),
)
def test_harm_is_between_zero_and_one_when_the_others_lose(solo, ratio):
    """Throughput at a share `ratio` of the solo mean: harm is 1 - ratio, in [0, 1]."""
    import numpy as np

    x = float(np.mean(solo))
    (h,) = harm.harm_values(solo, [ratio * x], True)
    assert -1e-9 <= h <= 1 + 1e-9 and abs(h - (1 - ratio)) < 1e-9
    (d,) = harm.harm_values(solo, [x / max(ratio, 1e-3)], False)  # delay grown by 1 / ratio
    assert -1e-9 <= d <= 1 + 1e-9


def test_dctcp_is_ranked_on_a_path_whose_queues_mark_ecn(tmp_path):
    path = tmp_path / "dc.toml"
    path.write_text(SHALLOW.replace('queue = { size = "0.25bdp" }', 'queue = { size = "100pkt", ecn_threshold = 20 }'))
    _, marked = recommend.campaign_dict(str(path), reps=1, algorithms=["dctcp"], duration="1s")
    assert marked.ranked == ["dctcp", "cubic"] and not marked.not_ranked
    plain = tmp_path / "plain.toml"
    plain.write_text(SHALLOW)
    _, unmarked = recommend.campaign_dict(str(plain), reps=1, algorithms=["dctcp"], duration="1s")
    assert unmarked.ranked == ["cubic"] and "ECN" in unmarked.not_ranked["dctcp"]
