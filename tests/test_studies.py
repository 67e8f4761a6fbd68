"""The five shipped studies: each runs end to end in its --quick form and its
report section holds every table and figure the study published (by name in
the HTML, and rendered in headless Chromium without console errors); each
shipped file validates like a user file and a copy with one factor changed
runs; the [quick] reduction and the `study` field are checked like any field."""

import html
import json
import re

import pytest
import tomllib
from ccbench.campaigns import quick, spec
from ccbench.campaigns.estimate import (
    KERNEL_RUN_OVERHEAD_S,
    MIN_WINDOW_S,
    REORDERING_FACTOR,
    RUN_OVERHEAD_PACKETS,
    Estimate,
    KernelEstimate,
    duration_text,
    run_cost,
)
from ccbench.campaigns.studies import STUDIES
from ccbench.cli import app
from typer.testing import CliRunner

#: Per study, the ids (tables) and alt texts (figures) its report section must hold.
PARTS = {
    "umts": [
        'id="umts-downlink"',
        'id="umts-uplink"',
        'id="umts-goodput-vs-file-size"',
        'alt="umts-goodput-vs-file-size"',
        'alt="umts-cdfs-downlink"',
        'alt="umts-cdfs-uplink"',
        "Jain&#x27;s index",
        "RTT mean (ms)",
        "RTT std (ms)",
        "queuing time mean (ms)",
        "timeouts per 100 s",
        "retransmitted mean (%)",
        "retransmitted std (%)",
        "channel utilization (%)",
        "(study 122.0; Δ",
    ],
    "hsdpa": [
        'id="hsdpa-downlink"',
        'id="hsdpa-uplink"',
        'id="hsdpa-goodput-vs-file-size"',
        'alt="hsdpa-goodput-vs-file-size"',
        'alt="hsdpa-cdfs-downlink"',
        'alt="hsdpa-cwnd-over-time"',
        'alt="hsdpa-rtt-over-time"',
    ],
    "lte": [
        'id="lte-speed-per-period-and-place"',
        'id="lte-speed-per-algorithm-down"',
        'id="lte-speed-per-algorithm-up"',
        "<b>order</b>",
        'alt="lte-goodput-over-time"',
        "VAMK (lte-good) down (Mbit/s)",
        "Olympia (lte-poor) (Mbit/s)",
        "(study 24.62; Δ",  # VAMK's evening download beside lte-good's
    ],
    "highspeed": [
        'id="highspeed-goodput-windows-switchport256kb"',
        'id="highspeed-goodput-windows-1bdp"',
        'id="highspeed-tcp-tcp-switchport256kb"',
        "recovery",
        "flow 2, 100-125 s",
        'alt="highspeed-goodput-over-time-highspeed-20ms-switchport256kb"',
        'alt="highspeed-goodput-over-time-highspeed-200ms-1bdp"',
    ],
    "wan": [
        'id="wan-mean-throughput"',
        'id="wan-fill-early"',
        'id="wan-default-vs-tuned"',
        'alt="wan-throughput-over-time"',
        'alt="wan-cwnd-ssthresh-vegas"',
    ],
}


@pytest.fixture(scope="session")
def quick_study(tmp_path_factory):
    """`ccbench study NAME --quick` once per session and study: its directory and output."""
    done = {}

    def run(name: str):
        if name not in done:
            out = tmp_path_factory.mktemp(f"study-{name}") / "out"
            args = ["study", name, "--quick", "--out", str(out), "--jobs", "2"]
            result = CliRunner().invoke(app, args, terminal_width=250)
            assert result.exit_code == 0, result.output
            done[name] = (out, result.output)
        return done[name]

    return run


@pytest.mark.parametrize("name", list(STUDIES))
def test_quick_study_report_has_every_table_and_figure(quick_study, name):
    out, output = quick_study(name)
    page = (out / "report.html").read_text(encoding="utf-8")
    assert f'id="study-{name}"' in page
    missing = [p for p in PARTS[name] if p not in page]
    assert not missing, missing
    assert html.escape(STUDIES[name].paper) in page  # cites the study
    assert f"Linux {STUDIES[name].kernel} kernel preset" in page
    assert "report.html" in output


