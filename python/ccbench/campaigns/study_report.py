"""The report section of a shipped study (a campaign file with `study = NAME`),
laid out like the study's own tables (SPEC sections 4 and 5), built from the
campaign's saved results only, citing the study. Where the study published a
number for a cell (the `[about.reference]` table of its campaign file), it is shown beside
ccbench's with the difference; nothing else is compared.

Every table has an `id` and every figure an `alt` of the form STUDY-PART
(e.g. `umts-downlink`, `hsdpa-cwnd-over-time`), so a reader (and the tests)
can find each part by name.
"""

from __future__ import annotations

import html
import math
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from ccbench import plots  # noqa: E402
from ccbench.campaigns import figures  # noqa: E402
from ccbench.campaigns.analysis import METRICS, compare_candidates  # noqa: E402
from ccbench.campaigns.storage import CampaignData, tables_dir  # noqa: E402
from ccbench.campaigns.studies import ABOUT_FIELDS, STUDIES  # noqa: E402

CC = "flows[*].cc"
#: A run "fills the pipe early" (wan) when its goodput, averaged over 1 s, reaches this share of the
#: link rate within the first EARLY_SHARE of the run (20 s of a 100 s run).
FILL_SHARE, EARLY_SHARE = 0.9, 0.2
_BULK = re.compile(r"^(\d+) flows?$")
_FILE = re.compile(r"^(\d+) KB$")


def _e(x) -> str:
    return html.escape(str(x))


def _num(v, digits: int = 1) -> str:
    return "–" if v is None or not np.isfinite(v) else f"{v:.{digits}f}"


def _table(ident: str, caption: str, header: list[str], rows: list[list[str]], note: str = "") -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return (
        f'<h3 id="{ident}-title">{_e(caption)}</h3><div class="wide"><table class="study" id="{ident}">'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
        + (f'<p class="note">{note}</p>' if note else "")
    )


def _figure(data: CampaignData, name: str, fig) -> str:
    png = figures.save(fig, data.directory / "plots", name, data.figure_formats)
    return f'<div class="figs">{figures.img_tag(png, name)}</div>'


def _vs(value: float, reference: float, digits: int = 1) -> str:
    """ccbench's value, the study's and the difference, for one cell."""
    if not np.isfinite(value):
        return f"– (study {reference:.{digits}f})"
    return (
        f'{value:.{digits}f} <span class="pm">(study {reference:.{digits}f}; Δ {value - reference:+.{digits}f})</span>'
    )


def _run_tables(data: CampaignData, run_key: str):
    """A kept run's full tables (ccbench.run_files.load), or None."""
    from ccbench.run_files import load

    d = tables_dir(data.directory, run_key)
    return load(d) if (d / "meta.json").exists() else None


def _first_runs(data: CampaignData, **levels) -> pd.DataFrame:
    """Repetition 0 of the runs at the given levels (factor name -> level text)."""
    runs = data.runs[data.runs["rep"] == 0]
    for f, v in levels.items():
        runs = runs[runs[f].astype(str) == str(v)]
    return runs


def _levels(data: CampaignData, factor: str) -> list[str]:
    return [str(v) for v in data.design["factors"][factor]]


def _about(data: CampaignData, study: str) -> dict:
    """The campaign file's `[about]` table (an edited copy of a study keeps its own), or the shipped
    study's for a campaign directory written before campaign files had one."""
    about = data.design.get("about")
    if about:
        return about
    s = STUDIES[study]
    return {k: getattr(s, k) for k in ABOUT_FIELDS} | {"reference": s.reference}


def _cite(data: CampaignData, study: str) -> str:
    a = {k: "not given" for k in ("paper", "setting", "measured", "network", "kernel")} | _about(data, study)
    return (
        f'<p class="cite">Study: {_e(a["paper"])}. Setting: {_e(a["setting"])}. It measured {_e(a["measured"])}; '
        f"network here: {_e(a['network'])}; TCP here: the Linux {_e(a['kernel'])} kernel preset "
        f'(tcp.kernel = "{_e(a["kernel"])}").</p>'
    )


# ---- umts and hsdpa ----


