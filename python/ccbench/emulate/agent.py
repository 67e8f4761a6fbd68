"""The flow agent: runs inside one network namespace (started with `ip netns
exec NS python agent.py`) and plays the ends of the flows that live there,
as real kernel sockets: TCP senders (TCP_CONGESTION set per socket, bulk
until a stop time or a file of a given size, staggered starts), TCP
receivers, UDP sources (constant bit rate, or the background's schedule)
and their sinks, and the background's TCP transfers at their scheduled times.

Protocol (one JSON or text line each): stdin <- plan; stdout -> {"ready": true}
once every listening socket is bound; stdin <- "go T0_NS" (CLOCK_MONOTONIC of
the run's time 0, the clock every namespace shares); stdout -> results when
the run's duration is over. Senders' TCP_INFO is sampled every
`sample_interval_s`; receivers' byte counts too, so the orchestrator can
line delivered bytes up with the senders' samples.

Kept free of ccbench's heavy imports (it starts in every run); it dies with
its parent (PR_SET_PDEATHSIG), so a killed orchestrator leaves no agent.
"""

from __future__ import annotations

import array
import base64
import ctypes
import json
import math
import os
import selectors
import signal
import socket
import struct
import sys
import threading
import time

try:
    from ccbench.emulate import tcp_info
except ImportError:  # run as a script inside the namespace
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import tcp_info  # type: ignore[no-redef]

PR_SET_PDEATHSIG = 1
CHUNK_BYTES = 1 << 16
#: The longest a sender waits in one send before it looks at the clock again.
SEND_WAIT_S = 0.05
UDP_HEADER_BYTES = 28
#: How long receivers wait for the senders' last data after the end of the run.
RECEIVER_GRACE_S = 2.0
#: TCP_CONGESTION from linux/tcp.h (Python 3.11 has no constant for it on every build).
TCP_CONGESTION = getattr(socket, "TCP_CONGESTION", 13)
#: SO_TIMESTAMPNS (asm-generic/socket.h): kernel receive time as a struct timespec.
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
#: Agents run above normal priority so a busy machine delays the flows' applications less.
AGENT_NICE = -10


def raise_priority() -> None:
    try:
        os.nice(AGENT_NICE)
    except OSError:
        pass


def die_with_parent() -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass
    if os.getppid() == 1:
        sys.exit(1)


def now_s(t0_ns: int) -> float:
    return (time.monotonic_ns() - t0_ns) / 1e9


def sleep_until(t0_ns: int, t_s: float) -> None:
    while True:
        left = t_s - now_s(t0_ns)
        if left <= 0:
            return
        time.sleep(min(left, 0.05))


