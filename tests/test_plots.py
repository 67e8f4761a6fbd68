"""Plot helpers: hand-checked numbers behind the pictures, and PNG output."""

import io
import warnings

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


def _pixels(png: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"))


def test_png_is_the_picture_savefig_writes_and_the_figure_keeps_its_dpi():
    """png_bytes draws once where savefig draws twice (layout, then render): the
    same pixels (as RGB, since every one is opaque), without a software tag."""
    from PIL import Image

    series = pd.DataFrame(
        {"t": [0.0, 1.0, 2.0] * 2, "flow": [0] * 3 + [1] * 3, "cwnd": [10, 20, 15, 5, 8, 9], "ssthresh": [np.nan] * 6}
    )
    flows = pd.DataFrame({"flow": [0, 1], "cc": ["cubic", "bbr"]})
    one = plots.cwnd_over_time(series, flows, title="cwnd")
    dpi = one.dpi
    ours = plots.figure_bytes(one, "png", close=False)
    assert one.dpi == dpi and dpi != plots.DPI
    two = plots.cwnd_over_time(series, flows, title="cwnd")
    buf = io.BytesIO()
    two.savefig(buf, format="png", dpi=plots.DPI)
    image = Image.open(io.BytesIO(ours))
    assert image.mode == "RGB" and "Software" not in image.info
    assert np.array_equal(_pixels(ours), _pixels(buf.getvalue()))


def test_a_transparent_figure_keeps_its_alpha():
    fig = plots.cwnd_over_time(pd.DataFrame({"t": [], "flow": [], "cwnd": [], "ssthresh": []}), pd.DataFrame())
    fig.patch.set_alpha(0.0)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=plots.DPI)
    ours = plots.png_bytes(fig)
    assert np.array_equal(_pixels(ours), _pixels(buf.getvalue()))
    assert _pixels(ours)[0, 0, 3] == 0


def test_overlapping_labels_are_left_out():
    keep = plots._spread_labels([0.0, 0.001, 1.0, 0.5], [0.0, 0.0, 1.0, 0.5])
    assert keep == [True, False, True, True]


def test_an_axes_with_nothing_labelled_gets_no_legend_and_no_warning():
    fig, ax = plots.plt.subplots()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plots.legend_outside(ax, fontsize=7)
    assert ax.get_legend() is None
    ax.plot([0, 1], [0, 1], label="cubic")
    plots.legend_outside(ax, fontsize=7)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["cubic"]
    plots.plt.close(fig)


def test_a_point_not_drawn_gets_no_label_and_hides_none():
    """A candidate without a delay (NaN: no RTT sample) is not drawn; first in
    order it used to be "labelled" and then hid every other label."""
    nan = float("nan")
    assert plots._spread_labels([nan, 0.0, 1.0], [nan, 0.0, 1.0]) == [False, True, True]
    assert plots._spread_labels([nan, nan], [1.0, nan]) == [False, False]


def _run_tables():
    import ccbench

    r = ccbench.run(
        {
            "duration": "4s",
            "downlink": {"rate": "10Mbit", "delay": "20ms", "loss": {"model": "bernoulli", "p": 0.01}},
            "flows": [{"cc": "cubic"}, {"cc": "reno"}],
        }
    )
    return r


def test_goodput_plot_says_what_it_plots_and_draws_the_capacity():
    r = _run_tables()
    fig = plots.rate_over_time(r.series, r.flows, 0.1, links=r.links)
    ax = fig.axes[0]
    assert "in-order delivery at the receiver, mean per 100 ms" in ax.get_title()
    capacity_mbps = r.links.set_index("link").loc[r.flows["link"].iloc[0], "capacity_bps"] / 1e6
    dashed = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
    assert len(dashed) == 1 and dashed[0].get_ydata()[0] == capacity_mbps
    labels = ax.get_legend().get_texts()
    assert [t.get_text() for t in labels][:2] == ["flow 0 (cubic)", "flow 1 (reno)"]
    assert "capacity" in labels[-1].get_text()
    plots.plt.close(fig)