def _study_profile(study: str) -> str | None:
    """The profile name the shipped study's base scenario uses, if it names one."""
    import tomllib

    profile = tomllib.loads(STUDIES[study].text()).get("scenario", {}).get("profile")
    return profile.get("name") if isinstance(profile, dict) else profile


def _nominal_utilization(flows: pd.DataFrame, nominal_bps: float) -> float:
    """The studies' utilization: the sum of a run's goodputs over the nominal
    channel rate, mean over runs."""
    return float(flows.groupby("run")["goodput_bps"].sum().mean() / nominal_bps) if len(flows) else math.nan


def _cellular_table(data: CampaignData, study: str, direction: str) -> str:
    from ccbench.profiles import nominal_rate_bps

    flows, runs = data.flows, data.runs
    profile = _study_profile(study)
    nominal = nominal_rate_bps(profile, direction) if profile else None
    published = _about(data, study).get("reference", {})
    rows = []
    for workload in _levels(data, "workload"):
        m = _BULK.match(workload)
        if not m:
            continue
        for cc in _levels(data, CC):
            sel = (flows["workload"].astype(str) == workload) & (flows[CC].astype(str) == cc)
            f = flows[sel & (flows["flows[*].direction"].astype(str) == direction)]
            r = runs[
                (runs["workload"].astype(str) == workload)
                & (runs[CC].astype(str) == cc)
                & (runs["flows[*].direction"].astype(str) == direction)
            ]
            if f.empty:
                continue
            cells = {
                "goodput_kbps": f["goodput_bps"].mean() / 1e3,
                "goodput_std_kbps": f["goodput_bps"].std() / 1e3,
                "utilization_pct": 100 * (_nominal_utilization(f, nominal) if nominal else r["utilization"].mean()),
                "rtt_mean_ms": f["rtt_mean_ms"].mean(),
                "rtt_std_ms": f["rtt_std_ms"].mean(),
                "queuing_mean_ms": f["queuing_mean_ms"].mean(),
                "timeouts_per_100s": f["timeouts_per_100s"].mean(),
                "retrans_pct": f["retrans_pct"].mean(),
                "retrans_std_pct": f["retrans_pct"].std(),
            }
            # The studies published their reference condition's numbers: NewReno, one flow (UMTS).
            reference = published.get(direction) if cc == "newreno" and m[1] == "1" else None
            shown = [
                _vs(v, reference[k], 2 if k in ("timeouts_per_100s", "retrans_pct", "retrans_std_pct") else 1)
                if reference
                else _num(v, 2 if k in ("timeouts_per_100s", "retrans_pct", "retrans_std_pct") else 1)
                for k, v in cells.items()
            ]
            jain = _num(r["jain"].mean(), 3) if int(m[1]) > 1 else "–"
            rows.append([m[1], _e(cc), *shown[:3], jain, *shown[3:], str(len(f))])
    header = [
        "flows",
        "algorithm",
        "goodput mean (kbit/s)",
        "goodput std (kbit/s)",
        "channel utilization (%)",
        "Jain's index",
        "RTT mean (ms)",
        "RTT std (ms)",
        "queuing time mean (ms)",
        "timeouts per 100 s",
        "retransmitted mean (%)",
        "retransmitted std (%)",
        "n flows",
    ]
    name = "downlink" if direction == "down" else "uplink"
    over = f"the nominal {nominal / 1e3:g} kbit/s of {profile}" if nominal else "the link's payload capacity"
    note = (
        "Per flow over every repetition: goodput mean and std over flows; utilization: the sum of a run's "
        f"goodputs over {over}, mean over runs; Jain's index over a run's flows, mean over "
        "runs; RTT std: the per-flow std of per-ACK samples, mean over flows; queuing time = RTT − the flow's "
        "minimum RTT."
    )
    if study == "umts":
        note += (
            " Beside NewReno with one flow: the study's published value and the difference (Δ = ccbench − study); "
            + (
                "both utilizations are relative to the nominal rate."
                if nominal
                else "the study's utilization is relative to the nominal rate, ccbench's to the payload capacity "
                "(the profile declares no nominal rate)."
            )
        )
    return _table(f"{study}-{name}", f"{name.capitalize()}: bulk flows of {study.upper()}", header, rows, note)