class TcpSender:
    """One TCP flow's sending end."""

    def __init__(self, spec: dict):
        self.spec = spec
        self.sock: socket.socket | None = None
        self.lock = threading.Lock()
        self.done = False
        self.samples: list[tuple[float, dict]] = []
        self.final: dict | None = None
        self.end_s = float("nan")
        self.error: str | None = None

    def sample(self, t: float) -> None:
        with self.lock:
            if self.sock is not None and not self.done:
                try:
                    self.samples.append((t, tcp_info.read(self.sock)))
                except OSError:
                    pass

    def run(self, t0_ns: int, duration_s: float) -> None:
        s = self.spec
        try:
            sleep_until(t0_ns, s["start_s"])
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, s["cc"].encode())
            if s.get("snd_buf"):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, int(s["snd_buf"]))
            # The handshake takes an RTT or more (a lost SYN: the kernel's 1 s
            # initial RTO and its backoff), so connect may wait until the run ends.
            sock.settimeout(max(duration_s - now_s(t0_ns), 0.05))
            sock.connect((s["dst"], s["port"]))
            sock.settimeout(SEND_WAIT_S)
            with self.lock:
                self.sock = sock
            stop_s = min(s["stop_s"] if s.get("stop_s") is not None else duration_s, duration_s)
            left = s.get("size")
            payload = memoryview(bytes(CHUNK_BYTES))
            while (to_stop := stop_s - now_s(t0_ns)) > 0 and (left is None or left > 0):
                n = CHUNK_BYTES if left is None else min(CHUNK_BYTES, left)
                if to_stop < SEND_WAIT_S:
                    # A full send buffer blocks a send until half of it has drained: wait no
                    # longer than the stop, or the flow goes on sending past it meanwhile.
                    sock.settimeout(to_stop)
                try:
                    sent = sock.send(payload[:n])
                except (TimeoutError, BlockingIOError):
                    continue
                if left is not None:
                    left -= sent
            if left == 0:
                sock.shutdown(socket.SHUT_WR)
                # The receiver closes once it has everything: wait for that (or the end).
                sock.settimeout(SEND_WAIT_S)
                while now_s(t0_ns) < duration_s:
                    try:
                        if not sock.recv(1):
                            break
                    except TimeoutError:
                        continue
            else:
                # Stopped (or a file abandoned at its stop): the simulator sends nothing
                # new after `stop`, while a plain close would still send what the send
                # buffer holds (an autotuned buffer holds several windows). An abortive
                # close (RST, sent behind what is in flight) discards it.
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.finish(sock, min(now_s(t0_ns), stop_s), t0_ns)
        except OSError as e:
            self.error = f"flow {s['flow']}: {e}"
            if self.sock is not None:
                self.finish(self.sock, min(now_s(t0_ns), duration_s), t0_ns)

    def finish(self, sock: socket.socket, end_s: float, t0_ns: int) -> None:
        """The last sample and the flow's final counters, then the socket is closed."""
        with self.lock:
            if self.done:
                return
            self.end_s = end_s
            try:
                self.final = tcp_info.read(sock)
                self.samples.append((now_s(t0_ns), self.final))
            except OSError:
                pass
            self.done = True
        sock.close()

    def result(self) -> dict:
        return {
            "flow": self.spec["flow"],
            "end_s": self.end_s,
            "final": self.final,
            "samples": self.samples,
            "error": self.error,
        }


def listening_socket(spec: dict, backlog: int) -> socket.socket:
    """A TCP listener on the spec's address and port, with its fixed receive
    buffer (`rcv_buf`, inherited by the connections it accepts) if it has one."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if spec.get("rcv_buf"):
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, int(spec["rcv_buf"]))
    listener.bind((spec["addr"], spec["port"]))
    listener.listen(backlog)
    return listener


def close_and_read(sel: selectors.BaseSelector, sock: socket.socket) -> dict[str, int]:
    """Takes a connection out of `sel` and closes it; returns its last TCP_INFO (empty if unreadable)."""
    try:
        info = tcp_info.read(sock)
    except OSError:
        info = {}
    sel.unregister(sock)
    sock.close()
    return info


class TcpReceiver:
    """One TCP flow's receiving end: counts in-order bytes delivered to the application."""

    def __init__(self, spec: dict):
        self.spec = spec
        self.listener = listening_socket(spec, 1)
        self.listener.settimeout(0.05)
        self.received = 0
        self.samples: list[tuple[float, int]] = []
        self.completed_s = float("nan")
        self.error: str | None = None

    def sample(self, t: float) -> None:
        self.samples.append((t, self.received))

    def run(self, t0_ns: int, duration_s: float) -> None:
        size = self.spec.get("size")
        conn = None
        try:
            while conn is None and now_s(t0_ns) < duration_s:
                try:
                    conn, _ = self.listener.accept()
                except TimeoutError:
                    continue
            if conn is None:
                return
            conn.settimeout(0.05)
            buf = bytearray(CHUNK_BYTES * 4)
            # Until the sender closes (it stops at the end of the run), with a grace period.
            while now_s(t0_ns) < duration_s + RECEIVER_GRACE_S:
                try:
                    n = conn.recv_into(buf)
                except TimeoutError:
                    continue
                except ConnectionResetError:  # the sender stopped (an abortive close)
                    break
                if n == 0:
                    break
                if self.spec.get("rcv_buf") and not self.received:
                    fit_window(conn, self.spec["rcv_buf"])
                self.received += n
                if size is not None and self.received >= size and self.completed_s != self.completed_s:
                    self.completed_s = now_s(t0_ns)
                    break
            conn.close()
        except OSError as e:
            self.error = f"flow {self.spec['flow']}: {e}"
        finally:
            self.listener.close()

    def result(self) -> dict:
        return {
            "flow": self.spec["flow"],
            "received": self.received,
            "completed_s": self.completed_s,
            "samples": self.samples,
            "error": self.error,
        }


