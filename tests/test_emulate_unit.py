"""Kernel mode without the kernel: refusals, settings, TCP_INFO parsing and
the preflight messages (these run everywhere, root or not)."""

from __future__ import annotations

import math
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from ccbench.compare import algorithm_names
from ccbench.emulate import agent, host, kernel, runner, tcp_info
from ccbench.emulate.runner import agent_plans, plan_flows
from ccbench.scenario import load

AVAILABLE = ["reno", "cubic", "bbr"]


def scenario(**flow) -> dict:
    flows = flow.pop("flows", None) or [{"cc": "cubic", **flow}]
    return load({"duration": "2s", "downlink": {"rate": "10Mbit", "delay": "10ms"}, "flows": flows})


def test_simulator_only_algorithm_is_refused_with_the_reason_and_the_kernel_list():
    with pytest.raises(kernel.KernelModeError) as e:
        kernel.check(scenario(cc="ledbat"), AVAILABLE)
    assert e.value.path == "flows[0].cc"
    assert "simulator only" in str(e.value) and "reno, cubic, bbr" in str(e.value)


@pytest.mark.parametrize("cc", ["copa", "vivace"])
def test_copa_and_vivace_are_refused_by_name_even_if_a_module_of_that_name_exists(cc):
    # Out-of-tree modules named copa or pcc are not the simulator's algorithms.
    with pytest.raises(kernel.KernelModeError) as e:
        kernel.check(scenario(cc=cc), [*AVAILABLE, cc])
    assert e.value.path == "flows[0].cc"
    assert f'"{cc}" is' in str(e.value) and "simulator only" in str(e.value)


def test_algorithm_missing_from_the_kernel_lists_what_it_has():
    with pytest.raises(kernel.KernelModeError, match=r'lacks "vegas"; it has: reno, cubic, bbr'):
        kernel.check(scenario(cc="vegas"), AVAILABLE)


def test_westwood_plus_is_the_kernels_westwood():
    assert kernel.kernel_algorithm("westwood+", ["westwood"]) == "westwood"
    kernel.check(scenario(cc="westwood+"), ["westwood"])
    s = scenario(cc="westwood+")
    assert agent_plans(s, plan_flows(s, ["westwood"]))["snd"]["tcp_senders"][0]["cc"] == "westwood"
    with pytest.raises(kernel.KernelModeError, match=r'lacks "westwood".*modprobe tcp_westwood\)'):
        kernel.check(scenario(cc="westwood+"), AVAILABLE)


def test_out_of_tree_algorithms_are_refused_by_name_unless_the_kernel_has_them():
    with pytest.raises(kernel.KernelModeError, match=r'lacks "prague": it is TCP Prague .*not in mainline'):
        kernel.check(scenario(cc="prague"), AVAILABLE)
    assert kernel.kernel_algorithm("prague", AVAILABLE + ["prague"]) == "prague"


def test_kernel_mode_reads_each_algorithms_linux_module_from_the_registry():
    # The registry's entries are the one definition (cc/NAME.rs INFO.linux):
    # renamed modules map, simulator-only ones are refused with why, and
    # out-of-tree ones say where they live.
    assert kernel.linux_module("westwood+") == "westwood"
    assert kernel.linux_module("newreno") == "reno"
    assert kernel.linux_module("cubic") == "cubic"
    assert kernel.linux_module("tahoe") is None
    assert kernel.kernel_support("westwood", AVAILABLE) == (
        "no, simulator only: the original per-ACK Westwood (Linux's westwood is westwood+)"
    )
    assert kernel.kernel_support("bbr3", AVAILABLE).startswith("no, not in this kernel: BBRv3 (")
    for name in algorithm_names():
        support = kernel.kernel_support(name, AVAILABLE + ["prague", "bbr3"])
        assert support.startswith(("yes, Linux's ", "no, simulator only: ", "no, not in this kernel (")), support


def test_newreno_is_the_kernels_reno_and_reno_without_sack_is_refused():
    # Linux's reno recovers as NewReno; without SACK the simulator's reno is
    # RFC 5681 Reno, which no kernel runs.
    assert kernel.kernel_algorithm("newreno", AVAILABLE) == "reno"
    kernel.check(scenario(cc="newreno", tcp={"sack": False}), AVAILABLE)
    kernel.check(scenario(cc="reno"), AVAILABLE)
    with pytest.raises(kernel.KernelModeError, match='use "newreno"') as e:
        kernel.check(scenario(cc="reno", tcp={"sack": False}), AVAILABLE)
    assert e.value.path == "flows[0].cc"


def test_an_mss_beyond_one_full_size_packet_is_refused_with_the_core_sizes():
    with pytest.raises(kernel.KernelModeError, match="at most 1448") as e:
        kernel.check(scenario(tcp={"mss": 1449}), AVAILABLE)
    assert e.value.path == "flows[0].tcp.mss"
    kernel.check(scenario(tcp={"mss": 1460, "timestamps": False}), AVAILABLE)
    with pytest.raises(kernel.KernelModeError, match="at most 1460"):
        kernel.check(scenario(tcp={"mss": 1461, "timestamps": False}), AVAILABLE)