def _file_sizes(data: CampaignData, study: str) -> str:
    flows = data.flows
    sizes = [w for w in _levels(data, "workload") if _FILE.match(w)]
    rows, points = [], {}
    for direction in ("down", "up"):
        for cc in _levels(data, CC):
            values = []
            for w in sizes:
                f = flows[
                    (flows["workload"].astype(str) == w)
                    & (flows[CC].astype(str) == cc)
                    & (flows["flows[*].direction"].astype(str) == direction)
                ]
                values.append(f["goodput_bps"].mean() / 1e3 if not f.empty else math.nan)
            if not np.isfinite(values).any():
                continue
            rows.append([direction, _e(cc), *(_num(v) for v in values)])
            points[f"{cc} ({direction})"] = values
    table = _table(
        f"{study}-goodput-vs-file-size",
        "Goodput vs file size (kbit/s, mean over transfers; a transfer's goodput is over its completion time)",
        ["direction", "algorithm", *sizes],
        rows,
    )
    fig, ax = plt.subplots(figsize=(6.5, 3.3), layout="constrained")
    x = [int(_FILE.match(w)[1]) for w in sizes]
    for i, (label, values) in enumerate(points.items()):
        ax.plot(x, values, marker="o", lw=1.2, color=f"C{i % 10}", ls="-" if "(down)" in label else "--", label=label)
    ax.set_xscale("log")
    ax.set_xticks(x, [str(v) for v in x])
    ax.set_xlabel("file size (KB)")
    ax.set_ylabel("goodput (kbit/s)")
    plots.set_title(ax, "Goodput vs file size")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=6)
    return table + _figure(data, f"{study}-goodput-vs-file-size", fig)


def _cdfs(data: CampaignData, study: str) -> str:
    bulk = data.flows[data.flows["workload"].astype(str).str.match(_BULK.pattern)]
    out = []
    for direction in ("down", "up"):
        f = bulk[bulk["flows[*].direction"].astype(str) == direction]
        if f.empty:
            continue
        fig = figures.cdfs(f, CC, _levels(data, CC))
        fig.suptitle(f"CDFs of goodput, RTT and queuing time, {direction}link bulk flows", fontsize=10, wrap=True)
        out.append(_figure(data, f"{study}-cdfs-{direction}link", fig))
    return "".join(out)


