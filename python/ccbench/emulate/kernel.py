"""What kernel mode can run, and how a scenario's TCP settings become the
kernel's: the algorithm names, the refusals (each naming the field and why),
the per-namespace sysctls and the route options.

Linux sets most TCP knobs per network namespace (sysctl) or per route
(`ip route ... initcwnd N rto_min T advmss M quickack 1 initrwnd W`), not per socket, so
the flows that send from one namespace must agree on them; the algorithm is
set per socket (TCP_CONGESTION), buffer sizes too when fixed.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

# Which Linux module runs each simulator algorithm, in mainline or not, or why
# none does, is declared in its registry entry (cc/NAME.rs `INFO.linux`) and
# read here through the binding's algorithms(). Linux builds NewReno (RFC 6582)
# into the stack (tcp_fastretrans_alert): its reno module is the simulator's
# newreno, with SACK or without.

#: Linux's values of the TCP settings it does not let us change per run.
FIXED_IN_KERNEL = {
    "delack_segments": (2, "Linux ACKs every second full segment"),
    "delack_timeout": (0.04, "Linux's delayed-ACK timer is not configurable (40 ms minimum)"),
    "initial_rto": (1.0, "Linux's initial RTO is 1 s (not configurable per route)"),
    "max_rto": (120.0, "Linux's maximum RTO is 120 s"),
    "prr": (True, "Linux always uses proportional rate reduction"),
    "rack": (True, "Linux 4.18+ detects SACK losses with RACK (net.ipv4.tcp_recovery is not set per run)"),
    "tlp": (True, "Linux 3.10+ sends tail loss probes (net.ipv4.tcp_early_retrans is not set per run)"),
    "rto_style": ("linux", "the kernel computes the RTO its own way"),
    "early_retrans": (False, "Linux 4.11+ has no early retransmit (RACK finds those losses)"),
    "cwnd_counts": ("segments", "Linux 4.0+ grows the window per ACKed segment (tcp_abc went in 3.9)"),
    "fack": (False, "Linux 4.15+ has no FACK (RACK marks SACK losses)"),
    "snd_skb_overhead": (800, "the kernel charges its own skb truesize to the send buffer"),
    "frto": ("rfc5682", "Linux 3.10+ runs F-RTO as RFC 5682 (net.ipv4.tcp_frto is not set per run)"),
    "skb_overhead": (0, "the kernel charges its own skb truesize to the receive buffer"),
    "undo": ("modern", "the kernel undoes a spurious recovery its own (today's) way"),
}
#: TCP settings the kernel applies per namespace: flows sending from one namespace must agree.
PER_NAMESPACE = ("sack", "timestamps", "ecn", "rmem_default", "rmem_max", "wmem_max", "mss", "init_cwnd", "min_rto")


def max_mss(timestamps: bool) -> int:
    """The largest MSS whose segment fits one full-size packet, from the core's sizes (1448 with
    timestamps, 1460 without)."""
    from ccbench import _ccsim

    return _ccsim.MTU_BYTES - _ccsim.TCP_IP_HEADER_BYTES - (_ccsim.TIMESTAMP_OPTION_BYTES if timestamps else 0)


def _shown(value) -> str:
    """A setting as the scenario file writes it (TOML: false, "auto"), not as Python does."""
    return json.dumps(value)


class KernelModeError(ValueError):
    """A scenario kernel mode cannot run: `path` is the field, the message says why."""

    def __init__(self, path: str, message: str):
        self.path, self.detail = path, message
        super().__init__(f"{path}: {message}" if path else message)


@functools.cache
def _registry() -> dict[str, dict]:
    from ccbench import _ccsim

    return {a["name"]: a for a in _ccsim.algorithms()}


def linux_module(name: str) -> str | None:
    """The Linux module (TCP_CONGESTION name) of the simulator's algorithm
    `name`, in mainline or not; None if no Linux kernel has one. A name the
    registry does not know is taken as a module's."""
    entry = _registry().get(name)
    return entry["linux_module"] if entry else name


def _simulator_only(name: str) -> str | None:
    """Why no Linux kernel runs algorithm `name` ("Tahoe (no Linux module)"), or None."""
    entry = _registry().get(name)
    return entry["linux_note"] if entry and entry["linux_module"] is None else None


