"""ccbench: how does each TCP congestion control behave on my network, and which one should I pick?"""

from ccbench._ccsim import __version__

__all__ = ["__version__"]