def test_a_host_queue_is_refused_for_the_flows_that_send_over_it():
    umts = {"duration": "2s", "profile": "umts"}  # its uplink has the laptop's PPP queue
    with pytest.raises(kernel.KernelModeError, match="cannot hold the sender back") as e:
        kernel.check(load({**umts, "flows": [{"cc": "cubic", "direction": "up"}]}), AVAILABLE)
    assert e.value.path == "uplink.host_queue"
    kernel.check(load({**umts, "flows": [{"cc": "cubic", "direction": "down"}]}), AVAILABLE)  # ACKs only


def test_settings_the_kernel_fixes_are_refused_by_field():
    with pytest.raises(kernel.KernelModeError) as e:
        kernel.check(scenario(tcp={"delack_segments": 3}), AVAILABLE)
    assert e.value.path == "flows[0].tcp.delack_segments"
    with pytest.raises(kernel.KernelModeError) as e:
        kernel.check(scenario(tcp={"prr": False}), AVAILABLE)
    assert str(e.value).startswith("flows[0].tcp.prr: false cannot be set")  # as TOML writes it
    with pytest.raises(kernel.KernelModeError, match="fq qdisc"):
        kernel.check(scenario(tcp={"pacing": True}), AVAILABLE)


@pytest.mark.parametrize(
    "tcp",
    [
        {"frto": "off"},
        {"frto": "rfc4138"},
        {"adv_win_scale": 2},
        {"skb_overhead": 500},
        {"cwnd_counts": "acks"},
        {"fack": True},
    ],
    ids=str,
)
def test_receive_accounting_and_frto_the_kernel_cannot_take_are_refused_by_field(tcp):
    (key,) = tcp
    with pytest.raises(kernel.KernelModeError, match="cannot be set") as e:
        kernel.check(scenario(tcp=tcp), AVAILABLE)
    assert e.value.path == f"flows[0].tcp.{key}"
    with pytest.raises(kernel.KernelModeError) as e:
        kernel.check(with_background({"kind": "poisson-web", "load": 0.2, "direction": "up", "tcp": tcp}), AVAILABLE)
    assert e.value.path == f"background.tcp.{key}"


def test_flows_of_one_namespace_must_agree_on_namespace_settings():
    s = scenario(flows=[{"cc": "cubic"}, {"cc": "newreno", "tcp": {"sack": False}}])
    with pytest.raises(kernel.KernelModeError) as e:
        kernel.check(s, AVAILABLE)
    assert e.value.path == "flows[1].tcp.sack"
    # In opposite directions they may differ.
    kernel.check(
        scenario(flows=[{"cc": "cubic"}, {"cc": "newreno", "direction": "up", "tcp": {"sack": False}}]), AVAILABLE
    )


def test_route_options_carry_initcwnd_rto_min_advmss_and_quickack():
    tcp = scenario(tcp={"init_cwnd": 4, "min_rto": "50ms", "delayed_ack": False})["flows"][0]["tcp"]
    assert kernel.route_options(tcp, tcp) == [
        "initcwnd",
        "4",
        "rto_min",
        "50ms",
        "advmss",
        "1460",
        "quickack",
        "1",
    ]
    assert kernel.namespace_sysctls(tcp)["net.ipv4.tcp_rmem"] == "4096 131072 6291456"


def test_the_first_receive_window_is_the_receivers_route_initrwnd():
    tcp = scenario(tcp={"init_rcv_wnd": 10})["flows"][0]["tcp"]
    assert kernel.route_options(None, tcp)[-2:] == ["initrwnd", "10"]
    assert "initrwnd" not in kernel.route_options(None, scenario()["flows"][0]["tcp"])
    s = scenario(flows=[{"cc": "cubic"}, {"cc": "reno", "tcp": {"init_rcv_wnd": 10}}])
    with pytest.raises(kernel.KernelModeError, match="initrwnd") as e:
        kernel.check(s, AVAILABLE)
    assert e.value.path == "flows[1].tcp.init_rcv_wnd"


def test_a_fixed_send_buffer_holds_the_simulators_segments_in_the_kernel():
    # Simulator (send_buffer.rs): N = 10240 // 1448 = 7 segments, the writer woken at (2N - 1) // 3 = 4.
    tcp = scenario(tcp={"snd_buf": 10240})["flows"][0]["tcp"]
    so = kernel.so_sndbuf(tcp)
    sk_sndbuf = 2 * so  # Linux doubles SO_SNDBUF
    # tcp_sendmsg takes a new one-segment skb while the queue is below sk_sndbuf; the writer
    # wakes at two thirds of it. Same counts for the truesize the simulator assumes (2248)
    # and the one measured on 6.18 (about 2.3 KB).
    for truesize in (1448 + 800, 2300):
        assert math.ceil(sk_sndbuf / truesize) == 7
        assert math.floor(2 * sk_sndbuf / 3 / truesize) == 4
    assert kernel.fixed_send_buffer(tcp)
    auto = scenario()["flows"][0]["tcp"]
    assert kernel.so_sndbuf(auto) is None and not kernel.fixed_send_buffer(auto)
    s = scenario(tcp={"snd_buf": 10240})
    assert agent_plans(s, plan_flows(s, AVAILABLE))["snd"]["tcp_senders"][0]["snd_buf"] == so


