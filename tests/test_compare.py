"""`ccbench compare`: serial and parallel give identical tables; the quick
campaign over every algorithm writes a complete report."""

import pandas as pd
from ccbench import _ccsim, compare


def test_serial_and_parallel_tables_are_identical(tmp_path):
    algs = ["reno", "cubic"]
    tables = {}
    for jobs in (1, 2):
        out = tmp_path / f"j{jobs}"
        tables[jobs] = compare.run_all(compare.tasks(out, algs, reps=2, quick=True), jobs)
    for a, b in zip(tables[1], tables[2]):
        pd.testing.assert_frame_equal(a, b, check_exact=True)
    runs = tables[1][1]
    assert len(runs) == len(compare.CONDITIONS) * len(algs) * 2
    assert sorted(set(runs["seed"])) == [1, 2]
    # repetitions differ (distinct seeds), algorithms differ
    lossy = runs[(runs["scenario"] == "lossy") & (runs["algorithm"] == "reno")]
    assert lossy["goodput_bps"].nunique() == 2
    for out in ("j1", "j2"):
        a = (tmp_path / "j1" / "runs" / "lossy" / "cubic" / "rep0" / "series.parquet").read_bytes()
        assert a == (tmp_path / out / "runs" / "lossy" / "cubic" / "rep0" / "series.parquet").read_bytes()


def test_quick_compare_end_to_end(quick_campaign):
    out, output, algs = quick_campaign
    assert algs == [a["name"] for a in _ccsim.algorithms()]
    report = out / "report.html"
    assert f"Report: {report}" in output
    html = report.read_text()
    for a in algs:
        assert f">{a}<" in html
    for c in compare.CONDITIONS:
        assert c.title in html
    assert html.count("Under these conditions") == len(compare.CONDITIONS)
    assert "http://" not in html and "https://" not in html and "<link" not in html  # self-contained
    assert html.count('src="data:image/png;base64,') == 4 * len(compare.CONDITIONS)
    runs = pd.read_parquet(out / "runs.parquet")
    assert len(runs) == len(algs) * len(compare.CONDITIONS) * 2
    assert (out / "flows.csv").exists() and (out / "campaign.json").exists()
    assert (runs["utilization"] <= 1.0 + 1e-9).all()
