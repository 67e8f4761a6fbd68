"""Reading a packet capture into TCP segment records, one connection at a time.

pcap and pcapng are read with dpkt (a maintained, dependency-free reader of both formats); this
module only picks the TCP fields the fit needs out of each packet: addresses, sequence and
acknowledgment numbers, payload length (from the IP header, so a short `snaplen` does not hide
it), and the options of RFC 2018 (SACK) and RFC 7323 (timestamps).
"""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from pathlib import Path

import dpkt

# Link types (tcpdump.org/linktypes.html) and how their frames reach the IP header.
LINKTYPE_NULL, LINKTYPE_ETHERNET, LINKTYPE_LOOP = 0, 1, 108
LINKTYPE_RAW = (101, 12, 14)  # 101 is LINKTYPE_RAW; 12 and 14 are DLT_RAW on some systems
LINKTYPE_IPV4, LINKTYPE_IPV6 = 228, 229
LINKTYPE_SLL, LINKTYPE_SLL2 = 113, 276

PCAPNG_MAGIC = b"\x0a\x0d\x0d\x0a"

TH_SYN, TH_ACK = dpkt.tcp.TH_SYN, dpkt.tcp.TH_ACK


class FitInputError(ValueError):
    """Bad input: the message is the one line the command prints."""


@dataclass(slots=True)
class Segment:
    """One TCP packet as captured."""

    t: float  # seconds since the capture's first packet
    src: tuple[str, int]
    dst: tuple[str, int]
    seq: int
    ack: int
    flags: int
    payload: int  # bytes of TCP payload, from the IP length
    wire: int  # bytes of the IP packet (headers included), as a link rate counts them
    window: int
    ts_val: int | None = None
    ts_ecr: int | None = None
    sack: tuple[tuple[int, int], ...] = ()
    mss: int | None = None
    wscale: int | None = None


@dataclass
class Connection:
    """The packets of one TCP connection, split by direction."""

    a: tuple[str, int]
    b: tuple[str, int]
    packets: list[Segment] = field(default_factory=list)

    def bytes_from(self, end: tuple[str, int]) -> int:
        return sum(p.payload for p in self.packets if p.src == end)

    @property
    def sender(self) -> tuple[str, int]:
        """The end that sent the most payload."""
        return self.a if self.bytes_from(self.a) >= self.bytes_from(self.b) else self.b

    @property
    def receiver(self) -> tuple[str, int]:
        return self.b if self.sender == self.a else self.a

    def label(self) -> str:
        s, r = self.sender, self.receiver
        n = sum(1 for p in self.packets if p.src == s and p.payload > 0)
        return f"{_end(s)} -> {_end(r)} ({n} data packets)"


def _end(e: tuple[str, int]) -> str:
    host, port = e
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _ip_of(linktype: int, buf: bytes):
    """The IP (v4 or v6) packet in a frame, or None."""
    if linktype == LINKTYPE_ETHERNET:
        eth = dpkt.ethernet.Ethernet(buf)
        ip = eth.data
        # 802.1Q and QinQ tags are unwrapped by dpkt's Ethernet.
    elif linktype in LINKTYPE_RAW or linktype in (LINKTYPE_IPV4, LINKTYPE_IPV6):
        if not buf:
            return None
        ip = dpkt.ip.IP(buf) if buf[0] >> 4 == 4 else dpkt.ip6.IP6(buf)
    elif linktype == LINKTYPE_SLL:
        ip = dpkt.sll.SLL(buf).data
    elif linktype == LINKTYPE_SLL2:
        ip = dpkt.sll2.SLL2(buf).data
    elif linktype in (LINKTYPE_NULL, LINKTYPE_LOOP):
        ip = dpkt.loopback.Loopback(buf).data
    else:
        raise FitInputError(f"link type {linktype} is not read (Ethernet, raw IP, Linux cooked and loopback are)")
    return ip if isinstance(ip, dpkt.ip.IP | dpkt.ip6.IP6) else None