def test_umts_runs_have_no_fitted_receive_window():
    """The study's upload window came from a fitted 14 KiB receive buffer; the uplink's sender now
    sits behind the laptop's PPP queue (the profile's host_queue) and every receiver autotunes."""
    c = spec.parse_study(STUDIES["umts"].path)
    scenarios = [json.loads(r.scenario_json) for r in c.runs]
    assert {s["flows"][0]["tcp"]["rcv_buf"] for s in scenarios} == {"auto"}
    assert {s["uplink"]["host_queue"] for s in scenarios} == {4}
    assert "host_queue" not in scenarios[0]["downlink"]


def test_umts_quick_tables_hold_numbers(quick_study):
    out, _ = quick_study("umts")
    page = (out / "report.html").read_text(encoding="utf-8")
    table = re.search(r'<table class="study" id="umts-downlink">(.*?)</table>', page, re.S).group(1)
    rows = re.findall(r"<tr><td>(\d)</td><td>([^<]+)</td><td>([0-9.]+)", table)
    assert {(n, cc) for n, cc, _ in rows} == {(n, cc) for n in "12" for cc in ("newreno", "bic", "westwood+")}
    assert all(float(g) > 0 for _, _, g in rows)


@pytest.mark.parametrize("name", list(STUDIES))
def test_quick_study_report_renders_in_chromium(require_tool, quick_study, name, tmp_path):
    from tests.test_report_browser import browser

    exe = require_tool("chromium", "chromium-browser", "google-chrome", install="apt-get install chromium")
    out, _ = quick_study(name)
    run = browser(
        exe, tmp_path / "p", "--enable-logging=stderr", "--v=0", "--dump-dom", out.joinpath("report.html").as_uri()
    )
    errors = [line for line in run.stderr.splitlines() if "CONSOLE" in line and ("Error" in line or "Uncaught" in line)]
    assert not errors, errors
    m = re.search(r'data-images-ok="(\d+)/(\d+)"', run.stdout)
    assert m, run.stdout[:2000]
    ok, total = map(int, m.groups())
    assert ok == total and total > 0
    assert all(p.replace("&#x27;", "'") in run.stdout or p in run.stdout for p in PARTS[name] if p.startswith("id="))


@pytest.mark.parametrize("name", list(STUDIES))
def test_shipped_study_file_validates_like_a_user_file(name, tmp_path, runner):
    text = STUDIES[name].text()
    f = tmp_path / f"{name}.toml"
    f.write_text(text, encoding="utf-8")
    full = spec.parse(f)
    assert full.study == name and full.design()["study"] == name
    kernels = {f["tcp"]["kernel"] for r in full.runs for f in r.scenario["flows"]}
    assert kernels == {STUDIES[name].kernel}  # every flow runs the study's Linux release
    small = spec.parse_study(f, quick=True)
    assert len(small.runs) < len(full.runs)
    assert small.repetitions <= full.repetitions and small.factor_names == full.factor_names
    printed = runner.invoke(app, ["study", name, "--print"])
    assert printed.exit_code == 0 and printed.output == text


def test_copy_of_a_study_with_one_factor_changed_runs(tmp_path, runner):
    text = STUDIES["wan"].text()
    assert tomllib.loads(text)["factors"]["flows[*].cc"] == ["reno", "cubic", "vegas"]
    f = tmp_path / "mine.toml"
    f.write_text(text.replace('["reno", "cubic", "vegas"]', '["cubic", "bbr"]'), encoding="utf-8")
    out = tmp_path / "out"
    result = runner.invoke(app, ["campaign", str(f), "--quick", "--out", str(out), "--jobs", "2"], terminal_width=250)
    assert result.exit_code == 0, result.output
    page = (out / "report.html").read_text(encoding="utf-8")
    assert 'id="wan-mean-throughput"' in page and "bbr (Mbit/s)" in page and "vegas (Mbit/s)" not in page


def test_quick_reduction_scales_times_and_keeps_levels():
    raw = {
        "scenario": {"duration": "100s", "udp": [{"start": "50s", "stop": 100}], "flows": [{"cc": "reno"}]},
        "factors": {
            "experiment": {"a": {"duration": "125s", "flows": [{"cc": "reno", "start": "25s"}]}, "b": {}},
            "duration": ["100s", "300s"],
            "flows[*].cc": ["reno", "cubic"],
        },
        "exclude": [{"flows[*].cc": "cubic", "duration": "300s"}],
        "quick": {"repetitions": 2, "time_scale": 0.1, "levels": {"experiment": ["a"], "duration": ["100s"]}},
    }
    out = quick.reduce(raw)
    assert "quick" not in out and out["repetitions"] == 2
    assert out["scenario"]["duration"] == "10s" and out["scenario"]["udp"] == [{"start": "5s", "stop": 10.0}]
    assert out["factors"]["experiment"] == {"a": {"duration": "12.5s", "flows": [{"cc": "reno", "start": "2.5s"}]}}
    assert out["factors"]["duration"] == ["10s"] and out["factors"]["flows[*].cc"] == ["reno", "cubic"]
    assert "exclude" not in out  # the rule named a level the quick form drops
    assert raw["scenario"]["duration"] == "100s"  # the input is not changed


