"""Plot helpers: hand-checked numbers behind the pictures, and PNG output."""

import numpy as np
import pandas as pd
from ccbench import plots


def test_ecdf_by_hand():
    x, y = plots.ecdf([3.0, 1.0, np.nan, 2.0])
    assert x.tolist() == [1.0, 2.0, 3.0]
    assert y.tolist() == [1 / 3, 2 / 3, 1.0]


def test_smooth_rate_from_a_counter():
    s = pd.DataFrame({"t": [0.0, 0.5, 1.0, 1.5, 2.0], "delivered_bytes": [0, 62_500, 125_000, 125_000, 250_000]})
    t, r = plots.smooth_rate(s, "delivered_bytes", 1.0)
    assert t.tolist() == [1.0, 2.0]
    assert r.tolist() == [1e6, 1e6]


def test_figures_are_pngs_and_identical_for_identical_data():
    table = pd.DataFrame({"algorithm": ["a", "b"], "goodput": [2.0, 1.0], "ci": [0.1, np.nan]})
    one = plots.png_bytes(plots.bars(table, "algorithm", "goodput", "ci", "Mbit/s", "t", highlight={"a"}))
    two = plots.png_bytes(plots.bars(table, "algorithm", "goodput", "ci", "Mbit/s", "t", highlight={"a"}))
    assert one[:8] == b"\x89PNG\r\n\x1a\n"
    assert one == two


def test_overlapping_labels_are_left_out():
    keep = plots._spread_labels([0.0, 0.001, 1.0, 0.5], [0.0, 0.0, 1.0, 0.5])
    assert keep == [True, False, True, True]