def test_legends_sit_outside_the_data_and_name_every_flow():
    r = _run_tables()
    for fig in (
        plots.cwnd_over_time(r.series, r.flows),
        plots.rtt_over_time(r.rtt, r.flows),
        plots.rate_over_time(r.series, r.flows, links=r.links),
    ):
        fig.canvas.draw()
        ax = fig.axes[0]
        legend = ax.get_legend()
        box = legend.get_window_extent()
        assert box.x0 >= ax.get_window_extent().x1, ax.get_title()
        texts = [t.get_text() for t in legend.get_texts()]
        assert "ssthresh" not in texts  # a bare style name would not say which flow
        plots.plt.close(fig)


def test_figures_can_be_svg_and_identical_for_identical_data():
    table = pd.DataFrame({"algorithm": ["a", "b"], "goodput": [2.0, 1.0], "ci": [0.1, np.nan]})
    one = plots.figure_bytes(plots.bars(table, "algorithm", "goodput", "ci", "Mbit/s", "t"), "svg")
    two = plots.figure_bytes(plots.bars(table, "algorithm", "goodput", "ci", "Mbit/s", "t"), "svg")
    assert one.lstrip().startswith(b"<?xml") and b"<svg" in one
    assert one == two


def test_run_writes_svg_plots_with_the_window_asked_for(runner, tmp_path):
    from ccbench.cli import app

    scenario = tmp_path / "s.toml"
    scenario.write_text('duration = "2s"\n[downlink]\nrate = "10Mbit"\ndelay = "10ms"\n[[flows]]\ncc = "cubic"\n')
    out = tmp_path / "out"
    args = ["run", str(scenario), "--out", str(out), "--plots", "--plot-format", "svg", "--plot-window", "100ms"]
    result = runner.invoke(app, args, terminal_width=200)
    assert result.exit_code == 0, result.output
    assert (out / "goodput.svg").read_bytes().lstrip().startswith(b"<?xml") and not (out / "goodput.png").exists()
    assert b"mean per 100 ms" in (out / "goodput.svg").read_bytes()
    bad = runner.invoke(app, ["run", str(scenario), "--out", str(tmp_path / "o2"), "--plot-window", "10 parsecs"])
    assert bad.exit_code == 2 and "--plot-window" in bad.output
    bad = runner.invoke(app, ["run", str(scenario), "--out", str(tmp_path / "o3"), "--plot-format", "gif"])
    assert bad.exit_code == 2 and "one or more of png, svg, pdf" in bad.output


def test_plot_redraws_a_saved_runs_plots_by_name_and_format(runner, tmp_path):
    """A saved run could not be re-plotted (Flent's -p): `ccbench plot DIR`."""
    from ccbench.cli import app

    scenario = tmp_path / "s.toml"
    scenario.write_text('duration = "2s"\n[downlink]\nrate = "10Mbit"\ndelay = "10ms"\n[[flows]]\ncc = "cubic"\n')
    run_dir = tmp_path / "run"
    assert runner.invoke(app, ["run", str(scenario), "--out", str(run_dir), "--no-plots"]).exit_code == 0
    figs = tmp_path / "figs"
    args = ["plot", str(run_dir), "--only", "cwnd,goodput", "--format", "pdf,svg", "--window", "100ms"]
    args += ["--out", str(figs)]
    result = runner.invoke(app, args, terminal_width=200)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in figs.iterdir()) == ["cwnd.pdf", "cwnd.svg", "goodput.pdf", "goodput.svg"]
    first = (figs / "cwnd.pdf").read_bytes()
    assert first.startswith(b"%PDF") and b"mean per 100 ms" in (figs / "goodput.svg").read_bytes()
    assert runner.invoke(app, args).exit_code == 0
    assert (figs / "cwnd.pdf").read_bytes() == first, "identical data, identical file"
    result = runner.invoke(app, ["plot", str(run_dir)], terminal_width=200)
    assert result.exit_code == 0 and {p.name for p in run_dir.glob("*.png")} == {
        f"{n}.png" for n in ("cwnd", "rtt", "goodput", "rtt_cdf", "links")
    }
    bad = runner.invoke(app, ["plot", str(run_dir), "--only", "cwnd,sparkles"])
    assert bad.exit_code == 2 and "--only: sparkles is not allowed" in bad.output
    bad = runner.invoke(app, ["plot", str(tmp_path)])
    assert bad.exit_code == 2 and "holds no saved run" in bad.output


