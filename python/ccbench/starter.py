"""`ccbench new`: a commented starter scenario, every common field with what
it means and what else it accepts, short enough to run in a few seconds."""

from __future__ import annotations

from pathlib import Path

DEFAULT_NAME = "scenario.toml"

STARTER = """\
# A ccbench scenario: one bottleneck, the flows that share it, what to record.
#   ccbench run {file}        (ccbench validate {file} checks it without running)
# Editors (taplo / Even Better TOML) complete and check this file with the
# schema: `ccbench schema > scenario.schema.json`, then put the line
# `#:schema ./scenario.schema.json` at the top of this file.

name = "my scenario"      # a label for tables and reports
duration = "10s"          # simulated time ("500ms", "2min", or a number of seconds)
seed = 1                  # the same seed gives the same results, bit for bit

# Instead of [downlink], a named network: profile = "lte-good" (`ccbench profiles`).
[downlink]                # the bottleneck that carries the data
rate = "10Mbit"           # "384kbit", "1Gbit", or a number of bit/s
delay = "20ms"            # one-way propagation delay
queue = {{ size = "1bdp" }} # drop-tail buffer: "1bdp", "100pkt" or "64KB"; kind = "red" or "codel" too
# loss = {{ model = "bernoulli", p = 0.01 }}   # random loss on the link
# trace = "my.trace"      # a Mahimahi trace instead of a constant rate

# No [uplink]: the ACKs' path mirrors the downlink without loss.

[[flows]]
cc = "cubic"              # the congestion control: `ccbench algorithms` lists them
# cc_params = {{ beta = 0.7 }}   # its parameters (defaults in `ccbench algorithms cubic`)
# count = 2               # this many identical flows
# start = "1s"            # when the flow starts sending
# size = "5MB"            # a file transfer instead of a bulk flow
# tcp = {{ kernel = "2.6.32" }}  # TCP settings (`ccbench kernels`); defaults are Linux's

[[flows]]
cc = "bbr"
start = "2s"              # joins later: watch the flows converge in goodput.png

[record]
interval = "10ms"         # sampling interval of the time series (cwnd, rates, queues)
"""


class StarterExistsError(FileExistsError):
    """The target file exists and --force was not given."""


def write(path: Path, force: bool = False) -> Path:
    """Writes the starter scenario to `path` (a directory gets scenario.toml
    inside it); refuses to replace a file unless `force`."""
    if path.is_dir():
        path = path / DEFAULT_NAME
    if path.exists() and not force:
        raise StarterExistsError(f"{path} exists; --force replaces it")
    path.write_text(STARTER.format(file=path.name), encoding="utf-8")
    return path