def test_quick_levels_survive_an_edit_of_the_factors_levels():
    # The [quick] table was written for levels the user has since changed.
    raw = {
        "scenario": {"duration": "100s", "downlink": {"rate": "1Mbit"}, "flows": [{"cc": "reno"}]},
        "factors": {"duration": ["50s", "200s"], "flows[*].cc": ["cubic", "bbr", "reno"]},
        "quick": {"time_scale": 0.1, "levels": {"duration": ["100s"], "flows[*].cc": ["reno", "vegas"]}},
    }
    out = quick.reduce(raw)
    assert out["factors"]["duration"] == ["5s"]  # none left: the first level, scaled
    assert out["factors"]["flows[*].cc"] == ["reno"]  # the listed levels still there
    assert quick.stale_levels(raw) == {"duration": ["100s"], "flows[*].cc": ["vegas"]}
    assert len(spec.parse_study(raw, quick=True).runs) == 1


def test_an_edited_study_file_with_new_durations_runs_its_quick_form(tmp_path):
    text = STUDIES["wan"].text().replace('duration = ["100s", "300s", "2000s"]', 'duration = ["50s", "150s"]')
    f = tmp_path / "wan.toml"
    f.write_text(text, encoding="utf-8")
    small = spec.parse_study(f, quick=True)
    assert {json.loads(r.scenario_json)["duration"] for r in small.runs} == {5.0}  # seconds, once checked


def test_quick_scales_every_duration_unit_the_core_reads():
    assert quick.scale_time("2min", 0.1) == "12s"
    assert quick.scale_time("1500us", 2) == "0.003s"
    assert quick.scale_time(" 100 ms", 0.5) == "0.05s"
    assert quick.scale_time(30, 0.1) == 3.0
    assert quick.scale_time("5 parsecs", 0.1) == "5 parsecs"  # left for the scenario check to report


@pytest.mark.parametrize(
    ("quick_table", "path"),
    [
        ({"levels": {"nope": ["reno"]}}, 'quick.levels."nope"'),
        ({"time_scale": 2}, "quick.time_scale"),
        ({"repetitions": 0}, "quick.repetitions"),
        ({"tables": {"flows[0].cc": {}}}, 'quick.tables."flows[0].cc"'),
        ({"speed": 1}, "quick.speed"),
    ],
)
def test_bad_quick_table_names_the_field(quick_table, path):
    raw = {
        "scenario": {"duration": "1s", "downlink": {"rate": "1Mbit", "delay": "10ms"}, "flows": [{"cc": "reno"}]},
        "factors": {"flows[0].cc": ["reno", "cubic"]},
        "quick": quick_table,
    }
    with pytest.raises(spec.CampaignFileError) as e:
        spec.parse(raw)
    assert e.value.path == path


def test_unknown_study_names_the_field():
    raw = {
        "study": "gprs",
        "scenario": {"duration": "1s", "downlink": {"rate": "1Mbit"}, "flows": [{"cc": "reno"}]},
        "factors": {"flows[0].cc": ["reno"]},
    }
    with pytest.raises(spec.CampaignFileError) as e:
        spec.parse(raw)
    assert e.value.path == "study" and "umts" in e.value.detail


@pytest.mark.parametrize(
    ("about", "path"),
    [
        ({"title": 3}, "about.title"),
        ({"year": "2008"}, "about.year"),
        ({"reference": "31.8%"}, "about.reference"),
        ("S1", "about"),
    ],
)
def test_a_bad_about_table_names_the_field(about, path):
    raw = {
        "about": about,
        "scenario": {"duration": "1s", "downlink": {"rate": "1Mbit"}, "flows": [{"cc": "reno"}]},
        "factors": {"flows[0].cc": ["reno"]},
    }
    with pytest.raises(spec.CampaignFileError) as e:
        spec.parse(raw)
    assert e.value.path == path


