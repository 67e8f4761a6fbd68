"""ccbench: how does each TCP congestion control behave on my network, and which one should I pick?

import ccbench
r = ccbench.run("examples/clean-path.toml", seed=3)
r.flows[["cc", "goodput_bps", "rtt_mean_ms"]]
c = ccbench.campaign("my-campaign.toml")   # factors x levels x repetitions; resumable
c.runs                                      # one row per run, every factor a column
"""

import ccbench.emulate  # noqa: F401 - the package before the function `emulate`, which then keeps the name
from ccbench._ccsim import __version__
from ccbench.api import algorithms, campaign, emulate, load, run, run_toml
from ccbench.inputs import TomlText
from ccbench.lazy import attributes
from ccbench.scenario import ScenarioFileError

#: Names imported on first use (PEP 562), so `import ccbench` stays light:
#: NumPy, pandas, pyarrow and the campaign engine load when needed.
__getattr__, __dir__ = attributes(
    __name__,
    {"Result": "ccbench.run_result", "CampaignFileError": "ccbench.campaigns.spec"},
)

__all__ = [
    "__version__",
    "run",
    "run_toml",
    "TomlText",
    "emulate",
    "campaign",
    "load",
    "algorithms",
    "Result",
    "ScenarioFileError",
    "CampaignFileError",
]