def test_a_fixed_receive_buffer_is_set_then_fitted_to_its_window():
    s = scenario(tcp={"rcv_buf": 14336})
    receiver = agent_plans(s, plan_flows(s, AVAILABLE))["rcv"]["tcp_receivers"][0]
    assert receiver["rcv_buf"] == 14336  # set, then fitted to a window of 14336 bytes
    s = scenario()
    receiver = agent_plans(s, plan_flows(s, AVAILABLE))["rcv"]["tcp_receivers"][0]
    assert receiver["rcv_buf"] is None  # "auto": the kernel's autotuning


def test_flows_of_one_direction_must_all_have_a_fixed_send_buffer_or_none():
    s = scenario(flows=[{"cc": "cubic", "tcp": {"snd_buf": 10240}}, {"cc": "cubic"}])
    with pytest.raises(kernel.KernelModeError, match="one-segment skbs") as e:
        kernel.check(s, AVAILABLE)
    assert e.value.path == "flows[1].tcp.snd_buf"
    kernel.check(
        scenario(flows=[{"cc": "cubic", "tcp": {"snd_buf": 10240}}, {"cc": "cubic", "tcp": {"snd_buf": 20480}}]),
        AVAILABLE,
    )


def test_a_capture_runs_in_kernel_mode_but_not_in_a_side_by_side_comparison(tmp_path, monkeypatch):
    from ccbench.emulate import sidebyside

    s = scenario()
    s["record"]["pcap"] = {"path": "k.pcap", "link": "both", "snaplen": 128}
    kernel.check(s, AVAILABLE)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(kernel.KernelModeError, match="capture one run") as e:
        sidebyside.compare(s)
    assert e.value.path == "record.pcap" and not list(tmp_path.iterdir())


def test_a_side_by_side_comparison_checks_every_algorithm_before_the_first_runs(monkeypatch):
    from ccbench import api
    from ccbench.emulate import sidebyside

    def must_not_run(*args, **kwargs):
        raise AssertionError("a run started before every algorithm was checked")

    monkeypatch.setattr(kernel, "available_algorithms", lambda: AVAILABLE)
    monkeypatch.setattr(sidebyside, "emulate", must_not_run)
    monkeypatch.setattr(api, "run", must_not_run)
    with pytest.raises(kernel.KernelModeError, match="lacks") as e:
        sidebyside.compare(scenario(), algorithms=["cubic", "vegas"])
    assert e.value.path == "flows[0].cc"
    with pytest.raises(kernel.KernelModeError, match="unknown algorithm 'cubc'") as e:
        sidebyside.compare(scenario(), algorithms=["cubic", "cubc"])
    assert e.value.path == "--cc cubc" and "<dict>" not in str(e.value)


def test_mode_emulate_checks_each_run_without_writing_its_scenario_out(tmp_path, monkeypatch):
    """`ccbench campaign --mode emulate` checks every run before the first
    starts; reading each run's scenario back from its text took 53 ms a run
    over a 3.4 MB trace (10 s before a campaign of 200 runs started)."""
    import typer
    from ccbench.campaigns import spec
    from ccbench.cli import campaign as campaign_cli

    (tmp_path / "cell.down").write_text("\n".join(str(t) for t in range(1, 3001)) + "\n")
    (tmp_path / "c.toml").write_text(
        '[scenario]\nduration = "1s"\ndownlink = { trace = "cell.down", delay = "10ms" }\n'
        'flows = [{ cc = "cubic" }]\n[factors]\n"flows[0].cc" = ["reno", "cubic"]\n'
    )
    parsed = spec.parse(tmp_path / "c.toml")
    monkeypatch.setattr(host, "preflight", lambda: None)
    monkeypatch.setattr(kernel, "available_algorithms", lambda: AVAILABLE)
    monkeypatch.setattr(spec.Run, "scenario_json", property(lambda run: pytest.fail("a run's text was written")))
    assert campaign_cli._kernel_mode_executor(parsed, "local") == "kernel"
    vegas = spec.parse(tmp_path / "c.toml")
    vegas.runs[0].scenario["flows"][0]["cc"] = "vegas"  # a level the kernel lacks is refused by name
    with pytest.raises(typer.Exit):
        campaign_cli._kernel_mode_executor(vegas, "local")


def test_a_capture_that_cannot_be_created_is_refused_before_anything_runs(tmp_path):
    s = scenario(cc="reno")
    s["record"]["pcap"] = {"path": "caps/k.pcap", "link": "both", "snaplen": 128}
    (tmp_path / "blocker").write_text("a file, not a folder")
    with pytest.raises(kernel.KernelModeError, match="cannot create") as e:
        runner.emulate(s, capture_dir=tmp_path / "blocker")
    assert e.value.path == "record.pcap.path"


def test_plans_sample_tcp_info_at_the_scenarios_record_interval():
    s = scenario()
    assert {p["sample_interval_s"] for p in agent_plans(s, plan_flows(s, AVAILABLE)).values()} == {0.01}
    s = load({**s, "record": {"interval": "100ms"}})
    assert {p["sample_interval_s"] for p in agent_plans(s, plan_flows(s, AVAILABLE)).values()} == {0.1}


def test_plans_put_each_end_in_its_namespace():
    s = scenario(flows=[{"cc": "cubic", "count": 2}, {"cc": "bbr", "direction": "up"}])
    plans = agent_plans(s, plan_flows(s, AVAILABLE))
    assert [f["flow"] for f in plans["snd"]["tcp_senders"]] == [0, 1]
    assert [f["flow"] for f in plans["rcv"]["tcp_senders"]] == [2]
    assert plans["snd"]["tcp_receivers"][0]["addr"] == f"{host.SENDER_NET}.1"
    assert plans["rcv"]["tcp_senders"][0]["dst"] == f"{host.SENDER_NET}.1"