def fit_window(conn: socket.socket, window: int) -> None:
    """Resizes a fixed receive buffer so that Linux offers `window` bytes
    (kernel.rcv_buf): called once the first data has arrived, when
    the kernel has measured its payload-to-truesize ratio (scaling_ratio,
    6.7+) and set the window clamp to the window of the whole buffer
    (tcp_measure_rcv_mss), so clamp / sk_rcvbuf is that ratio."""
    clamp = conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_WINDOW_CLAMP)
    rcvbuf = conn.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)  # sk_rcvbuf: SO_RCVBUF doubled
    if clamp > 0 and rcvbuf > 0:
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, math.ceil(window * rcvbuf / clamp / 2))


def unpack_pairs(text: str) -> list[tuple[int, int]]:
    """A background schedule's (ns, bytes) pairs: base64 of little-endian u64s."""
    a = array.array("Q")
    a.frombytes(base64.b64decode(text))
    if sys.byteorder == "big":
        a.byteswap()
    return list(zip(a[0::2], a[1::2]))


class UdpSource:
    """A UDP source: datagrams carrying a sequence number and the
    CLOCK_REALTIME send time, either at a constant bit rate (a [[udp]] entry:
    `rate_bps`, `packet_size`, `start_s`, `stop_s`) or at the times of the
    background's schedule (`datagrams`: each datagram's time and size)."""

    def __init__(self, spec: dict):
        self.spec = spec
        self.sent = 0
        self.wire_bytes = 0
        self.error: str | None = None

    def datagrams(self, duration_s: float):
        """(time s, bytes on the wire) of each datagram to send, in order."""
        s = self.spec
        if "datagrams" in s:
            for t_ns, wire in unpack_pairs(s["datagrams"]):
                yield t_ns / 1e9, wire
            return
        interval_s = s["packet_size"] * 8 / s["rate_bps"]
        stop_s = min(s["stop_s"] if s.get("stop_s") is not None else duration_s, duration_s)
        k = 0
        while (t := s["start_s"] + k * interval_s) < stop_s:
            yield t, s["packet_size"]
            k += 1

    def run(self, t0_ns: int, duration_s: float) -> None:
        s = self.spec
        # The sink reads a sequence number and a send time: 16 bytes of payload at least.
        payload = memoryview(bytearray(65536))
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
        try:
            for t_s, wire in self.datagrams(duration_s):
                while (left := t_s - now_s(t0_ns)) > 0:
                    time.sleep(min(left, 0.001))
                n = max(16, wire - UDP_HEADER_BYTES)
                struct.pack_into("=QQ", payload, 0, self.sent, time.clock_gettime_ns(time.CLOCK_REALTIME))
                try:
                    sock.sendto(payload[:n], (s["dst"], s["port"]))
                    self.sent += 1
                    self.wire_bytes += n + UDP_HEADER_BYTES
                except BlockingIOError:
                    pass
        except OSError as e:
            self.error = f"udp source {s['source']}: {e}"
        sock.close()

    def result(self) -> dict:
        return {"source": self.spec["source"], "sent": self.sent, "wire_bytes": self.wire_bytes, "error": self.error}


