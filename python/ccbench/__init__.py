"""ccbench: how does each TCP congestion control behave on my network, and which one should I pick?

import ccbench
r = ccbench.run("examples/clean-path.toml", seed=3)
r.flows[["cc", "goodput_bps", "rtt_mean_ms"]]
c = ccbench.campaign("my-campaign.toml")   # factors x levels x repetitions; resumable
c.runs                                      # one row per run, every factor a column
"""

from ccbench._ccsim import __version__
from ccbench.api import algorithms, campaign, emulate, load, run, run_toml
from ccbench.campaigns.spec import CampaignFileError
from ccbench.inputs import TomlText
from ccbench.run_result import Result
from ccbench.scenario import ScenarioFileError

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