def with_background(background: dict, flows: list[dict] | None = None) -> dict:
    return load(
        {
            "duration": "5s",
            "downlink": {"rate": "10Mbit", "delay": "10ms"},
            "flows": flows or [{"cc": "cubic"}],
            "background": background,
        }
    )


def test_the_backgrounds_tcp_transfers_are_checked_as_a_flow_is():
    web = {"kind": "poisson-web", "load": 0.2}
    kernel.check(with_background(web), AVAILABLE)
    for extra, path in [
        ({"cc": "ledbat"}, "background.cc"),
        ({"cc_params": {"beta": 0.5}}, "background.cc_params"),
        ({"tcp": {"delack_segments": 3}}, "background.tcp.delack_segments"),
        ({"tcp": {"sack": False}}, "background.tcp.sack"),  # the down flow sends from its namespace with SACK
    ]:
        with pytest.raises(kernel.KernelModeError) as e:
            kernel.check(with_background({**web, **extra}), AVAILABLE)
        assert e.value.path == path
    assert "differs from flows[0]" in str(e.value)
    # Sent from the other namespace, or over UDP, its TCP settings do not meet the flow's.
    kernel.check(with_background({**web, "direction": "up", "tcp": {"sack": False}}), AVAILABLE)
    kernel.check(with_background({**web, "transport": "udp", "cc": "ledbat"}), AVAILABLE)


def test_plans_give_the_backgrounds_ends_the_simulators_schedule():
    s = with_background({"kind": "poisson-web", "load": 0.3}, [{"cc": "cubic", "count": 2}])
    schedule = runner.background_schedule(s)
    plans = agent_plans(s, plan_flows(s, AVAILABLE), schedule)
    (sender,) = plans["snd"]["background_tcp"]
    (sink,) = plans["rcv"]["background_tcp_sinks"]
    assert sender["port"] == sink["port"] == runner.TCP_PORT_BASE + 2  # after the two flows' receivers
    assert sender["cc"] == "cubic" and sender["dst"] == sink["addr"] == f"{host.RECEIVER_NET}.1"
    transfers = agent.unpack_pairs(sender["transfers"])
    assert len(transfers) == schedule["transfers_started"] > 0
    assert all(0 <= t <= 5e9 and size > 0 for t, size in transfers)

    s = with_background({"kind": "on-off", "load": 0.3, "direction": "up"})
    plans = agent_plans(s, plan_flows(s, AVAILABLE), runner.background_schedule(s))
    (source,) = plans["rcv"]["udp_sources"]
    (udp_sink,) = plans["snd"]["udp_sinks"]
    assert source["port"] == udp_sink["port"] == runner.UDP_PORT_BASE  # source 0: the scenario has no [[udp]]
    datagrams = agent.unpack_pairs(source["datagrams"])
    assert len(datagrams) > 100 and {size for _, size in datagrams} == {1500}
    assert [t for t, _ in datagrams] == sorted(t for t, _ in datagrams)
    assert not plans["snd"]["background_tcp"] and not plans["rcv"]["background_tcp_sinks"]


def test_tcp_info_keeps_only_the_fields_the_kernel_returned():
    values = [0] * len(tcp_info.FIELDS)
    names = [n for n, _ in tcp_info.FIELDS]
    values[names.index("snd_cwnd")] = 42
    values[names.index("total_rto")] = 3
    raw = struct.pack("=" + "".join(c for _, c in tcp_info.FIELDS), *values)
    assert tcp_info.parse(raw)["snd_cwnd"] == 42
    assert tcp_info.parse(raw)["total_rto"] == 3
    short = tcp_info.parse(raw[:232])  # a kernel before tcpi_rcv_wnd
    assert "snd_wnd" in short and "rcv_wnd" not in short and "total_rto" not in short


def test_preflight_says_root_is_needed(monkeypatch):
    monkeypatch.setattr(host.os, "geteuid", lambda: 1000)
    with pytest.raises(host.PreflightError, match="kernel mode needs root") as e:
        host.preflight()
    # sudo's secure_path does not hold a virtualenv's ccbench: the message gives the form that works.
    assert 'sudo "$(command -v ccbench)" emulate' in str(e.value)


def test_preflight_says_tun_is_missing(monkeypatch):
    monkeypatch.setattr(host.os, "geteuid", lambda: 0)
    real = host.os.path.exists
    monkeypatch.setattr(host.os.path, "exists", lambda p: False if p == "/dev/net/tun" else real(p))
    with pytest.raises(host.PreflightError, match="/dev/net/tun is missing: load the tun module"):
        host.preflight()


def test_names_fit_interface_names_and_carry_the_prefix():
    n = host.Names(f"{4194304:x}")
    assert len(n.sender_tun) <= 15 and n.sender_tun.startswith("ccbench-")
    assert n.sender_ns.startswith("ccbench-") and n.receiver_ns.endswith("-rcv")


def test_cwnd_distance_is_zero_for_equal_traces_and_relative_otherwise():
    import pandas as pd
    from ccbench.emulate.sidebyside import cwnd_distance

    t = [0.0, 1.0, 2.0]
    a = pd.DataFrame({"t": t, "cwnd": [10, 10, 10]})
    assert cwnd_distance(a, a, 0.0, 2.0) == 0.0
    b = pd.DataFrame({"t": t, "cwnd": [15, 15, 15]})
    assert cwnd_distance(a, b, 0.0, 2.0) == pytest.approx(0.5)