class BackgroundTcp:
    """The background's TCP transfers, sending end: at each scheduled time a
    new connection (the background's algorithm and send buffer) that sends
    its size and closes. One thread drives them all with a selector, so
    hundreds may be under way; what is under way at the end of the run stops
    there, as in the simulator. Sums the transfers' final TCP_INFO."""

    def __init__(self, spec: dict):
        self.spec = spec
        self.started = 0
        self.totals = {"bytes_sent": 0, "data_segs_out": 0, "total_retrans": 0}
        self.error: str | None = None

    def open(self) -> socket.socket:
        s = self.spec
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, s["cc"].encode())
        if s.get("snd_buf"):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, int(s["snd_buf"]))
        sock.setblocking(False)
        sock.connect_ex((s["dst"], s["port"]))
        return sock

    def close(self, sel: selectors.BaseSelector, sock: socket.socket) -> None:
        info = close_and_read(sel, sock)
        for k in self.totals:
            self.totals[k] += info.get(k, 0)

    def run(self, t0_ns: int, duration_s: float) -> None:
        pending = [(t / 1e9, size) for t, size in unpack_pairs(self.spec["transfers"]) if t / 1e9 < duration_s]
        pending.reverse()
        payload = memoryview(bytes(CHUNK_BYTES))
        sel = selectors.DefaultSelector()
        try:
            while (now := now_s(t0_ns)) < duration_s:
                while pending and pending[-1][0] <= now:
                    _, size = pending.pop()
                    sel.register(self.open(), selectors.EVENT_WRITE, [size, False])
                    self.started += 1
                next_start = pending[-1][0] if pending else duration_s
                for key, _ in sel.select(timeout=min(max(next_start - now, 0.0), 0.05)):
                    sock, state = key.fileobj, key.data  # [bytes left to send, FIN sent]
                    try:
                        if not state[1]:
                            if state[0] > 0:
                                state[0] -= sock.send(payload[: min(CHUNK_BYTES, state[0])])
                            if state[0] <= 0:
                                sock.shutdown(socket.SHUT_WR)
                                state[1] = True
                                # The receiver closes once it has everything.
                                sel.modify(sock, selectors.EVENT_READ, state)
                        elif not sock.recv(1):
                            self.close(sel, sock)
                    except (BlockingIOError, InterruptedError):
                        pass
                    except OSError:  # refused or reset: the transfer is over
                        self.close(sel, sock)
        except OSError as e:
            self.error = f"background: {e}"
        for key in list(sel.get_map().values()):
            self.close(sel, key.fileobj)
        sel.close()

    def result(self) -> dict:
        return {
            "source": self.spec["source"],
            "started": self.started,
            **self.totals,
            "error": self.error,
        }


class BackgroundTcpSink:
    """The background's TCP transfers, receiving end: accepts every transfer
    and reads it to its end (the sender's FIN), then closes; counts the
    payload delivered, the data segments received and the transfers completed
    by the end of the run."""

    def __init__(self, spec: dict):
        self.spec = spec
        self.listener = listening_socket(spec, 1024)
        self.listener.setblocking(False)
        self.received = 0
        self.data_segs_in = 0
        self.completed = 0

    def close(self, sel: selectors.BaseSelector, conn: socket.socket) -> None:
        self.data_segs_in += close_and_read(sel, conn).get("data_segs_in", 0)

    def run(self, t0_ns: int, duration_s: float) -> None:
        buf = bytearray(CHUNK_BYTES * 4)
        sel = selectors.DefaultSelector()
        sel.register(self.listener, selectors.EVENT_READ, None)
        while (now := now_s(t0_ns)) < duration_s:
            for key, _ in sel.select(timeout=min(duration_s - now, 0.05)):
                if key.fileobj is self.listener:
                    try:
                        conn, _ = self.listener.accept()
                    except (BlockingIOError, InterruptedError):
                        continue
                    conn.setblocking(False)
                    sel.register(conn, selectors.EVENT_READ, [False])
                    continue
                conn, fitted = key.fileobj, key.data
                try:
                    n = conn.recv_into(buf)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    self.close(sel, conn)
                    continue
                if n == 0:
                    self.completed += 1
                    self.close(sel, conn)
                    continue
                if self.spec.get("rcv_buf") and not fitted[0]:
                    fit_window(conn, self.spec["rcv_buf"])
                    fitted[0] = True
                self.received += n
        for key in list(sel.get_map().values()):
            if key.fileobj is not self.listener:
                self.close(sel, key.fileobj)
        sel.close()
        self.listener.close()

    def result(self) -> dict:
        return {
            "source": self.spec["source"],
            "received": self.received,
            "data_segs_in": self.data_segs_in,
            "completed": self.completed,
        }