def _one_flow_over_time(data: CampaignData, study: str) -> str:
    """cwnd and RTT over time of one downlink flow per algorithm (repetition 0, one bulk flow)."""
    fig_c, ax_c = plt.subplots(figsize=(8, 3.2), layout="constrained")
    fig_r, ax_r = plt.subplots(figsize=(8, 3.2), layout="constrained")
    for i, cc in enumerate(_levels(data, CC)):
        runs = _first_runs(data, **{"workload": "1 flow", CC: cc, "flows[*].direction": "down"})
        run = _run_tables(data, runs["run"].iloc[0]) if not runs.empty else None
        if run is None:
            continue
        s = run.series[run.series["flow"] == 0]
        ax_c.plot(s["t"], s["cwnd"], lw=0.8, color=f"C{i % 10}", label=cc)
        r = run.rtt[run.rtt["flow"] == 0]
        ax_r.plot(r["t"], r["rtt_ms"], lw=0.6, color=f"C{i % 10}", label=cc)
    for ax, label, title in ((ax_c, "cwnd (segments)", "cwnd"), (ax_r, "RTT (ms)", "RTT")):
        ax.set_xlabel("time (s)")
        ax.set_ylabel(label)
        plots.set_title(ax, f"{title} over time of one downlink flow per algorithm (repetition 0)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    return _figure(data, f"{study}-cwnd-over-time", fig_c) + _figure(data, f"{study}-rtt-over-time", fig_r)


def cellular(data: CampaignData, study: str) -> str:
    parts = [_cite(data, study), _cellular_table(data, study, "down"), _cellular_table(data, study, "up")]
    parts.append(_file_sizes(data, study))
    parts.append(_cdfs(data, study))
    if study == "hsdpa":
        parts.append(_one_flow_over_time(data, study))
    return "".join(parts)


# ---- lte ----


def _ranking(samples: dict[str, np.ndarray]) -> str:
    """'1. a, b · 2. c': dense ranks; algorithms the data cannot separate share a rank."""
    table = compare_candidates(samples, METRICS["goodput_bps"], 0.05)
    groups: dict[int, list[str]] = {}
    for _, r in table.iterrows():
        if np.isfinite(r["rank"]):
            groups.setdefault(int(r["rank"]), []).append(str(r["name"]))
    return " · ".join(f"{k}. {', '.join(v)}" for k, v in sorted(groups.items())) or "–"


def _place(reference: dict, profile: str) -> str:
    """The study's place a profile stands for, with the profile ("VAMK (lte-good)"); other profiles as they are."""
    place = reference.get("place_of_profile", {}).get(profile)
    return f"{place} ({profile})" if place else profile


def _lte_study_speed(reference: dict, direction: str, period: str, profile: str) -> float | None:
    """The study's average speed (Mbit/s) at the place `profile` stands for, or None."""
    place = reference.get("place_of_profile", {}).get(profile)
    speeds = reference.get(direction, {}).get(period)
    return None if place is None or speeds is None else speeds[reference["places"].index(place)]


def lte(data: CampaignData) -> str:
    runs = data.runs
    places, periods, ccs = _levels(data, "profile.name"), _levels(data, "profile.load"), _levels(data, CC)
    directions = _levels(data, "transfer")
    parts = [_cite(data, "lte")]
    published = _about(data, "lte").get("reference", {})
    rows = []
    for period in periods:
        row = [_e(period)]
        for d in directions:
            for place in places:
                sel = runs[
                    (runs["profile.load"].astype(str) == period)
                    & (runs["profile.name"].astype(str) == place)
                    & (runs["transfer"].astype(str) == d)
                ]
                speed = sel["goodput_bps"].mean() / 1e6
                study = _lte_study_speed(published, d, period, place)
                row.append(_num(speed, 2) if study is None else _vs(speed, study, 2))
        rows.append(row)
    header = ["period"] + [f"{_place(published, place)} {d} (Mbit/s)" for d in directions for place in places]
    parts.append(
        _table(
            "lte-speed-per-period-and-place",
            "Average speed per day period and place (mean over the five algorithms and the repetitions)",
            header,
            rows,
            "Speed: a transfer's goodput (bytes over its completion time). Each place of the study is the profile "
            "calibrated to it (VAMK: lte-good, Ahventie: lte-edge, Olympia: lte-poor, by their measured speeds); "
            "beside ccbench's value, the study's average over its five schemes at that place and period, and the "
            "difference (Δ = ccbench − study).",
        )
    )
    for d in directions:
        rows = []
        for cc in ccs:
            row = [_e(cc)]
            for place in places:
                sel = runs[
                    (runs[CC].astype(str) == cc)
                    & (runs["profile.name"].astype(str) == place)
                    & (runs["transfer"].astype(str) == d)
                ]
                row.append(_num(sel["goodput_bps"].mean() / 1e6, 2))
            rows.append(row)
        order = ["<b>order</b>"]
        for place in places:
            sel = runs[(runs["profile.name"].astype(str) == place) & (runs["transfer"].astype(str) == d)]
            samples = {cc: sel[sel[CC].astype(str) == cc]["goodput_bps"].to_numpy(float) for cc in ccs}
            order.append(_e(_ranking(samples)))
        rows.append(order)
        parts.append(
            _table(
                f"lte-speed-per-algorithm-{d}",
                f"Average speed per algorithm and place, {d}link (Mbit/s, over periods and repetitions)",
                ["algorithm", *(f"{_place(published, p)} (Mbit/s)" for p in places)],
                rows,
                "Order: dense ranks by mean speed; algorithms share a rank where the 95% Welch interval of their "
                "difference to the rank's leader is not beyond a 5% margin (the data cannot separate them).",
            )
        )
    parts.append(_rate_over_time(data, "lte", {"transfer": directions[0]}, ccs, 1.0, "goodput"))
    return "".join(parts)


def _rate_over_time(
    data: CampaignData, study: str, fixed: dict, ccs: list[str], window_s: float, what: str, suffix: str = ""
) -> str:
    """Goodput or throughput (`what`, as the study's tables report it) over
    time of repetition 0 of each algorithm at the first level of every other
    factor not in `fixed`; `suffix` ends the figure's name."""
    levels = {f: _levels(data, f)[0] for f in data.factors if f != CC}
    levels.update(fixed)
    series = {}
    for cc in ccs:
        runs = _first_runs(data, **levels, **{CC: cc})
        run = _run_tables(data, runs["run"].iloc[0]) if not runs.empty else None
        if run is not None:
            series[cc] = run.series
    where = ", ".join(f"{f} = {v}" for f, v in levels.items())
    fig = plots.runs_rate_over_time(series, window_s, f"{what.capitalize()} over time ({where}; repetition 0)", what)
    return _figure(data, f"{study}-{what}-over-time{suffix}", fig)


# ---- highspeed ----

#: What the highspeed tables show, and why rows can match.
HIGHSPEED_NOTE = (
    "Goodput: payload bytes delivered in order in the window (retransmissions not counted), repetition 0. "
    "On a queue of one BDP or more, Reno's halving after a loss still leaves a window of one BDP, which keeps the "
    "link busy, so every variant that keeps it busy gets the same goodput; the variants separate on a queue well "
    "below the BDP, such as the switch port's (the profiles' default)."
)


def _window_rates(run, windows: list[tuple[float, float]], flow: int) -> list[float]:
    return [float(run.window_throughput(a, b, "goodput").get(flow, math.nan)) / 1e6 for a, b in windows]


def _highspeed_row(run, pair: bool) -> tuple[list[float], float]:
    """Goodput (Mbit/s) in the study's windows, scaled with the run's duration,
    and the recovery ratio (nan for a pair)."""
    d = float(run.meta["scenario"]["duration"])
    if pair:  # flow 1: 0-100 s, flow 2: 25-100 s of 125 s
        a, b = d / 5, 4 * d / 5
        return _window_rates(run, [(0, a), (a, b)], 0) + _window_rates(run, [(a, b), (b, d)], 1), math.nan
    third = d / 3
    rates = _window_rates(run, [(0, third), (third, 2 * third), (2 * third, d)], 0)
    return rates, rates[2] / rates[0] if rates[0] > 0 else math.nan


def highspeed(data: CampaignData) -> str:
    """One table per part (one flow + UDP; TCP/TCP), queue and buffer level,
    the paths side by side; single flows and pairs are never in one list."""
    runs = data.runs[data.runs["rep"] == 0]
    paths, variants = _levels(data, "profile"), _levels(data, "experiment")
    others = [f for f in data.factors if f not in ("profile", "experiment", "part")]
    parts = [_cite(data, "highspeed")]
    for combo in _combinations(data, others):
        where = ", ".join(f"{f} = {v}" for f, v in combo.items())
        sel_combo = runs
        for f, v in combo.items():
            sel_combo = sel_combo[sel_combo[f].astype(str) == v]
        singles, pairs = [], []
        series_single: dict[str, dict] = {p: {} for p in paths}
        for v in variants:
            pair = "/" in v
            row = [_e(v)]
            for p in paths:
                sel = sel_combo[(sel_combo["experiment"].astype(str) == v) & (sel_combo["profile"].astype(str) == p)]
                run = _run_tables(data, sel["run"].iloc[0]) if not sel.empty else None
                if run is None:
                    row += ["–"] * 4
                    continue
                rates, ratio = _highspeed_row(run, pair)
                row += [_num(x) for x in rates] + ([] if pair else [_num(ratio, 2)])
                if not pair:
                    series_single[p][v] = run.series
            if all(c == "–" for c in row[1:]):
                continue
            (pairs if pair else singles).append(row)
        ident = "-".join(re.sub(r"[^a-z0-9]+", "", str(v).lower()) for v in combo.values())
        suffix = f"-{ident}" if ident else ""
        if singles:
            header = ["variant"] + [f"{p}: {h}" for p in paths for h in ("0-50 s", "50-100 s", "100-150 s", "recovery")]
            parts.append(
                _table(
                    f"highspeed-goodput-windows{suffix}",
                    f"One flow with UDP in the middle third: goodput per window (Mbit/s) and recovery ratio; {where}",
                    header,
                    singles,
                    "Windows are the thirds of the run (0-50, 50-100, 100-150 s of 150 s; scaled in --quick); "
                    "recovery ratio = goodput(100-150 s) / goodput(0-50 s). " + HIGHSPEED_NOTE,
                )
            )
        if pairs:
            header = ["pair (flow 1 / flow 2)"] + [
                f"{p}: {h}"
                for p in paths
                for h in ("flow 1, 0-25 s", "flow 1, 25-100 s", "flow 2, 25-100 s", "flow 2, 100-125 s")
            ]
            parts.append(
                _table(
                    f"highspeed-tcp-tcp{suffix}",
                    f"TCP/TCP: flow 1 runs 0-100 s, flow 2 runs 25-125 s, goodput (Mbit/s); {where}",
                    header,
                    pairs,
                    "Times scale with the run's duration (125 s in the full form). Pairs are not ranked against "
                    "single flows: the campaign's ranking compares the variants within each part.",
                )
            )
        for p in paths:
            if series_single[p]:
                fig = plots.runs_rate_over_time(
                    series_single[p], 1.0, f"Goodput over time, {p}, {where} (UDP in the middle third)", "goodput"
                )
                parts.append(_figure(data, f"highspeed-goodput-over-time-{p}{suffix}", fig))
    return "".join(parts)


def _combinations(data: CampaignData, factors: list[str]) -> list[dict]:
    """Every combination of the levels of `factors` that vary (name -> level
    text), in design order; a factor with one level is left out."""
    import itertools

    names = [f for f in factors if f in data.design["factors"] and len(_levels(data, f)) > 1]
    return [dict(zip(names, combo)) for combo in itertools.product(*(_levels(data, f) for f in names))]


# ---- wan ----


def _fills_early(run, rate_bps: float) -> bool:
    from ccbench.run_result import series_with_rates

    s = series_with_rates(run.series[run.series["flow"] == 0])
    d = float(run.meta["scenario"]["duration"])
    t = s["t"].to_numpy(float)
    per_s = pd.Series(s["goodput_bps"].to_numpy(float)).groupby(np.floor(t)).mean()
    early = per_s[per_s.index < EARLY_SHARE * d]
    return bool((early >= FILL_SHARE * rate_bps).any())


def _mean_std_or_identical(values: pd.Series) -> str:
    """'mean ± std', or, when every repetition gave the same number (a path
    with no randomness: the seeds change nothing), the number and how many
    identical runs it stands for, instead of a spread of 0."""
    if not len(values):
        return "–"
    if len(values) > 1 and values.nunique() == 1:
        return f'{_num(values.iloc[0])} <span class="pm">(identical in all {len(values)} runs: no randomness)</span>'
    return f'{_num(values.mean())} <span class="pm">± {_num(values.std())}</span>'


def wan(data: CampaignData) -> str:
    runs = data.runs
    paths, tuned, durations, ccs = (_levels(data, f) for f in ("profile.name", "profile.tuned", "duration", CC))
    parts = [_cite(data, "wan")]
    published = _about(data, "wan").get("reference", {})
    rows, fill_rows = [], []
    run_seconds: dict[str, float] = {}  # each duration level's actual run length (scaled in --quick)
    for p in paths:
        for t in tuned:
            for d in durations:
                row = [_e(p), "tuned" if t == "True" else "default", _e(d)]
                fill = [_e(p), "tuned" if t == "True" else "default", _e(d)]
                for cc in ccs:
                    sel = runs[
                        (runs["profile.name"].astype(str) == p)
                        & (runs["profile.tuned"].astype(str) == t)
                        & (runs["duration"].astype(str) == d)
                        & (runs[CC].astype(str) == cc)
                    ]
                    row.append(_mean_std_or_identical(sel["throughput_bps"] / 1e6))
                    flags = []
                    for key in sel["run"]:
                        run = _run_tables(data, key)
                        if run is not None:
                            flags.append(_fills_early(run, float(run.links["rate_bps"].iloc[0])))
                            run_seconds[d] = float(run.meta["scenario"]["duration"])
                    fill.append(f"{sum(flags)}/{len(flags)}" if flags else "–")
                if p == "wan-100ms" and t == "False" and d == "100s" and "text" in published:
                    row.append(_e(published["text"]))
                else:
                    row.append("–")
                rows.append(row)
                fill_rows.append(fill)
    parts.append(
        _table(
            "wan-mean-throughput",
            "Mean throughput per configuration (Mbit/s, mean ± std over repetitions)",
            ["path", "buffers", "duration", *(f"{cc} (Mbit/s)" for cc in ccs), "study"],
            rows,
            "Throughput: payload bytes sent (retransmissions included) over the run. The study published no number "
            "for these cells, only the statement shown for its reference condition.",
        )
    )
    parts.append(
        _table(
            "wan-fill-early",
            "Share of runs that fill the pipe early",
            ["path", "buffers", "duration", *ccs],
            fill_rows,
            f"A run fills the pipe early when its goodput averaged over 1 s reaches {FILL_SHARE:.0%} of the link "
            f"rate within the first {EARLY_SHARE:.0%} of the run: "
            + "; ".join(f"the first {EARLY_SHARE * t:g} s of the {t:g} s runs ({d})" for d, t in run_seconds.items())
            + ".",
        )
    )
    rows = []
    for p in paths:
        for cc in ccs:
            means = []
            for t in ("False", "True"):
                sel = runs[
                    (runs["profile.name"].astype(str) == p)
                    & (runs["profile.tuned"].astype(str) == t)
                    & (runs[CC].astype(str) == cc)
                ]
                means.append(sel["throughput_bps"].mean() / 1e6 if len(sel) else math.nan)
            rows.append([_e(p), _e(cc), _num(means[0]), _num(means[1]), _num(means[1] - means[0])])
    parts.append(
        _table(
            "wan-default-vs-tuned",
            "Default vs tuned buffers (Mbit/s, mean over durations and repetitions)",
            ["path", "algorithm", "default", "tuned (rmem/wmem max 46777216)", "tuned − default"],
            rows,
        )
    )
    parts.append(_rate_over_time(data, "wan", {}, ccs, 1.0, "throughput"))
    # The conditions the study is about: each path (jitter, 200 ms) with default and tuned buffers.
    for p in paths:
        for t in tuned:
            buffers = "tuned" if t == "True" else "default"
            fixed = {"profile.name": p, "profile.tuned": t}
            parts.append(_rate_over_time(data, "wan", fixed, ccs, 1.0, "throughput", f"-{p}-{buffers}"))
    levels = {f: _levels(data, f)[0] for f in data.factors if f != CC}
    for p in paths:
        for cc in ccs:
            sel = _first_runs(data, **{**levels, "profile.name": p}, **{CC: cc})
            run = _run_tables(data, sel["run"].iloc[0]) if not sel.empty else None
            if run is not None:
                title = f"cwnd and ssthresh of {cc}, {p} (repetition 0)"
                fig = plots.cwnd_over_time(run.series, run.flows, title=title)
                name = f"wan-cwnd-ssthresh-{cc.replace('+', 'plus')}"
                parts.append(_figure(data, name if p == paths[0] else f"{name}-{p}", fig))
    return "".join(parts)


BUILDERS = {
    "umts": lambda data: cellular(data, "umts"),
    "hsdpa": lambda data: cellular(data, "hsdpa"),
    "lte": lte,
    "highspeed": highspeed,
    "wan": wan,
}


def section(data: CampaignData) -> str:
    """The study's section of report.html ('' for a campaign that is not a study)."""
    study = data.design.get("study")
    if not study or data.runs.empty or study not in BUILDERS:
        return ""  # a study without a section of its own has the campaign report alone
    return f'<h2 id="study-{study}">The {_e(study)} study</h2>' + BUILDERS[study](data)