def _out_of_tree(name: str) -> str | None:
    """What algorithm `name` is and which tree outside mainline has its module, or None."""
    entry = _registry().get(name)
    if entry and entry["linux_module"] is not None and not entry["linux_mainline"]:
        return entry["linux_note"]
    return None


def available_algorithms() -> list[str]:
    text = Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text()
    return text.split()


def kernel_support(name: str, available: list[str] | None) -> str:
    """Whether kernel mode can run algorithm `name` on this machine, in words
    (`ccbench algorithms`): the module it runs, or why not (kernel_algorithm's
    refusal). `available`: the running kernel's algorithms, None where the
    kernel does not say (not Linux)."""
    if available is None:
        return "no: not a Linux kernel (net.ipv4.tcp_available_congestion_control is missing)"
    if why := _simulator_only(name):
        return f"no, simulator only: {why}"
    module = linux_module(name)
    if module in available:
        return f"yes, Linux's {module}"
    if tree := _out_of_tree(name):
        return f"no, not in this kernel: {tree}"
    return f"no, not in this kernel (modprobe tcp_{module} may load it)"


def kernel_algorithm(name: str, available: list[str], path: str = "") -> str:
    """The kernel module for the simulator's algorithm `name`, or a refusal."""
    if why := _simulator_only(name):
        raise KernelModeError(
            path,
            f'"{name}" is {why}: it runs in the simulator only, not in kernel mode '
            f"(kernel algorithms here: {', '.join(available)})",
        )
    kernel = linux_module(name)
    tree = _out_of_tree(name)
    if tree and kernel not in available:
        raise KernelModeError(
            path,
            f'the running kernel lacks "{kernel}": it is {tree}; this kernel has: '
            f"{', '.join(available)} (net.ipv4.tcp_available_congestion_control)",
        )
    if kernel not in available:
        raise KernelModeError(
            path,
            f'the running kernel lacks "{kernel}"; it has: {", ".join(available)} '
            f"(net.ipv4.tcp_available_congestion_control; try modprobe tcp_{kernel})",
        )
    return kernel


def tcp_senders(scenario: dict) -> list[tuple[str, dict]]:
    """Everything that sends TCP in kernel mode, as (field path, entry with
    cc, cc_params, tcp, direction): the scenario's flows and, if it has TCP
    transfers, the background (its transfers send from one namespace with
    its settings, as a flow does)."""
    out = [(f"flows[{i}]", f) for i, f in enumerate(scenario["flows"])]
    b = scenario.get("background")
    if b and background_transport(b) == "tcp":
        out.append(("background", b))
    return out


def background_transport(b: dict) -> str:
    """ "tcp" for web transfers over TCP, else "udp" (on-off sources and web bursts over UDP)."""
    return "tcp" if b["kind"] == "poisson-web" and b["transport"] == "tcp" else "udp"