class UdpSink:
    """Counts a UDP source's datagrams and their one-way delays: the source's
    CLOCK_REALTIME stamp to the kernel's receive timestamp (SO_TIMESTAMPNS,
    the same clock), so the sink's own scheduling delay does not count."""

    def __init__(self, spec: dict):
        self.spec = spec
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.sock.bind((spec["addr"], spec["port"]))
        self.sock.settimeout(0.05)
        self.received = 0
        self.bytes = 0
        self.delays_ms: list[float] = []

    def run(self, t0_ns: int, duration_s: float) -> None:
        buf = bytearray(65536)
        cmsg_space = socket.CMSG_SPACE(16)
        while now_s(t0_ns) < duration_s + 0.2:
            try:
                n, ancillary, _, _ = self.sock.recvmsg_into([buf], cmsg_space)
            except TimeoutError:
                continue
            arrived = time.clock_gettime_ns(time.CLOCK_REALTIME)
            for level, kind, data in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= 16:
                    sec, nsec = struct.unpack_from("=qq", data)
                    arrived = sec * 1_000_000_000 + nsec
            _, sent_ns = struct.unpack_from("=QQ", buf, 0)
            self.received += 1
            self.bytes += n + UDP_HEADER_BYTES
            self.delays_ms.append((arrived - sent_ns) / 1e6)
        self.sock.close()

    def result(self) -> dict:
        return {
            "source": self.spec["source"],
            "received": self.received,
            "wire_bytes": self.bytes,
            "delays_ms": self.delays_ms,
        }


def sampler(parts: list, t0_ns: int, duration_s: float, interval_s: float, stop: threading.Event) -> None:
    k = 0
    while not stop.is_set():
        t = k * interval_s
        if t > duration_s:
            return
        sleep_until(t0_ns, t)
        now = now_s(t0_ns)
        for p in parts:
            p.sample(now)
        k += 1


def main() -> None:
    die_with_parent()
    raise_priority()
    signal.signal(signal.SIGTERM, lambda *_: os._exit(143))
    plan = json.loads(sys.stdin.readline())
    senders = [TcpSender(s) for s in plan.get("tcp_senders", [])]
    receivers = [TcpReceiver(s) for s in plan.get("tcp_receivers", [])]
    sources = [UdpSource(s) for s in plan.get("udp_sources", [])]
    sinks = [UdpSink(s) for s in plan.get("udp_sinks", [])]
    background = [BackgroundTcp(s) for s in plan.get("background_tcp", [])]
    background_sinks = [BackgroundTcpSink(s) for s in plan.get("background_tcp_sinks", [])]
    print(json.dumps({"ready": True}), flush=True)
    line = sys.stdin.readline().split()
    if len(line) != 2 or line[0] != "go":
        sys.exit(f"agent: expected 'go T0_NS', got {line!r}")
    t0_ns, duration_s = int(line[1]), float(plan["duration_s"])
    stop = threading.Event()
    threads = [
        threading.Thread(target=p.run, args=(t0_ns, duration_s), daemon=True)
        for p in [*senders, *receivers, *sources, *sinks, *background, *background_sinks]
    ]
    sample_thread = threading.Thread(
        target=sampler,
        args=([*senders, *receivers], t0_ns, duration_s, plan.get("sample_interval_s", 0.01), stop),
        daemon=True,
    )
    for t in [*threads, sample_thread]:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    sample_thread.join()
    out = {
        "tcp_senders": [p.result() for p in senders],
        "tcp_receivers": [p.result() for p in receivers],
        "udp_sources": [p.result() for p in sources],
        "udp_sinks": [p.result() for p in sinks],
        "background_tcp": [p.result() for p in background],
        "background_tcp_sinks": [p.result() for p in background_sinks],
    }
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
