"""`ccbench fit`: a scenario of the user's path estimated from a packet capture of a TCP
transfer over it (bottleneck rate, base RTT, queueing delay, loss rate and pattern, reordering),
each estimate with its interval and method. docs/fit.md is the user's guide.

    from ccbench.fit import fit_capture
    r = fit_capture("examples/fit/path.pcap")
    r.rate.value, r.base_rtt.value, r.scenario_dict(), r.to_toml()
"""

from __future__ import annotations

from pathlib import Path

from .capture import FitInputError, pick_connection, read_connections
from .estimate import estimate
from .receiver import replay_receiver
from .result import Estimate, FitResult
from .sender import capture_side, replay

__all__ = ["Estimate", "FitInputError", "FitResult", "fit_capture"]


def fit_capture(path: str | Path, flow: str | None = None) -> FitResult:
    """Fits the path of the capture's TCP flow (`flow` picks one when there are several: its index
    in the error's listing or its sender's address:port). Raises FitInputError (one line) on input
    it cannot fit: not a capture, no TCP flow, several flows and none picked, a capture taken
    inside the path (or at the receiver without TCP timestamps), or too short."""
    conns, resolution = read_connections(path)
    conn = pick_connection(conns, flow, path)
    r = replay(conn)
    side = capture_side(r)
    if side == "receiver":
        try:
            rr, samples = replay_receiver(conn)
        except FitInputError as e:
            raise FitInputError(f"{path}: {e}") from None
        return estimate(rr, str(path), conn.label(), side, resolution, rate_samples=samples)
    if side == "path":
        raise FitInputError(
            f"{path}: the capture was taken inside the path (data-to-ACK and ACK-to-data delays are alike);"
            " ccbench fit reads captures taken at the sender or the receiver (tcpdump on either host)"
        )
    return estimate(r, str(path), conn.label(), side, resolution)