def test_rtt_plots_of_a_run_that_kept_no_sample_say_why(runner, tmp_path):
    """With record.rtt_samples = "none", rtt and rtt_cdf were empty axes."""
    from ccbench.cli import app

    scenario = tmp_path / "s.toml"
    scenario.write_text(
        'duration = "1s"\n[downlink]\nrate = "10Mbit"\n[[flows]]\ncc = "cubic"\n[record]\nrtt_samples = "none"\n'
    )
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(scenario), "--out", str(out), "--plot-format", "svg"], terminal_width=200)
    assert result.exit_code == 0, result.output
    for name in ("rtt", "rtt_cdf"):
        assert b'record.rtt_samples = "none"' in (out / f"{name}.svg").read_bytes(), name


def test_a_long_title_wraps_inside_the_figure():
    """A campaign's condition names make titles wider than the figure: they
    wrap, where they had run off both edges of the image."""
    title = "Throughput over time (profile.name = wan-100ms, profile.tuned = False, duration = 10s; repetition 0)"
    t = np.arange(0, 10.01, 0.5)
    series = pd.DataFrame({"t": t, "flow": [0] * len(t), "delivered_bytes": (t * 12_000_000).astype(int)})
    fig = plots.runs_rate_over_time({"reno": series, "cubic": series, "vegas": series}, 1.0, title)
    fig.set_dpi(plots.DPI)  # as the report's images are drawn
    fig.canvas.draw()
    box = fig.axes[0].title.get_window_extent()
    assert 0 <= box.x0 and box.x1 <= fig.bbox.width


def test_runs_over_time_plot_throughput_from_bytes_sent_where_asked():
    """The studies' tables report throughput (payload sent, retransmissions
    included): their plots over time show the same quantity, and say which."""
    t = np.arange(0, 4.01, 0.5)
    series = pd.DataFrame(
        {
            "t": t,
            "flow": [0] * len(t),
            "delivered_bytes": (t * 1_000_000).astype(int),
            "bytes_sent": (t * 2_000_000).astype(int),
        }
    )
    for what, mbit in (("goodput", 8.0), ("throughput", 16.0)):
        fig = plots.runs_rate_over_time({"reno": series}, 1.0, "t", what)
        ax = fig.axes[0]
        assert ax.get_ylabel().startswith(f"{what} (Mbit/s")
        assert np.allclose(ax.lines[0].get_ydata(), mbit)


def test_runs_over_time_draw_the_bottlenecks_capacity():
    """A campaign's goodput over time peaked at 4-5 Mbit/s on a 2 Mbit/s link
    with no capacity line to read that against, where a run's plot has one."""
    t = np.arange(0, 4.01, 0.5)
    series = pd.DataFrame({"t": t, "flow": [0] * len(t), "delivered_bytes": (t * 250_000).astype(int)})
    flows = pd.DataFrame({"flow": [0], "link": ["downlink"]})
    links = pd.DataFrame({"link": ["downlink", "uplink"], "capacity_bps": [1.93e6, 0.5e6]})
    capacities = plots.bottleneck_capacities(flows, links)
    assert capacities == {"downlink": 1.93e6}
    ax = plots.runs_rate_over_time({"reno": series}, 1.0, "t", capacities=capacities).axes[0]
    (line,) = [x for x in ax.lines if x.get_label().startswith("downlink payload capacity 1.93 Mbit/s")]
    assert np.allclose(line.get_ydata(), 1.93)


def test_a_cdf_rises_from_zero():
    """Drawn from its first sample, a CDF of 6 flows started at 1/6 and its
    axis at about 0.17; it now rises from 0 at the smallest value."""
    fig = plots.cdf({"a": np.array([3.0, 1.0, 2.0]), "none": np.array([])}, "x", "t")
    a, none = fig.axes[0].lines
    assert a.get_ydata()[0] == 0.0 and a.get_xdata()[0] == 1.0 and a.get_ydata()[-1] == 1.0
    assert len(none.get_xdata()) == 0 and none.get_label() == "none"
    assert fig.axes[0].get_ylim()[0] <= 0.0