def test_a_refused_scenario_leaves_no_results_directory(tmp_path, monkeypatch):
    import io

    from ccbench.emulate import command
    from rich.console import Console

    monkeypatch.setattr(kernel, "available_algorithms", lambda: AVAILABLE)
    f = tmp_path / "s.toml"
    f.write_text(
        'duration = "2s"\n[downlink]\nrate = "10Mbit"\ndelay = "10ms"\n[[flows]]\ncc = "cubic"\ntcp = { prr = false }\n'
    )
    text = io.StringIO()
    code = command.main(
        f, tmp_path / "out" / "run", None, False, 1, None, False, False, True, Console(file=text), None, None
    )
    assert code == command.EXIT_BAD_SCENARIO and "flows[0].tcp.prr" in text.getvalue()
    assert not (tmp_path / "out").exists()


def test_a_directory_of_other_files_is_refused_before_the_run_and_left_as_it_was(tmp_path, monkeypatch):
    """`ccbench emulate --out DIR` wrote its tables into any directory, over
    files of the same name; like `ccbench run` it now refuses a directory
    that is not empty, and even --force replaces only a run's directory."""
    import io

    from ccbench.emulate import command, host
    from rich.console import Console

    monkeypatch.setattr(kernel, "available_algorithms", lambda: AVAILABLE)
    monkeypatch.setattr(host, "preflight", lambda: None)
    monkeypatch.setattr(command, "emulate", lambda *a, **k: pytest.fail("the run started"))
    f = tmp_path / "s.toml"
    f.write_text('duration = "2s"\n[downlink]\nrate = "10Mbit"\ndelay = "10ms"\n[[flows]]\ncc = "cubic"\n')
    mine = tmp_path / "paper"
    mine.mkdir()
    (mine / "flows.csv").write_text("my own table")
    for force in (False, True):
        text = io.StringIO()
        code = command.main(
            f, mine, None, False, 1, None, False, False, True, Console(file=text, width=200), None, None, force=force
        )
        said = "holds other files, not a run's results" if force else "is not empty (it holds other files)"
        assert code == command.EXIT_BAD_SCENARIO and said in text.getvalue(), text.getvalue()
        assert [p.name for p in mine.iterdir()] == ["flows.csv"] and (mine / "flows.csv").read_text() == "my own table"


def test_a_comparison_has_a_default_directory_apart_from_a_runs(tmp_path, monkeypatch):
    """--compare-sim wrote its report into ccbench-out/NAME-kernel, the run's
    own default directory, which a run then refused as holding other files."""
    import io

    import pandas as pd
    from ccbench.emulate import command, sidebyside
    from rich.console import Console

    written = []
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sidebyside, "compare", lambda *a, **k: (pd.DataFrame(), {}))
    monkeypatch.setattr(sidebyside, "write_report", lambda table, pairs, out, *a: written.append(out) or out / "x.html")
    monkeypatch.setattr(command, "_compare_table", lambda table: "")
    f = tmp_path / "s.toml"
    f.write_text('duration = "2s"\n[downlink]\nrate = "10Mbit"\ndelay = "10ms"\n[[flows]]\ncc = "cubic"\n')
    code = command.main(f, None, None, True, 1, None, False, False, True, Console(file=io.StringIO()), None, None)
    assert code == 0 and written == [Path("ccbench-out") / "s-kernel-vs-sim"]


def test_a_default_directory_does_not_repeat_the_files_suffix():
    """examples/kernel-vs-sim.toml --compare-sim wrote into ccbench-out/kernel-vs-sim-kernel-vs-sim."""

    from ccbench.emulate.command import default_output

    out = Path("ccbench-out")
    assert default_output(Path("examples/kernel-vs-sim.toml"), True) == out / "kernel-vs-sim"
    assert default_output(Path("examples/kernel-vs-sim.toml"), False) == out / "kernel-vs-sim-kernel"
    assert default_output(Path("wan-kernel.toml"), False) == out / "wan-kernel"
    assert default_output(Path("wan.toml"), True) == out / "wan-kernel-vs-sim"


def _per_rep(goodput_bps: float, rtt_ms: float):
    import pandas as pd

    return pd.DataFrame(
        {"goodput_bps": [goodput_bps], "rtt_mean_ms": [rtt_ms], "retrans_pct": [0.1]},
        index=pd.Index(["reno"], name="cc"),
    )