def _segment(t: float, ip) -> Segment | None:
    tcp = ip.data
    if not isinstance(tcp, dpkt.tcp.TCP):
        return None
    if isinstance(ip, dpkt.ip.IP):
        if ip.offset:
            return None  # a later fragment carries no TCP header
        fam, wire = socket.AF_INET, ip.len
        payload = ip.len - ip.hl * 4 - tcp.off * 4
    else:
        fam, wire = socket.AF_INET6, ip.plen + 40
        # dpkt keeps extension headers apart; the TCP segment's length is what remains.
        ext = sum(len(h) for h in getattr(ip, "extension_hdrs", {}).values() if h is not None)
        payload = ip.plen - ext - tcp.off * 4
    if payload < 0:
        return None
    s = Segment(
        t=t,
        src=(socket.inet_ntop(fam, ip.src), tcp.sport),
        dst=(socket.inet_ntop(fam, ip.dst), tcp.dport),
        seq=tcp.seq,
        ack=tcp.ack,
        flags=tcp.flags,
        payload=payload,
        wire=wire,
        window=tcp.win,
    )
    for kind, data in dpkt.tcp.parse_opts(tcp.opts):
        if kind == dpkt.tcp.TCP_OPT_TIMESTAMP and len(data) == 8:
            s.ts_val, s.ts_ecr = int.from_bytes(data[:4], "big"), int.from_bytes(data[4:], "big")
        elif kind == dpkt.tcp.TCP_OPT_SACK and len(data) % 8 == 0:
            s.sack = tuple(
                (int.from_bytes(data[i : i + 4], "big"), int.from_bytes(data[i + 4 : i + 8], "big"))
                for i in range(0, len(data), 8)
            )
        elif kind == dpkt.tcp.TCP_OPT_MSS and len(data) == 2:
            s.mss = int.from_bytes(data, "big")
        elif kind == dpkt.tcp.TCP_OPT_WSCALE and len(data) == 1:
            s.wscale = data[0]
    return s


def read_connections(path: str | Path) -> tuple[list[Connection], float]:
    """The TCP connections in a pcap or pcapng file, in order of first packet, and the file's
    timestamp resolution in seconds."""
    path = Path(path)
    try:
        f = path.open("rb")
    except OSError as e:
        raise FitInputError(f"cannot read {path}: {e.strerror}") from None
    conns: dict[tuple, Connection] = {}
    with f:
        magic = f.read(4)
        f.seek(0)
        try:
            reader = dpkt.pcapng.Reader(f) if magic == PCAPNG_MAGIC else dpkt.pcap.Reader(f)
        except (ValueError, dpkt.UnpackError):
            raise FitInputError(f"{path} is not a packet capture (pcap or pcapng)") from None
        linktype = reader.datalink()
        # dpkt keeps the divisor of the file's timestamps (1e6 or 1e9 for pcap, if_tsresol for pcapng).
        resolution = 1 / float(getattr(reader, "_divisor", 1e6))
        t0 = None
        try:
            for ts, buf in reader:
                if t0 is None:
                    t0 = ts
                try:
                    ip = _ip_of(linktype, buf)
                    seg = _segment(float(ts - t0), ip) if ip is not None else None
                except (dpkt.UnpackError, IndexError, ValueError):
                    continue  # a frame dpkt cannot parse (truncated or not IP) carries nothing for us
                if seg is None:
                    continue
                key = tuple(sorted((seg.src, seg.dst)))
                conn = conns.get(key)
                if conn is None:
                    conn = conns[key] = Connection(seg.src, seg.dst)
                conn.packets.append(seg)
        except (dpkt.NeedData, dpkt.UnpackError, ValueError):
            pass  # a file cut short mid-record: keep what came before, as tcpdump -r does
    return list(conns.values()), resolution


def pick_connection(conns: list[Connection], flow: str | None, path: str | Path) -> Connection:
    """The connection to fit: the only one carrying data, or the one `flow` names (its index in
    the listing, or its sender's `address:port`)."""
    with_data = [c for c in conns if any(p.payload > 0 for p in c.packets)]
    if not with_data:
        raise FitInputError(f"{path} holds no TCP connection that carries data")
    listing = "; ".join(f"{i}: {c.label()}" for i, c in enumerate(with_data))
    if flow is None:
        if len(with_data) > 1:
            raise FitInputError(f"{path} holds {len(with_data)} TCP flows; pick one with --flow ({listing})")
        return with_data[0]
    if flow.isdigit() and int(flow) < len(with_data):
        return with_data[int(flow)]
    for c in with_data:
        if flow in (_end(c.sender), f"{c.sender[0]}:{c.sender[1]}"):
            return c
    raise FitInputError(f"--flow {flow!r} names no flow of {path}; allowed: {listing}")