def check(scenario: dict, available: list[str]) -> None:
    """Refuses what kernel mode cannot run, naming the field."""
    if scenario.get("links"):
        raise KernelModeError(
            "links", "kernel mode emulates the downlink/uplink dumbbell; [[links]] topologies are simulator-only"
        )
    senders = tcp_senders(scenario)
    by_namespace: dict[str, tuple[str, dict]] = {}
    for p, f in senders:
        kernel_algorithm(f["cc"], available, f"{p}.cc")
        if f["cc"] == "reno" and not f["tcp"]["sack"]:
            raise KernelModeError(
                f"{p}.cc",
                'without SACK the simulator\'s "reno" is RFC 5681 Reno (fast recovery ends at the first new ACK), '
                'which Linux does not have: its reno recovers as NewReno (RFC 6582); use "newreno"',
            )
        if f.get("cc_params"):
            raise KernelModeError(
                f"{p}.cc_params", "kernel algorithms take their module's parameters, not per-flow ones"
            )
        if f.get("access_delay", 0):
            raise KernelModeError(f"{p}.access_delay", "per-flow access delays are simulator-only")
        data_link = "downlink" if f["direction"] == "down" else "uplink"
        if (scenario.get(data_link) or {}).get("host_queue") is not None:
            raise KernelModeError(
                f"{data_link}.host_queue",
                f"{p} sends over it: the emulator takes what the kernel sends from its TUN device as it comes and "
                "cannot hold the sender back (in kernel mode the sender's own qdisc is its host queue)",
            )
        tcp = f["tcp"]
        for key, (value, why) in FIXED_IN_KERNEL.items():
            if tcp[key] != value:
                raise KernelModeError(f"{p}.tcp.{key}", f"{_shown(tcp[key])} cannot be set: {why}")
        if tcp.get("adv_win_scale") is not None:
            raise KernelModeError(
                f"{p}.tcp.adv_win_scale",
                f"{_shown(tcp['adv_win_scale'])} cannot be set: Linux 6.6+ offers the share of its receive buffer "
                "that its measured payload/truesize ratio leaves (tcp_adv_win_scale is gone)",
            )
        if tcp["pacing"] and linux_module(f["cc"]) != "bbr":
            raise KernelModeError(
                f"{p}.tcp.pacing", "the kernel paces only bbr here (pacing others needs the fq qdisc)"
            )
        limit = max_mss(tcp["timestamps"])
        if tcp["mss"] > limit:
            raise KernelModeError(f"{p}.tcp.mss", f"{tcp['mss']} does not fit the 1500-byte MTU (at most {limit})")
        side = "snd" if f["direction"] == "down" else "rcv"
        if side in by_namespace:
            q, other = by_namespace[side]
            for key in PER_NAMESPACE:
                if tcp[key] != other[key]:
                    raise KernelModeError(
                        f"{p}.tcp.{key}",
                        f"{_shown(tcp[key])} differs from {q} ({_shown(other[key])}); the kernel sets it "
                        "per namespace, so flows in one direction must agree",
                    )
            if fixed_send_buffer(tcp) != fixed_send_buffer(other):
                raise KernelModeError(
                    f"{p}.tcp.snd_buf",
                    f"{_shown(tcp['snd_buf'])} where {q} has {_shown(other['snd_buf'])}: a fixed send buffer needs "
                    "one-segment skbs, which the kernel sets per device, so flows in one direction must all "
                    'have a fixed buffer or all "auto"',
                )
        else:
            by_namespace[side] = (p, tcp)
    receivers: dict[str, tuple[str, dict]] = {}
    for p, f in senders:
        side = "rcv" if f["direction"] == "down" else "snd"
        if side in receivers:
            q, other = receivers[side]
            for key in ("delayed_ack", "mss", "timestamps", "init_rcv_wnd"):
                if f["tcp"].get(key) != other.get(key):
                    raise KernelModeError(
                        f"{p}.tcp.{key}",
                        f"differs from {q}; the receivers' kernel sets it per route (quickack, advmss, initrwnd)",
                    )
        receivers.setdefault(side, (p, f["tcp"]))


def fixed_send_buffer(tcp: dict | None) -> bool:
    """Whether the flows sending with these settings have a fixed send buffer
    (not "auto"). Their namespace's device then carries one segment per skb
    (`ip link set DEV gso_max_segs 1`), since a fixed buffer counts skbs:
    with segmentation offload (the TUN device has it) tcp_sendmsg builds skbs
    of up to 64 KB, checking the buffer only before each, so SO_SNDBUF 10240
    kept 46-51 segments out on 6.18, and at most 9 with one-segment skbs. The
    studies' modem links (PPP) had no offload."""
    return tcp is not None and isinstance(tcp["snd_buf"], int)