def test_each_study_is_described_by_its_own_file():
    """A study's metadata and published numbers are its campaign file's [about] table, and the
    parsed campaign carries them to its report (an edited copy keeps its own)."""
    import tomllib
    from ccbench.campaigns.study_report import _about

    for s in STUDIES.values():
        about = tomllib.loads(s.text())["about"]
        assert (s.title, s.paper, s.kernel) == (about["title"], about["paper"], about["kernel"])
        assert spec.parse(s.path).design()["about"] == about
    assert STUDIES["umts"].reference["down"]["goodput_kbps"] == 122.03
    assert STUDIES["lte"].reference["place_of_profile"]["lte-good"] == "VAMK"
    edited = type("Data", (), {"design": {"about": {"reference": {"down": {"goodput_kbps": 100.0}}}}})()
    assert _about(edited, "umts")["reference"]["down"]["goodput_kbps"] == 100.0
    older = type("Data", (), {"design": {"study": "umts"}})()  # a directory written before [about]
    assert _about(older, "umts")["reference"] == STUDIES["umts"].reference


def test_studies_lists_the_five_with_sources(runner):
    result = runner.invoke(app, ["studies"], terminal_width=250)
    assert result.exit_code == 0
    for s in STUDIES.values():
        assert s.name in result.output and s.source[:20] in result.output
        assert "--quick" in result.output and "--full" in result.output


def test_unknown_study_exits_2(runner):
    result = runner.invoke(app, ["study", "gprs"])
    assert result.exit_code == 2 and "umts" in result.output


def test_study_into_another_campaigns_directory_is_refused_unless_force(tmp_path, runner, monkeypatch):
    """The refusal advises --force, which study lacked; with it the directory switches to the
    study as with `campaign --force` (stopped at the directory's check: the study itself takes minutes)."""
    from ccbench.campaigns import storage

    f = tmp_path / "c.toml"
    f.write_text(
        '[scenario]\nduration = "0.5s"\ndownlink = { rate = "5Mbit" }\nflows = [{ cc = "reno" }]\n'
        '[factors]\n"flows[0].cc" = ["reno"]\n'
    )
    out = tmp_path / "out"
    assert runner.invoke(app, ["campaign", str(f), "--out", str(out), "--jobs", "1"]).exit_code == 0
    refused = runner.invoke(app, ["study", "umts", "--quick", "--out", str(out)], terminal_width=300)
    assert refused.exit_code == 2 and "another campaign file" in refused.output and "--force" in refused.output
    forced = []

    def prepare(directory, campaign, force, version):
        forced.append((campaign.study, force))
        raise storage.CampaignDirectoryError("stopped by the test")

    monkeypatch.setattr(storage, "prepare", prepare)
    result = runner.invoke(app, ["study", "umts", "--quick", "--out", str(out), "--force"], terminal_width=300)
    assert result.output == "error: stopped by the test\n" and forced == [("umts", True)]


def test_estimate_weighs_runs_by_packets():
    fast = {"duration": 100.0, "downlink": {"rate": 1e6}}
    slow = {"duration": 100.0, "downlink": {"rate": 100e6}}
    assert run_cost(slow) > 20 * run_cost(fast)


def test_a_runs_cost_is_what_its_data_link_carries_or_its_transfers_send():
    """`ccbench study hsdpa` took twice the time its estimate said: its
    uploads (a 384 kbit/s uplink) and its transfers of 50-500 KB cost a
    fraction of a download's, but every run was weighed by the downlink."""
    links = {"downlink": {"rate": 2e6}, "uplink": {"rate": 384e3}}
    flow = {"cc": "reno", "count": 1}

    def cost(**kw):
        return run_cost({"duration": 100.0, **links, **kw})

    down, up = cost(flows=[{**flow, "direction": "down"}]), cost(flows=[{**flow, "direction": "up"}])
    assert down - RUN_OVERHEAD_PACKETS == pytest.approx(100 * 2e6 / 8 / 1500)
    assert up - RUN_OVERHEAD_PACKETS == pytest.approx(100 * 384e3 / 8 / 1500)
    assert cost(flows=[{**flow, "direction": "up"}, {**flow, "direction": "down"}]) == down
    transfer = cost(flows=[{**flow, "direction": "down", "size": 150_000, "count": 2}])
    assert transfer - RUN_OVERHEAD_PACKETS == pytest.approx(200)
    # Other traffic beside the transfers: the link's packets again.
    background = {"kind": "poisson-web", "direction": "down"}
    assert cost(flows=[{**flow, "direction": "up", "size": 150_000}], background=background) == down
    # The dumbbell without an uplink: the "up" flows' data crosses the downlink's copy.
    assert run_cost({"duration": 100.0, "downlink": {"rate": 2e6}, "flows": [{**flow, "direction": "up"}]}) == down
    # Jitter that reorders: every segment ACKed (the wan study's jittered runs took 3-4 times as long).
    jittered = {**links["downlink"], "jitter": {"distribution": "uniform", "max": 0.002, "reorder": True}}
    in_order = {**jittered, "jitter": {**jittered["jitter"], "reorder": False}}
    reordering = run_cost({"duration": 100.0, "downlink": jittered, "flows": [{**flow, "direction": "down"}]})
    assert reordering - RUN_OVERHEAD_PACKETS == pytest.approx(REORDERING_FACTOR * (down - RUN_OVERHEAD_PACKETS))
    assert run_cost({"duration": 100.0, "downlink": in_order, "flows": [{**flow, "direction": "down"}]}) == down


