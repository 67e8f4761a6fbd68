"""Builds report.html from a saved campaign directory (never from memory);
the campaign report lives in ccbench.campaigns.report, the one code path for
`ccbench report`, `ccbench campaign` and `ccbench compare`."""

from __future__ import annotations

from ccbench.campaigns.report import build, recommendations

__all__ = ["build", "recommendations"]