def so_sndbuf(tcp: dict) -> int | None:
    """The SO_SNDBUF that gives a fixed `snd_buf` the simulator's meaning, or
    None for "auto" (the kernel's autotuning).

    The simulator's buffer holds N = snd_buf // mss segments of payload, one
    per skb, and wakes its writer at (2N - 1) / 3 (send_buffer.rs). Linux
    doubles SO_SNDBUF into sk_sndbuf and charges each queued skb its
    truesize; tcp_sendmsg takes a new skb while the queue is below sk_sndbuf,
    and the writer wakes at two thirds of it (sk_stream_is_writeable). With
    one-segment skbs (`fixed_send_buffer`) and sk_sndbuf = N - 1/2 truesizes
    of payload plus `snd_skb_overhead`, the kernel holds N and wakes its
    writer at the same line if its own truesize is within about 1/(2N) of
    that one. On 6.18 it is 2276-2434 bytes for 1448 (7 held of 14612, 9 of
    20480), against 2248 here: exact for N = 7, and up to 8% short for large
    buffers (100 segments: 92 to 99 held). Linux's floor, SOCK_MIN_SNDBUF
    (about 4.5 KB), holds two segments at least."""
    if not fixed_send_buffer(tcp):
        return None
    segments = max(tcp["snd_buf"] // tcp["mss"], 1)
    truesize = tcp["mss"] + tcp["snd_skb_overhead"]
    return math.ceil((2 * segments - 1) * truesize / 4)


def rcv_buf(tcp: dict) -> int | None:
    """A fixed `rcv_buf`, which the receiving agent sets as SO_RCVBUF and, once
    data arrives, fits to offer the simulator's window, the whole buffer
    (payload alone counted; agent.fit_window). None for "auto" (the kernel's
    autotuning).

    SO_RCVBUF alone does not do it. Linux doubles it and offers the share of
    it that scaling_ratio leaves (tcp_win_from_space, 6.7+): one half until
    the first data segment, then payload over skb truesize as measured on
    the data. On 6.18, SO_RCVBUF 14336 offered 15928 bytes (11 segments)
    where the simulator offers 9. A TCP_WINDOW_CLAMP does not hold either:
    the kernel resets the clamp whenever the ratio changes. So the agent
    resizes the buffer once, by the measured ratio."""
    return tcp["rcv_buf"] if isinstance(tcp["rcv_buf"], int) else None


def namespace_sysctls(tcp: dict | None) -> dict[str, str]:
    """sysctls of one namespace; `tcp` is the settings of the flows sending from it (None: defaults)."""
    s = {
        "net.ipv6.conf.all.disable_ipv6": "1",
        "net.ipv6.conf.default.disable_ipv6": "1",
        "net.ipv4.conf.all.rp_filter": "0",
        "net.ipv4.conf.default.rp_filter": "0",
        "net.ipv4.tcp_no_metrics_save": "1",
    }
    if tcp is not None:
        s.update(
            {
                "net.ipv4.tcp_sack": "1" if tcp["sack"] else "0",
                "net.ipv4.tcp_timestamps": "1" if tcp["timestamps"] else "0",
                "net.ipv4.tcp_ecn": "1" if tcp["ecn"] else "2",
                "net.ipv4.tcp_rmem": f"4096 {tcp['rmem_default']} {tcp['rmem_max']}",
                "net.ipv4.tcp_wmem": f"4096 16384 {tcp['wmem_max']}",
                "net.core.rmem_max": str(tcp["rmem_max"]),
                "net.core.wmem_max": str(tcp["wmem_max"]),
            }
        )
    return s


#: Global (not per-namespace) on some kernels: skipped with a note if they cannot be set.
OPTIONAL_SYSCTLS = ("net.core.rmem_max", "net.core.wmem_max", "net.ipv4.conf.default.rp_filter")


def route_options(sending: dict | None, receiving: dict | None) -> list[str]:
    """`ip route` options toward the other namespace: initial window and
    minimum RTO of the flows sending from here; the MSS to advertise (payload
    plus the timestamp option, as Linux counts advmss), quickack (no
    delayed ACKs) and the first window offered (initrwnd) for the flows
    received here."""
    opts: list[str] = []
    if sending is not None:
        opts += ["initcwnd", str(sending["init_cwnd"]), "rto_min", f"{round(sending['min_rto'] * 1000)}ms"]
    if receiving is not None:
        opts += ["advmss", str(receiving["mss"] + (12 if receiving["timestamps"] else 0))]
        if not receiving["delayed_ack"]:
            opts += ["quickack", "1"]
        if receiving.get("init_rcv_wnd") is not None:
            opts += ["initrwnd", str(receiving["init_rcv_wnd"])]
    return opts