def test_side_by_side_differences_carry_a_paired_interval_and_a_verdict():
    from ccbench.emulate import sidebyside

    sims = [_per_rep(10e6, 50.0), _per_rep(10e6, 50.0), _per_rep(10e6, 50.0)]
    close = [_per_rep(10.1e6, 50.5), _per_rep(10.2e6, 50.0), _per_rep(10.0e6, 50.2)]
    far = [_per_rep(11.5e6, 50.0), _per_rep(11.6e6, 50.1), _per_rep(11.4e6, 50.0)]
    (row,) = sidebyside.algorithm_rows(sims, close, [("reno", 0.1)])
    assert row["reps"] == 3 and abs(row["goodput_diff_pct"] - 1.0) < 1e-9
    # Paired differences 1, 2, 0 %: mean 1, sd 1, 95% CI half-width t(0.975, 2) / sqrt(3) = 2.48.
    assert abs(row["goodput_diff_ci95_pct"] - 4.302653 / 3**0.5) < 1e-4
    assert row["goodput_verdict"] == "agrees" and row["rtt_verdict"] == "agrees"
    (row,) = sidebyside.algorithm_rows(sims, far, [("reno", 0.1)])
    assert row["goodput_verdict"] == "differs" and row["rtt_verdict"] == "agrees"
    (row,) = sidebyside.algorithm_rows(sims[:1], far[:1], [("reno", 0.1)])
    assert row["goodput_verdict"] == "differs" and row["goodput_diff_ci95_pct"] != row["goodput_diff_ci95_pct"]
    (row,) = sidebyside.algorithm_rows(sims[:1], close[:1], [("reno", 0.1)])
    assert row["goodput_verdict"] == "undecided", "one repetition cannot show agreement"


def test_the_side_by_side_page_has_the_reports_look_units_and_definitions():
    """compare-sim.html was an unstyled pandas table with raw column names
    (sim_goodput_mbps, cwnd_distance) that it never defined."""
    import pandas as pd
    from ccbench.emulate import sidebyside

    sims = [_per_rep(10e6, 50.0), _per_rep(10e6, 50.0)]
    kerns = [_per_rep(11.5e6, 50.0), _per_rep(11.6e6, 50.1)]
    table = pd.DataFrame(sidebyside.algorithm_rows(sims, kerns, [("reno", 0.1)]))
    page = sidebyside.page_html(table, ["cwnd-sim-vs-kernel-reno.png"], "path: simulator vs Linux kernel")
    assert "<style>" in page and "font-family" in page
    for heading in ("goodput, simulator (Mbit/s)", "mean RTT difference (%)", "cwnd distance", "Definitions"):
        assert heading in page
    assert "sim_goodput_mbps" not in page and "goodput_diff_pct" not in page
    assert "Outside 5% in goodput or mean RTT: reno" in page
    assert '<img src="cwnd-sim-vs-kernel-reno.png"' in page


def test_a_constant_rate_udp_source_counts_no_transfers_as_in_the_simulator():
    from ccbench.api import run
    from ccbench.emulate import tables

    s = load(
        {
            "duration": "1s",
            "downlink": {"rate": "10Mbit", "delay": "10ms"},
            "udp": [{"rate": "1Mbit"}],
            "flows": [{"cc": "cubic"}],
        }
    )
    agents = [{"udp_sources": [{"source": 0, "sent": 10, "wire_bytes": 15000}], "udp_sinks": []}]
    kern = tables._sources(s, agents, 1.0, None)
    sim = run(s).sources.iloc[0]
    assert (kern["transfers_started"][0], kern["transfers_completed"][0]) == (
        sim["transfers_started"],
        sim["transfers_completed"],
    )


#: What the emulator reports of a run of one flow without RTT samples (the tables build_raw reads).
EMULATOR = {
    "links": {"arrivals": [0]},
    "link_series": {},
    "rtt": {"t": [], "flow": [], "rtt_ms": []},
    "flow_rtt": {"rtt_samples": [0], "rtt_min_ms": [None], "rtt_mean_ms": [None]},
    "stats": {"duration_s": 2.0},
}


def test_a_completed_file_counts_all_its_bytes_delivered_between_two_samples():
    from ccbench.emulate import tables

    s = scenario(size="500KB")
    flows = plan_flows(s, AVAILABLE)
    # Read to its end at 1.217 s, between the receiver's samples at 1.21 s and 1.22 s.
    receiver = {"flow": 0, "received": 500_000, "completed_s": 1.217, "samples": [(1.21, 490_000), (1.22, 500_000)]}
    agents = [{"tcp_senders": [], "tcp_receivers": [receiver], "udp_sources": [], "udp_sinks": []}]
    f = tables.build_raw(s, flows, agents, EMULATOR, 2.0)["flows"]
    assert f["end_s"][0] == 1.217 and f["delivered_bytes"][0] == f["size_bytes"][0] == 500_000


def test_a_kernel_runs_flow_and_link_metrics_are_the_cores(monkeypatch):
    """Kernel mode's flows and links tables come without the per-run metrics;
    they get them from the simulator core's code through the binding, fed
    the tables' counters (no Python copy of a definition)."""
    from ccbench import _ccsim
    from ccbench.emulate import tables

    s = scenario(size="500KB")
    flows = plan_flows(s, AVAILABLE)
    receiver = {"flow": 0, "received": 500_000, "completed_s": 1.25, "samples": [(1.25, 500_000)]}
    final = {"bytes_sent": 520_000, "data_segs_out": 360, "total_retrans": 9, "total_rto": 1}
    agents = [
        {
            "tcp_senders": [{"flow": 0, "final": final, "samples": []}],
            "tcp_receivers": [receiver],
            "udp_sources": [],
            "udp_sinks": [],
        }
    ]
    links = {"link": ["downlink", "uplink"], "rate_bps": [10e6, 10e6], "arrivals": [400, 200]}
    raw = tables.build_raw(s, flows, agents, {**EMULATOR, "links": links}, 2.0)
    fed = {}

    def spy(name: str):
        core = getattr(_ccsim, name)

        def called(*args):
            fed[name] = args
            return core(*args)

        return called

    for name in ("flow_metrics", "link_metrics"):
        monkeypatch.setattr(_ccsim, name, spy(name))
    r = tables.to_result(raw, s, "test", {})
    f, down = r.flows.iloc[0], r.links.iloc[0]
    assert fed["flow_metrics"][0]["delivered_bytes"] == [500_000.0] and fed["flow_metrics"][0]["timeouts"] == [1.0]
    assert f["active_s"] == 1.25 and f["goodput_bps"] == 8 * 500_000 / 1.25 and f["retrans_pct"] == 2.5
    assert (f["throughput_bps"], f["timeouts_per_100s"]) == (8 * 520_000 / 1.25, 100 / 1.25)
    assert fed["link_metrics"][2] == [[0], []]  # the flow's data crosses the downlink
    assert down["goodput_bps"] == f["goodput_bps"] and down["capacity_bps"] == 10e6 * 1448 / 1500
    assert math.isnan(r.links.iloc[1]["goodput_bps"])


