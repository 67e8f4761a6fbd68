"""ccbench: how does each TCP congestion control behave on my network, and which one should I pick?

import ccbench
r = ccbench.run("examples/clean_path.toml", seed=3)
r.flows[["cc", "goodput_bps", "rtt_mean_ms"]]
"""

from ccbench._ccsim import __version__
from ccbench.api import algorithms, emulate, run
from ccbench.result import Result
from ccbench.scenario import ScenarioFileError

__all__ = ["__version__", "run", "emulate", "algorithms", "Result", "ScenarioFileError"]
