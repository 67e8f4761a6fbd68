"""The self-contained HTML report of a campaign (template.html + builder.py)."""

from ccbench.report.builder import build

__all__ = ["build"]
