"""struct tcp_info (include/uapi/linux/tcp.h) from getsockopt(TCP_INFO): the
fields the running kernel fills in, by name.

The struct only grows at its end, so a field is present when the length the
kernel returned covers it (Linux 6.7 added tcpi_total_rto, the count of
retransmission timeouts)."""

from __future__ import annotations

import socket
import struct

#: (name, struct code) in kernel order; "pad" entries are skipped.
FIELDS = [
    ("state", "B"),
    ("ca_state", "B"),
    ("retransmits", "B"),
    ("probes", "B"),
    ("backoff", "B"),
    ("options", "B"),
    ("wscale", "B"),
    ("flags", "B"),
    *[
        (n, "I")
        for n in (
            "rto",
            "ato",
            "snd_mss",
            "rcv_mss",
            "unacked",
            "sacked",
            "lost",
            "retrans",
            "fackets",
            "last_data_sent",
            "last_ack_sent",
            "last_data_recv",
            "last_ack_recv",
            "pmtu",
            "rcv_ssthresh",
            "rtt",
            "rttvar",
            "snd_ssthresh",
            "snd_cwnd",
            "advmss",
            "reordering",
            "rcv_rtt",
            "rcv_space",
            "total_retrans",
        )
    ],
    ("pacing_rate", "Q"),
    ("max_pacing_rate", "Q"),
    ("bytes_acked", "Q"),
    ("bytes_received", "Q"),
    ("segs_out", "I"),
    ("segs_in", "I"),
    ("notsent_bytes", "I"),
    ("min_rtt", "I"),
    ("data_segs_in", "I"),
    ("data_segs_out", "I"),
    ("delivery_rate", "Q"),
    ("busy_time", "Q"),
    ("rwnd_limited", "Q"),
    ("sndbuf_limited", "Q"),
    ("delivered", "I"),
    ("delivered_ce", "I"),
    ("bytes_sent", "Q"),
    ("bytes_retrans", "Q"),
    ("dsack_dups", "I"),
    ("reord_seen", "I"),
    ("rcv_ooopack", "I"),
    ("snd_wnd", "I"),
    ("rcv_wnd", "I"),
    ("rehash", "I"),
    ("total_rto", "H"),
    ("total_rto_recoveries", "H"),
    ("total_rto_time", "I"),
]

_FORMAT = "=" + "".join(code for _, code in FIELDS)
SIZE = struct.calcsize(_FORMAT)
#: Byte offset of the end of each field: a field is present if the kernel returned that many bytes.
_ENDS = []
_offset = 0
for _name, _code in FIELDS:
    _offset += struct.calcsize("=" + _code)
    _ENDS.append(_offset)

#: tcpi_snd_ssthresh while the connection is still in its first slow start.
INFINITE_SSTHRESH = 0x7FFFFFFF


def parse(raw: bytes) -> dict[str, int]:
    """The fields `raw` covers, by name (without the tcpi_ prefix)."""
    values = struct.unpack(_FORMAT, raw[:SIZE].ljust(SIZE, b"\0"))
    return {name: v for (name, _), v, end in zip(FIELDS, values, _ENDS) if end <= len(raw)}


def read(sock: socket.socket) -> dict[str, int]:
    """TCP_INFO of a connected TCP socket."""
    return parse(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, SIZE + 64))
