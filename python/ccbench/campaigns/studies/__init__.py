"""The five seed studies as shipped campaign files: what each measured, on
what network, the paper (authors, title, venue, year), the Linux release its
flows run, and what `--quick` and `--full` run.
`ccbench studies` prints this; `ccbench study NAME` runs NAME.toml."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

FOLDER = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Study:
    """A shipped study: `paper` is the exact citation (authors, title, venue,
    year), `setting` where and how it measured, `kernel` the Linux release
    its flows run (tcp.kernel, as the study's stack)."""

    name: str
    title: str
    paper: str
    setting: str
    kernel: str
    measured: str
    network: str
    quick: str
    full: str

    @property
    def source(self) -> str:
        """The citation and the setting, as one sentence."""
        return f"{self.paper}; {self.setting}"

    @property
    def path(self) -> Path:
        return FOLDER / f"{self.name}.toml"

    def text(self) -> str:
        return self.path.read_text(encoding="utf-8")


STUDIES: dict[str, Study] = {
    s.name: s
    for s in (
        Study(
            "umts",
            "TCP congestion control over a live UMTS network",
            'L. De Cicco and S. Mascolo, "TCP Congestion Control over 3G Communication Systems: an Experimental '
            'Evaluation of New Reno, BIC and Westwood+", Proc. NEW2AN 2007, St. Petersburg, Russia, 2007',
            "a live UMTS network through a UMTS card, Linux 2.6 with Web100, about 3,000 flows in more than 40 hours",
            "2.6.24",
            "goodput, channel utilization, Jain's fairness, RTT and queuing time, timeouts and retransmissions of "
            "NewReno, BIC and Westwood+ with 1, 2 and 4 flows of 100 s, downlink and uplink, and goodput of "
            "50-500 KB transfers",
            "the `umts` profile: 384/64 kbit/s, about 300 ms RTT, deep buffers, RLC ARQ, downlink outages",
            "2 repetitions of 20 s runs; 1 and 2 flows and the 50 KB transfer (36 runs)",
            "45 repetitions of 100 s runs, every workload (1,890 runs, about 3,000 flows)",
        ),
        Study(
            "hsdpa",
            "TCP congestion control over a live HSDPA network",
            'L. De Cicco and S. Mascolo, "TCP Congestion Control over HSDPA: an Experimental Evaluation", '
            "arXiv:1212.1621, 2012",
            "a live HSDPA network through a commercial HSDPA card, Linux 2.6.24, more than 3,000 flows in about "
            "60 hours",
            "2.6.24",
            "the UMTS study's metrics for NewReno, Westwood+, Cubic and BIC, plus cwnd and RTT over time of one "
            "downlink flow per algorithm",
            "the `hsdpa` profile: 2 Mbit/s down, 384 kbit/s up, about 100 ms RTT, HARQ",
            "1 repetition of 10 s runs; one flow and the 50 KB transfer (16 runs)",
            "35 repetitions of 100 s runs, every workload (1,960 runs, about 3,000 flows)",
        ),
        Study(
            "lte",
            "Performance of TCP variants over a commercial LTE network",
            'Li Jie, "Performance Evaluation of Different TCP Congestion Control Schemes in 4G System", thesis, '
            "Information Technology, Vaasa University of Applied Sciences (VAMK), Finland, 2013",
            "a commercial LTE network in Vaasa at three places (Ahventie, Olympia, VAMK), Linux 3.5 (Ubuntu "
            '12.10) for Cubic, Reno, Vegas and Westwood, a Windows client ("WinSock", Compound TCP) for the '
            "fifth scheme, 1,200 samples",
            "3.5",
            "average speed of Cubic, Reno, Vegas, Westwood+ and Compound per place and day period, downloading "
            "293 MB and uploading 21.46 MB, with a ranking per place",
            "the `lte-good`, `lte-edge` and `lte-poor` profiles with their `load` per day period",
            "1 repetition, 3 MB down and 1 MB up, the evening period (30 runs)",
            "10 repetitions of the whole design: 5 schemes x 3 places x 4 periods x up/down (1,200 runs)",
        ),
        Study(
            "highspeed",
            "High-speed TCP variants with UDP cross traffic and TCP/TCP competition",
            "K. Kumazoe et al., an evaluation of high-speed TCP variants including CCP and CCPD, 2012 (the exact "
            "title, venue and co-authors were not available to us)",
            "a 1 Gbit/s laboratory testbed, Linux 2.6.26 end hosts (Dell PowerEdge 2950), a PacketStorm 4XG "
            "emulator setting the RTT",
            "2.6.26",
            "mean throughput in 0-50, 50-100 and 100-150 s around 200 Mbit/s of UDP cross traffic and the "
            "recovery ratio, for Reno, Cubic, Compound, CCP(Kp) and CCPD(Kp, Kd); staggered TCP/TCP pairs",
            "the `highspeed-20ms`, `-200ms` and `-600ms` profiles: 1 Gbit/s, one-BDP queue",
            "100 Mbit/s instead of 1 Gbit/s, 15 s runs, 20 and 200 ms, 4 variants and 2 pairs (12 runs)",
            "every variant and pair at 20, 200 and 600 ms, 150 s (125 s for pairs), 1 repetition (69 runs)",
        ),
        Study(
            "wan",
            "Reno, Cubic and Vegas on a 100 Mbit/s emulated WAN with jitter",
            "a laboratory study of Reno, Cubic and Vegas on an emulated 100 Mbit/s WAN, around 2011 (the exact "
            "title, authors and venue were not available to us)",
            "a 100 Mbit/s WAN emulated with two netem routers, Linux 2.6.32 (RHEL 6, 2.6.32-71)",
            "2.6.32",
            "throughput and cwnd/ssthresh over time, mean throughput per configuration, the share of runs that "
            "fill the pipe early, default vs tuned buffers",
            "the `wan-100ms`, `wan-200ms` profiles and their `-jitter` forms (+/-1 ms reordering jitter per "
            "router), `tuned` buffers",
            "1 repetition of 10 s runs, the 100 ms paths with and without jitter (12 runs)",
            "5 repetitions of 100, 300 and 2000 s runs on all four paths, default and tuned (360 runs)",
        ),
    )
}