def test_runs_over_time_sum_flows_on_one_time_grid():
    """A TCP/TCP pair's second flow is sampled from its start (2 s): its
    windows were added to the first flow's by position, from 0 s, so the sum
    showed both flows at once from the start."""

    def flow(fid, start, end):
        t = np.arange(start, end + 1e-9, 0.01)
        return pd.DataFrame({"t": t, "flow": fid, "delivered_bytes": (t - start) * 1_000_000})

    series = pd.concat([flow(0, 0.0, 8.0), flow(1, 2.0, 10.0)])
    line = plots.runs_rate_over_time({"pair": series}, 0.5, "t").axes[0].lines[0]
    t, mbit = line.get_xdata(), line.get_ydata()
    assert np.allclose(mbit[t <= 2.0], 8.0) and np.allclose(mbit[(t > 2.0) & (t <= 8.0)], 16.0)
    assert np.allclose(mbit[t > 8.0], 8.0) and t[-1] == 10.0


def test_runs_over_time_of_a_short_run_shorten_the_window():
    """A quick study's transfers end within two seconds: with 1 s windows the
    figure had one point, and drew nothing."""
    t = np.arange(0, 1.2001, 0.01)
    series = pd.DataFrame({"t": t, "flow": 0, "delivered_bytes": t * 1_000_000})
    ax = plots.runs_rate_over_time({"cubic": series}, 1.0, "t").axes[0]
    assert len(ax.lines[0].get_xdata()) >= plots.MIN_WINDOWS and ax.get_ylabel() == "goodput (Mbit/s, 60 ms means)"


def _outside_the_figure(fig) -> list[str]:
    """The titles, axis labels and legends of a drawn figure that run past its edges."""
    renderer = fig.canvas.get_renderer()
    width, height = fig.bbox.width, fig.bbox.height
    parts = [fig._suptitle] if fig._suptitle else []
    for ax in fig.axes:
        parts += [ax.title, ax.xaxis.label, ax.yaxis.label, *([ax.get_legend()] if ax.get_legend() else [])]
    out = []
    for part in parts:
        box = part.get_window_extent(renderer)
        if box.width and (box.x0 < -0.5 or box.y0 < -0.5 or box.x1 > width + 0.5 or box.y1 > height + 0.5):
            out.append(part.get_text() if hasattr(part, "get_text") else type(part).__name__)
    return out


def test_the_delay_plane_keeps_its_axis_labels_inside_the_figure():
    """The x label of the goodput vs delay plane, on one line, ran past the
    figure's left edge (its first letters cut off) once the legend beside the
    axes narrowed them."""
    from ccbench.campaigns import figures

    names = [f"algorithm{i}" for i in range(22)]
    p95 = np.linspace(600.0, 1200.0, 22)
    table = pd.DataFrame(
        {
            "name": names,
            "goodput_bps": np.linspace(1e6, 9e6, 22),
            "rtt_p95_ms": p95,
            "rtt_mean_ms": p95 * 0.8,
            "pareto": [True, True] + [False] * 20,
        }
    )
    fig = figures.throughput_delay(table, "Goodput vs delay", {"algorithm0"})
    fig.set_dpi(plots.DPI)
    fig.canvas.draw()
    assert _outside_the_figure(fig) == []


def test_every_drawn_point_is_named_once_in_some_label():
    """In "Goodput vs delay", 18 tied algorithms sat in one unlabeled cluster:
    now each unlabelled point is named in the label of its nearest labelled one."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    coords = st.one_of(st.floats(0, 100, allow_nan=False), st.just(float("nan")))

    @settings(max_examples=200, deadline=None)
    @given(st.lists(st.tuples(coords, coords), min_size=1, max_size=30))
    def check(points):
        xs, ys = zip(*points)
        groups = plots.label_groups(xs, ys)
        named = sorted(i for g in groups for i in g)
        drawn = [i for i, (x, y) in enumerate(points) if x == x and y == y]
        assert named == drawn
        assert all(g[0] == i for i, g in enumerate(groups) if g), "a label names its own point first"

    check()
    # A tight cluster of 18 and one point apart: two labels, the cluster's naming all 18.
    xs = [50 + 0.01 * i for i in range(18)] + [10]
    ys = [9.0] * 18 + [2.0]
    groups = [g for g in plots.label_groups(xs, ys) if g]
    assert sorted(len(g) for g in groups) == [1, 18]
    assert plots.group_label(["bic", "cubic", "htcp"]) == "bic, cubic, htcp"