def test_rtt_statistics_and_the_base_rtt_are_the_emulators_per_ack_samples_not_tcp_info():
    from ccbench.emulate import tables

    s = scenario()
    flows = plan_flows(s, AVAILABLE)
    # The kernel's min_rtt counts the handshake (21.2 ms); its srtt is smoothed.
    final = {"min_rtt": 21_200, "rtt": 30_000, "bytes_sent": 1448, "data_segs_out": 1}
    sender = {"flow": 0, "final": final, "samples": [(0.01, final)]}
    agents = [{"tcp_senders": [sender], "tcp_receivers": [], "udp_sources": [], "udp_sinks": []}]
    emulator = {
        **EMULATOR,
        "rtt": {"t": [0.05, 0.09], "flow": [0, 0], "rtt_ms": [44.4, 36.0]},
        "flow_rtt": {"rtt_samples": [2], "rtt_min_ms": [36.0], "rtt_mean_ms": [40.2], "queuing_mean_ms": [4.2]},
    }
    raw = tables.build_raw(s, flows, agents, emulator, 2.0)
    f = raw["flows"]
    assert (f["base_rtt_ms"][0], f["rtt_min_ms"][0], f["rtt_samples"][0]) == (36.0, 36.0, 2)
    assert list(raw["rtt"]["rtt_ms"]) == [44.4, 36.0]
    assert raw["series"]["min_rtt_ms"][0] == 21.2, "the series keeps the kernel's own variable"


def _fake_ccemu(tmp_path, script: str) -> str:
    path = tmp_path / "ccemu"
    path.write_text("#!/bin/sh\n" + script + "\n")
    path.chmod(0o755)
    return str(path)


def test_an_emulator_built_from_other_sources_is_refused_before_a_run(tmp_path, monkeypatch):
    from ccbench import _ccsim

    # One that knows the question but was built from other sources, and one from before the
    # question (it takes no argument, waits for its config on stdin and fails without it).
    for script in ('echo "0123456789abcdef"', 'echo "ccemu: expected a JSON config line on stdin" >&2; exit 1'):
        monkeypatch.setenv("CCBENCH_CCEMU", _fake_ccemu(tmp_path, script))
        with pytest.raises(host.PreflightError, match="built from other sources.*cargo build --release -p ccemu"):
            runner.find_ccemu()
    matching = _fake_ccemu(tmp_path, f'[ "$1" = --source-id ] && echo "{_ccsim.SOURCE_ID}"')
    monkeypatch.setenv("CCBENCH_CCEMU", matching)
    assert runner.find_ccemu() == [matching]


def test_the_emulator_ships_inside_the_package(monkeypatch):
    """Without CCBENCH_CCEMU, kernel mode runs the emulator built into the
    extension module, in a process of its own: an installed ccbench needs no
    second build step, and its emulator is built from the core's sources
    (before, an installed package looked for target/release/ccemu beside its
    own files, inside the virtualenv, and found nothing)."""
    from ccbench import _ccsim

    monkeypatch.delenv("CCBENCH_CCEMU", raising=False)
    command = runner.find_ccemu()
    assert command == [sys.executable, "-m", "ccbench.emulate.ccemu"]
    said = subprocess.run([*command, "--source-id"], capture_output=True, text=True, check=True, timeout=60)
    assert said.stdout.strip() == _ccsim.SOURCE_ID
    # Without its config the emulator says what it expected and exits 1, as the binary does.
    failed = subprocess.run([*command, "--tag", "x"], input="", capture_output=True, text=True, timeout=60)
    assert failed.returncode == 1 and "expected a JSON config line on stdin" in failed.stderr


def test_the_emulators_processes_are_recognized_in_both_forms():
    """host.cleanup finds a run's emulator by its command line, the built-in
    one and one named by CCBENCH_CCEMU alike."""
    built_in = [b"/venv/bin/python3", b"-m", b"ccbench.emulate.ccemu", b"--tag", b"ccbench-7", b""]
    assert host.emulator_tag(built_in) == "ccbench-7"
    assert host.emulator_tag([b"/opt/ccemu", b"--tag", b"ccbench-8", b""]) == "ccbench-8"
    assert host.emulator_tag([b"/venv/bin/python3", b"-m", b"ccbench", b"--tag", b"x"]) is None
    assert host.emulator_tag([b"/usr/bin/ccemu-other", b"x"]) is None