def _estimate_plan(scenarios):
    """A campaign's plan as Estimate reads it: runs with a key and a scenario."""

    class Plan:
        runs = [type("R", (), {"key": f"r{i}", "scenario": s})() for i, s in enumerate(scenarios)]

    return Plan()


def test_estimate_leaves_out_the_start_up_and_speaks_once():
    """The estimate of a campaign of short runs came out 16 times its length
    (`ccbench study umts`: about 65 s for 3.9 s of runs): it divided the time
    since it was made, the workers' start-up and their first runs included,
    by the cost of the first runs. Now each worker's speed is the cost of its
    runs after its first over the time they took, gaps included."""
    from ccbench.campaigns.runner import Progress

    fast = {"duration": 100.0, "downlink": {"rate": 1e6}}
    slow = {"duration": 100.0, "downlink": {"rate": 100e6}}
    plan = _estimate_plan([fast] * 10 + [slow] * 4)
    now = [100.0]
    e = Estimate(plan, jobs=2, clock=lambda: now[0])
    progress = Progress(total=14, todo=tuple(r.key for r in plan.runs))
    w = MIN_WINDOW_S

    def back(runs):
        progress.finished.extend(runs)
        return e.update(progress)

    # Worker a: its first run ends at 1000 (after a long start-up), the next
    # ones every w/2 s; worker b runs at half its speed.
    assert back([("r0", "a", 1000.0), ("r1", "a", 1000.0 + w / 2)]) is None  # b not heard from
    assert back([("r2", "b", 500.0), ("r3", "b", 500.0 + w)]) is None  # one timed run each
    assert back([("r4", "a", 1000.0 + w)]) is None  # b: still one
    now[0] += 7.0
    line = back([("r5", "b", 500.0 + 2 * w)])
    # a: 2 fast runs in w s, b: 2 in 2w s: 3 fast runs' cost per w seconds.
    per_fast_run = w / 3
    left = 4 * run_cost(fast) + 4 * run_cost(slow)
    expected = left / run_cost(fast) * per_fast_run
    assert e.remaining_seconds(progress) == pytest.approx(expected)
    assert line == (
        f"expected running time: about {duration_text(7.0 + expected)} in all, {duration_text(expected)} to go "
        "(measured from 4 runs on 2 workers)"
    )
    assert back([("r6", "a", 1000.0 + 1.5 * w)]) is None  # once


def test_estimate_waits_for_each_worker_to_run_long_enough():
    from ccbench.campaigns.runner import Progress

    plan = _estimate_plan([{"duration": 100.0, "downlink": {"rate": 1e6}}] * 10)
    e = Estimate(plan, jobs=1, clock=lambda: 0.0)
    progress = Progress(total=10, todo=tuple(r.key for r in plan.runs))
    progress.finished += [("r0", "a", 0.0), ("r1", "a", 0.1), ("r2", "a", MIN_WINDOW_S / 2)]
    assert e.update(progress) is None
    progress.finished.append(("r3", "a", MIN_WINDOW_S))
    line = e.update(progress)
    assert line and line.startswith("expected running time: about 4 s in all, 4 s to go (measured from 3 runs")


