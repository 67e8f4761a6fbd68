"""Jupyter's view of a run and of a campaign, and a run's figures in memory."""

import ccbench
import pytest

SCENARIO = {
    "duration": "1s",
    "downlink": {"rate": "10Mbit", "delay": "10ms"},
    "flows": [{"cc": "cubic"}, {"cc": "reno"}],
}


def test_a_result_shows_what_ran_and_a_row_per_flow():
    r = ccbench.run(SCENARIO, seed=3)
    page = r._repr_html_()
    assert "ccbench.Result" in page and "goodput (Mbit/s)" in page and "p95 RTT (ms)" in page
    assert "<td>cubic</td>" in page and "<td>reno</td>" in page
    expected = f"{r.flows['goodput_bps'].iloc[0] / 1e6:.3f}"
    assert expected in page


def test_a_result_draws_its_standard_figures_in_memory():
    import matplotlib.figure

    r = ccbench.run(SCENARIO, seed=3)
    for name in ("cwnd", "rtt", "goodput", "rtt_cdf", "links"):
        assert isinstance(r.plot(name), matplotlib.figure.Figure), name
    with pytest.raises(ValueError, match="one of cwnd, rtt"):
        r.plot("sparkles")


def test_a_loaded_campaign_shows_its_design_and_means(tmp_path):
    c = ccbench.campaign(
        {
            "repetitions": 2,
            "scenario": SCENARIO | {"flows": [{"cc": "reno"}]},
            "factors": {"flows[0].cc": ["reno", "vegas"]},
        },
        out=tmp_path / "c",
        jobs=1,
        report=False,
    )
    page = c._repr_html_()
    assert "ccbench campaign" in page and "(4 runs)" in page
    assert "<code>flows[0].cc</code>: reno, vegas" in page
    assert page.count("<tr>") == 3, "a heading and one row per condition"


def test_a_loaded_campaign_draws_its_reports_figures_in_memory(tmp_path):
    import matplotlib.figure

    c = ccbench.campaign(
        {
            "repetitions": 2,
            "scenario": SCENARIO | {"flows": [{"cc": "reno"}, {"cc": "reno"}]},
            "factors": {"flows[*].cc": ["reno", "vegas"], "downlink.rate": ["5Mbit", "10Mbit"]},
        },
        out=tmp_path / "c",
        jobs=1,
        report=False,
    )
    for name in ("bars", "plane", "cdfs"):
        assert isinstance(c.plot(name, condition=1), matplotlib.figure.Figure), name
    bars = c.plot("bars", objective="latency").axes[0]
    assert "p95 RTT" in bars.get_xlabel()
    with pytest.raises(ValueError, match="one of bars, plane, cdfs"):
        c.plot("sparkles")
    with pytest.raises(ValueError, match="the campaign has 2"):
        c.plot("bars", condition=2)