def test_cleanup_finds_the_tag_of_a_built_in_emulator_and_leaves_other_runs_alone(monkeypatch):
    """cleanup read an emulator's tag at argv[2], where the binary has it; the
    built-in emulator (`python -m ccbench.emulate.ccemu --tag T`) has "-m"
    ... there, and cleanup failed with "invalid literal for int() with base
    16" whenever another run's emulator was alive."""
    lines = {
        101: [b"/venv/bin/python3", b"-m", b"ccbench.emulate.ccemu", b"--tag", b"ccbench-dead", b""],
        102: [b"/venv/bin/python3", b"-m", b"ccbench.emulate.ccemu", b"--tag", b"ccbench-65", b""],
        103: [b"/opt/ccemu", b"--tag", b"ccbench-not-ours", b""],
    }
    removed = []
    monkeypatch.setattr(host, "namespaces", lambda: [])
    monkeypatch.setattr(host, "tun_devices", lambda: [])
    monkeypatch.setattr(host, "dead_outputs", lambda: None)
    monkeypatch.setattr(host, "emulator_pids", lambda tag=None: sorted(lines))
    monkeypatch.setattr(host, "cmdline", lambda pid: lines.get(pid, []))
    monkeypatch.setattr(host, "alive", lambda pid: pid in lines or pid == 0x65)  # run 0x65's orchestrator lives
    monkeypatch.setattr(host, "remove_run", removed.append)
    host.cleanup(all_runs=False)
    assert removed == ["dead"]  # 0xdead is gone; 0x65 runs; "not-ours" is no run's tag
    removed.clear()
    host.cleanup(all_runs=True)
    assert removed == ["65", "dead", "not-ours"]


def test_a_sender_blocked_on_a_full_buffer_closes_at_its_stop_not_after_its_wait():
    """A bulk sender's send waits while its buffer is full (until half of it
    drains). It waited up to 50 ms at a time whatever the stop, so a flow
    closed up to 50 ms late and sent meanwhile (in kernel mode at 10 Mbit/s,
    1.25 KB per ms after its stop). Here, on loopback, the receiver never
    reads: the buffers fill in a few ms and the sender blocks from then on."""
    import socket
    import threading
    import time

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    accepted = []
    taker = threading.Thread(target=lambda: accepted.append(listener.accept()[0]))
    taker.start()
    stop_s = 0.01  # inside the first wait, which began within a millisecond or so
    sender = agent.TcpSender(
        {"flow": 0, "cc": "cubic", "dst": "127.0.0.1", "port": port, "start_s": 0.0, "stop_s": stop_s}
    )
    sender.run(time.monotonic_ns(), 1.0)
    taker.join()
    for s in (*accepted, listener):
        s.close()
    result = sender.result()
    assert result["error"] is None and result["final"]["bytes_sent"] > 0
    closed_s = result["samples"][-1][0]  # the final counters, read right before the close
    assert stop_s <= closed_s < stop_s + 0.015


def test_algorithms_say_whether_kernel_mode_can_run_each_here(runner):
    """Issue 54: `ccbench algorithms` shows, per algorithm, whether the running
    kernel has it (kernel mode refused them by name, but nothing listed it)."""
    import json

    from ccbench.cli import app

    have = ["reno", "cubic", "bbr"]
    assert kernel.kernel_support("cubic", have) == "yes, Linux's cubic"
    assert kernel.kernel_support("westwood+", ["westwood"]) == "yes, Linux's westwood"
    assert kernel.kernel_support("copa", have).startswith("no, simulator only: ")
    assert kernel.kernel_support("bbr3", have).startswith("no, not in this kernel: BBRv3")
    assert kernel.kernel_support("htcp", have) == "no, not in this kernel (modprobe tcp_htcp may load it)"
    assert kernel.kernel_support("cubic", None).startswith("no: not a Linux kernel")
    listed = json.loads(runner.invoke(app, ["algorithms", "--json"]).stdout)
    here = kernel.available_algorithms()
    assert all(a["kernel_mode"] == kernel.kernel_support(a["name"], here) for a in listed)


def test_the_overlay_of_many_flows_keeps_its_plot_and_names_the_line_styles():
    """`ccbench emulate --compare-sim` of 64 flows (bench/scenarios/u1.toml)
    drew a legend of 128 entries that pushed the axes to nothing, and
    matplotlib warned that the layout collapsed."""
    import warnings
    from types import SimpleNamespace

    import numpy as np
    import pandas as pd
    from ccbench import plots
    from ccbench.emulate import sidebyside

    def result(n, scale):
        t = np.arange(0.0, 1.0, 0.1)
        series = pd.DataFrame(
            {"flow": np.repeat(np.arange(n), len(t)), "t": np.tile(t, n), "cwnd": np.tile(t * scale, n)}
        )
        return SimpleNamespace(flows=pd.DataFrame({"flow": np.arange(n)}), series=series)

    for n, entries in ((2, 4), (sidebyside.LEGEND_FLOWS_MAX, 2 * sidebyside.LEGEND_FLOWS_MAX), (64, 2)):
        fig = sidebyside.overlay_figure(result(n, 10), result(n, 11), "cwnd")
        assert len(fig.axes[0].get_legend().get_texts()) == entries
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            png = plots.figure_bytes(fig, "png", close=True)
        assert png.startswith(b"\x89PNG")