def test_estimate_keeps_quiet_about_a_campaign_shorter_than_asked():
    from ccbench.campaigns.runner import Progress

    plan = _estimate_plan([{"duration": 100.0, "downlink": {"rate": 1e6}}] * 10)
    progress = Progress(total=10, todo=tuple(r.key for r in plan.runs))
    progress.finished += [(f"r{i}", "a", i * MIN_WINDOW_S) for i in range(4)]  # 6 runs left, one per window
    short = Estimate(plan, jobs=1, clock=lambda: 0.0)
    assert short.update(progress, at_least_s=6.5 * MIN_WINDOW_S) is None
    progress.finished.append(("r4", "a", 4 * MIN_WINDOW_S))
    assert short.update(progress) is None  # decided once, when measured
    long = Estimate(plan, jobs=1, clock=lambda: 0.0)
    assert long.update(progress, at_least_s=4.5 * MIN_WINDOW_S) is not None  # 5 runs left


def test_estimate_reads_each_outcome_once_and_takes_a_late_first_run_as_first():
    """The bar asks at each batch of outcomes (8 runs at most): reading every
    outcome each time made a campaign of N runs cost N*N/8 reads."""
    from ccbench.campaigns.runner import Progress

    plan = _estimate_plan([{"duration": 100.0, "downlink": {"rate": 1e6}}] * 400)
    e = Estimate(plan, jobs=1, clock=lambda: 0.0)

    class Counted(dict):
        reads = 0

        def __getitem__(self, key):
            Counted.reads += 1
            return super().__getitem__(key)

    e.costs = Counted(e.costs)
    progress = Progress(total=400, todo=tuple(r.key for r in plan.runs))
    # Run 1 is reported before run 0, which ended first: run 0 is the worker's first.
    progress.finished += [("r1", "a", 1.0), ("r0", "a", 0.0)]
    for i in range(2, 400, 8):
        progress.finished += [(f"r{k}", "a", float(k)) for k in range(i, min(i + 8, 400))]
        e.remaining_seconds(progress)
    assert Counted.reads == 400 + 400  # the plan's runs once (todo), each outcome once
    assert e.speed(progress) == (pytest.approx(399 * run_cost(plan.runs[0].scenario) / 399.0), 399)


def test_estimate_counts_only_the_runs_this_session_runs():
    """Resumed, a campaign runs only what is left: runs done before are no work to come."""
    from ccbench.campaigns.runner import Progress

    plan = _estimate_plan([{"duration": 10.0, "downlink": {"rate": 1e6}}] * 10)
    e = Estimate(plan, jobs=1, clock=lambda: 0.0)
    progress = Progress(total=10, skipped=4, done=8, todo=tuple(f"r{i}" for i in range(4, 10)))
    progress.finished += [(f"r{i}", "a", i * MIN_WINDOW_S) for i in range(4, 8)]  # one run per MIN_WINDOW_S
    assert e.remaining_seconds(progress) == pytest.approx(2 * MIN_WINDOW_S)


def test_a_kernel_campaign_is_estimated_from_its_durations_before_any_run():
    """Kernel mode runs one run at a time in real time: the bar's ETA and the
    expected running time are known at once, and count what is left."""
    from ccbench.campaigns.runner import Progress

    plan = _estimate_plan([{"duration": 30.0, "downlink": {"rate": 1e9}}] * 3 + [{"duration": 90.0}])
    e = KernelEstimate(plan)
    progress = Progress(total=4, todo=tuple(r.key for r in plan.runs))
    whole = 3 * 30 + 90 + 4 * KERNEL_RUN_OVERHEAD_S
    assert e.update(progress, at_least_s=whole + 1) is None and e.update(progress) is None  # decided once
    assert KernelEstimate(plan).update(progress, at_least_s=60) == (
        f"expected running time: about {duration_text(whole)} (kernel mode runs one run at a time, "
        f"each in its duration of real time plus about {KERNEL_RUN_OVERHEAD_S:g} s)"
    )
    progress.finished += [("r3", "kernel", 95.0), ("r0", "kernel", 126.0)]
    assert e.remaining_seconds(progress) == pytest.approx(2 * (30 + KERNEL_RUN_OVERHEAD_S))
    resumed = Progress(total=4, skipped=3, todo=("r1",))
    assert e.remaining_seconds(resumed) == pytest.approx(30 + KERNEL_RUN_OVERHEAD_S)


