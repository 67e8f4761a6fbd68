"""Kernel mode: a scenario through the real Linux TCP stack, across links
emulated by ccemu (the simulator's own link model driven by the wall clock),
with the same result tables as a simulated run.

    import ccbench
    r = ccbench.emulate("examples/clean-path.toml")   # as root
"""

from ccbench.lazy import attributes

#: Names imported on first use (PEP 562): `import ccbench` imports this
#: package, and a simulated run needs none of kernel mode.
__getattr__, __dir__ = attributes(
    __name__,
    {
        "emulate": "ccbench.emulate.runner",
        "read_packet_records": "ccbench.emulate.runner",
        "cleanup": "ccbench.emulate.host",
        "preflight": "ccbench.emulate.host",
        "PreflightError": "ccbench.emulate.host",
        "available_algorithms": "ccbench.emulate.kernel",
        "KernelModeError": "ccbench.emulate.kernel",
    },
)

__all__ = [
    "emulate",
    "cleanup",
    "preflight",
    "read_packet_records",
    "available_algorithms",
    "PreflightError",
    "KernelModeError",
]
