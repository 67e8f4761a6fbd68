"""Kernel mode: a scenario through the real Linux TCP stack, across links
emulated by ccemu (the simulator's own link model driven by the wall clock),
with the same result tables as a simulated run.

    import ccbench
    r = ccbench.emulate("examples/clean-path.toml")   # as root
"""

from ccbench.emulate.host import PreflightError, cleanup, preflight
from ccbench.emulate.kernel import KernelModeError, available_algorithms
from ccbench.emulate.runner import emulate, read_packet_records

__all__ = [
    "emulate",
    "cleanup",
    "preflight",
    "read_packet_records",
    "available_algorithms",
    "PreflightError",
    "KernelModeError",
]