def test_highspeed_variants_tie_on_a_one_bdp_queue_and_separate_on_a_shallow_one():
    """The highspeed report's explanation of rows equal to Reno's: on a one-BDP
    queue Reno keeps the 1 Gbit/s link busy after a halving and Compound's
    delay window gives way at 30 queued segments, so both are capacity-limited;
    with a tenth of a BDP, Compound's dwnd fills what Reno leaves idle."""
    import ccbench

    def throughput(cc: str, queue: str) -> float:
        flow = {"cc": cc, "tcp": {"kernel": "2.6.26"}}
        run = ccbench.run({"duration": "10s", "profile": {"name": "highspeed-20ms", "queue": queue}, "flows": [flow]})
        return float(run.flows["throughput_bps"].iloc[0])

    reno, compound = throughput("reno", "bdp"), throughput("compound", "bdp")
    assert abs(compound - reno) < 0.01 * reno and reno > 0.85e9
    assert throughput("compound", "tenth") > 1.2 * throughput("reno", "tenth")


def test_cellular_utilization_is_the_sum_of_a_runs_goodputs_over_the_nominal_rate():
    import pandas as pd
    from ccbench.campaigns import study_report

    assert study_report._study_profile("umts") == "umts" and study_report._study_profile("hsdpa") == "hsdpa"
    flows = pd.DataFrame({"run": ["a", "a", "b"], "goodput_bps": [60e3, 62.03e3, 122.03e3]})
    assert study_report._nominal_utilization(flows, 384e3) == pytest.approx(122.03 / 384)  # the study's 31.8%


def test_identical_repetitions_are_shown_as_one_number_not_a_spread_of_zero():
    import pandas as pd
    from ccbench.campaigns import study_report

    same = study_report._mean_std_or_identical(pd.Series([95.6, 95.6, 95.6]))
    assert same.startswith("95.6") and "identical in all 3 runs" in same and "±" not in same
    spread = study_report._mean_std_or_identical(pd.Series([90.0, 92.0]))
    assert spread.startswith("91.0") and "± 1.4" in spread
    assert study_report._mean_std_or_identical(pd.Series([], dtype=float)) == "–"


def test_highspeed_pairs_are_the_specs_and_never_share_a_part_with_single_flows():
    raw = tomllib.loads(STUDIES["highspeed"].text())
    levels = raw["factors"]["experiment"]
    gains = ["kp=4 kd=8000", "kp=4 kd=4000", "kp=4 kd=2000", "kp=2 kd=4000", "kp=2 kd=2000", "kp=2 kd=1000"]
    ccpds = [f"ccpd {g}" for g in gains + ["kp=1 kd=1000"]]
    singles = ["reno", "cubic", "compound", "ccp kp=1", "ccp kp=2", "ccp kp=4", *ccpds]
    assert [v for v in levels if "/" not in v] == singles
    pairs = {v for v in levels if "/" in v}
    for v in singles:  # homogeneous
        assert f"{v} / {v}" in pairs
    for d in ccpds:  # every CCPD gain pair against Reno, Cubic and Compound, both orders
        for other in ("reno", "cubic", "compound"):
            assert {f"{d} / {other}", f"{other} / {d}"} <= pairs
    assert len(pairs) == len(singles) + 6 * len(ccpds)
    excluded = {(r["part"], r["experiment"]) for r in raw["exclude"]}
    assert excluded == {("TCP/TCP", v) for v in singles} | {("one flow + UDP", v) for v in pairs}
    assert raw["analysis"]["objective"] == "goodput"


def test_estimate_leaves_the_copied_repetitions_out_of_the_time_to_go():
    """Repetitions copied from a first run that drew nothing (campaigns.repeats)
    are done without a worker: their cost is not left, and they do not count
    as a worker that has yet to be measured."""
    from ccbench.campaigns.runner import Progress

    plan = _estimate_plan([{"duration": 100.0, "downlink": {"rate": 1e6}}] * 10)
    e = Estimate(plan, jobs=1, clock=lambda: 0.0)
    progress = Progress(total=10, todo=tuple(r.key for r in plan.runs))
    progress.finished += [(f"r{i}", "a", i * MIN_WINDOW_S / 2) for i in range(5)]  # 5 runs left
    assert e.remaining_seconds(progress) == pytest.approx(5 * MIN_WINDOW_S / 2)
    progress.copied += ["r5", "r6", "r7"]
    assert e.remaining_seconds(progress) == pytest.approx(2 * MIN_WINDOW_S / 2)
