"""`ccbench recommend`: the campaign that answers "which congestion control
on my network, for my traffic, beside the traffic already there?".

NETWORK is a profile name, `trace:PATH` (Mahimahi), a scenario file (its
links, routes, queues and cross traffic; its flows are replaced) or
`capture:FILE.pcap` (the path `ccbench fit` estimates from a capture).

The campaign has two factors: the candidate (`flows[0].cc`) and the setting
(a named factor whose levels set the flows): the candidate alone, beside
the incumbent (`--compete`, default `--flows` flows of cubic), beside its own
kind, and the incumbent alone (run once, the baseline of harm). File and web
workloads run one setting per transfer size. harm.py turns the runs into
each candidate's own performance, its harm to the others and its fairness
to itself; answer.py words the answer.

What may be picked comes from each algorithm's role in the core's registry
(cc::Role): a scavenger only for background transfers, a datacenter
algorithm only where every queue of the path marks ECN, a historical one
never. Those are listed with the reason and not run.

Repetitions are added, not restarted: run seeds do not depend on the
number of repetitions, so raising it only runs the new ones.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ccbench.campaigns import analysis, runner, spec
from ccbench.campaigns.harm import ALONE, SELF, RecommendError
from ccbench.campaigns.storage import RUN_TABLES_READ

FIRST_REPS = 3
MAX_REPS = 12
WORKLOAD_KINDS = ("bulk", "file:SIZE[,SIZE...]", "web", "background")
OBJECTIVES = ("throughput", "latency", "completion", "balanced")
#: Linux's default since 2.6.19: the traffic a new algorithm shares a path with.
INCUMBENT = "cubic"

#: Web transfers: the body of SURGE's web file-size model, lognormal with
#: mu = 9.357, sigma = 1.318 (bytes; Barford and Crovella, "Generating
#: Representative Web Workloads for Network and Server Performance
#: Evaluation", SIGMETRICS 1998, its table of model parameters). Its Pareto
#: tail above 133 kB (alpha 1.1) is left out: with alpha near 1 its mean
#: converges too slowly for runs of seconds (assumed; it moves the mean
#: completion time up). The sizes are the medians of five equally likely
#: strata (quantiles 0.1, 0.3, ..., 0.9), so their plain mean estimates
#: the mean over the distribution.
WEB_LOGNORMAL = (9.357, 1.318)
WEB_QUANTILES = (0.1, 0.3, 0.5, 0.7, 0.9)
#: A sized transfer starts after this share of the run, so the others
#: sharing the path have left slow start (assumed; with the default 20 s,
#: 5 s: several slow starts on any shipped profile).
SIZED_START_SHARE = 0.25


@dataclass(frozen=True)
class Workload:
    """`kind`: bulk, file, web or background; `sizes`: the transfer sizes (file, web)."""

    kind: str
    sizes: tuple = ()

    @property
    def sized(self) -> bool:
        return bool(self.sizes)

    @property
    def foreground(self) -> bool:
        return self.kind != "background"


def web_sizes() -> tuple[int, ...]:
    from statistics import NormalDist

    mu, sigma = WEB_LOGNORMAL
    return tuple(round(math.exp(mu + sigma * NormalDist().inv_cdf(q))) for q in WEB_QUANTILES)


def parse_workload(text: str) -> Workload:
    if text in ("bulk", "background", "web"):
        return Workload(text, web_sizes() if text == "web" else ())
    m = re.fullmatch(r"file:(.+)", text)
    sizes = tuple(s.strip() for s in m.group(1).split(",")) if m else ()
    if not sizes or not all(sizes):
        raise RecommendError(
            "--workload", f"'{text}' is not allowed; one of {', '.join(WORKLOAD_KINDS)} (e.g. file:2MB,20MB)"
        )
    return Workload("file", sizes)


def parse_compete(text: str | None, flows: int) -> tuple[str, int] | None:
    """--compete: ALG[:COUNT] (COUNT default: --flows) or none; default: the incumbent."""
    from ccbench.compare import algorithm_names

    if text is None:
        return INCUMBENT, flows
    if text == "none":
        return None
    name, _, count = text.partition(":")
    if name not in algorithm_names():
        raise RecommendError("--compete", f"'{text}' is not allowed; ALG[:COUNT] with ALG one of `ccbench algorithms`")
    if count and not (count.isdigit() and int(count) >= 1):
        raise RecommendError("--compete", f"'{text}': COUNT must be a whole number, at least 1")
    return name, int(count) if count else flows


def network_scenario(network: str) -> tuple[dict, str | None]:
    """(the campaign's base: {"scenario": ...} or {"base": FILE}, a scenario
    file's first flow (its route, which the candidates take; its TCP settings
    are not: the candidates run with today's Linux defaults) or None).
    RecommendError names NETWORK."""
    if network.startswith("capture:"):
        path = network[len("capture:") :]
        try:
            from ccbench.fit import fit_capture  # the fit command's module (issue 50); imported only here
        except ImportError:
            raise RecommendError(
                "NETWORK", f"'{network}': capture:FILE needs ccbench.fit (`ccbench fit`), not in this installation"
            ) from None
        try:
            scenario = fit_capture(path).scenario_dict()
        except Exception as e:  # the fit module's own error types are not known here: one line, exit 2
            raise RecommendError("NETWORK", f"'{network}': {e}") from None
        return {"scenario": {k: v for k, v in scenario.items() if k != "flows"}}, None
    p = Path(network)
    if network.endswith(".toml") or (p.exists() and not network.startswith("trace:")):
        from ccbench.scenario import ScenarioFileError, read

        try:
            raw, _ = read(p)
        except ScenarioFileError as e:
            raise RecommendError("NETWORK", f"'{network}': {e.detail if hasattr(e, 'detail') else e}") from None
        first = (raw.get("flows") or [None])[0]
        if raw.get("links") and not (first and first.get("route")):
            raise RecommendError("NETWORK", f"'{network}' has links but no flow whose route the candidates can take")
        return {"base": str(p.resolve())}, first
    if network.startswith("trace:"):  # absolute: the campaign file runs from anywhere
        return {"scenario": {"profile": "trace:" + str(Path(network[len("trace:") :]).resolve())}}, None
    return {"scenario": {"profile": network}}, None


def _flow(cc: str, count: int, direction: str, route_of: dict | None, size=None, start=None) -> dict:
    f = {"cc": cc, "count": count}
    if route_of and route_of.get("route"):
        f["route"], f["ack_route"] = route_of["route"], route_of.get("ack_route", [])
    else:
        f["direction"] = direction
    if size is not None:
        f["size"] = size
    if start is not None:
        f["start"] = start
    return f


def settings(
    workload: Workload,
    flows: int,
    direction: str,
    compete: tuple[str, int] | None,
    duration_s: float,
    route_of: dict | None,
) -> dict[str, dict]:
    """The `setting` factor's levels: name -> the scenario fields it sets (the flows)."""
    out = {}
    start = f"{duration_s * SIZED_START_SHARE:g}s" if workload.sized else None
    for size in workload.sizes or (None,):
        tag = f" ({size if isinstance(size, str) else f'{size}B'})" if size is not None else ""

        def user(count, size=size):
            return _flow("reno", count, direction, route_of, size, start)

        out[ALONE + tag] = {"flows": [user(flows)]}
        if compete:
            others = _flow(compete[0], compete[1], direction, route_of)
            out[f"vs {compete[0]}" + tag] = {"flows": [user(flows), others]}
        out[SELF + tag] = {"flows": [user(2 * flows)]}
    if compete:  # the baseline of harm: candidate = the incumbent (flows[0].cc sets it to itself)
        out[f"{compete[0]} alone"] = {"flows": [_flow(compete[0], compete[1], direction, route_of)]}
    return out


@dataclass(frozen=True)
class Candidates:
    """Who is run (`ranked`) and who is listed with the reason it is not (`not_ranked`: name -> why)."""

    ranked: list
    not_ranked: dict
    roles: dict


def candidates(workload: Workload, algorithms: list[str] | None, ecn: bool, incumbent: str | None) -> Candidates:
    """The algorithms to run: by their role (the core's registry) for this workload and path."""
    from ccbench import _ccsim

    infos = {a["name"]: a for a in _ccsim.algorithms()}
    names = list(algorithms or infos)
    ranked, skipped = [], {}
    for n in names:
        role, needs = infos[n]["role"], infos[n]["requires"]
        if role == "scavenger" and workload.foreground:
            skipped[n] = "scavenger: yields to other traffic by design; recommended only for --workload background"
        elif role == "historical":
            skipped[n] = "historical: superseded (see `ccbench algorithms`); never recommended"
        elif "ecn" in needs and not ecn:
            skipped[n] = "datacenter only: requires ECN marking at every queue; this path's queues do not mark"
        else:
            ranked.append(n)
    if incumbent and incumbent not in ranked:
        ranked.append(incumbent)  # what the answer is compared with (and the baseline of harm)
    return Candidates(ranked, skipped, {n: infos[n]["role"] for n in infos})


def route_marks_ecn(scenario: dict, direction: str) -> bool:
    """Whether every queue the user's data crosses marks ECN (normalized
    scenario): a drop-tail queue with `ecn_threshold`, or an AQM with `ecn`."""
    if scenario.get("links"):
        by_name = {link["name"]: link for link in scenario["links"]}
        route = scenario["flows"][0]["route"]
        queues = [by_name[n].get("queue") or {} for n in route]
    else:
        link = scenario.get("downlink" if direction == "down" else "uplink") or {}
        queues = [link.get("queue") or {}]
    return all(bool(q.get("ecn")) or q.get("ecn_threshold") is not None for q in queues)


def campaign_dict(
    network: str,
    direction: str = "down",
    flows: int = 1,
    workload: str = "bulk",
    reps: int = FIRST_REPS,
    duration: str = "20s",
    seed: int = 1,
    algorithms: list[str] | None = None,
    allow_large: bool = False,
    compete: str | None = None,
    objective: str | None = None,
) -> tuple[dict, Candidates]:
    """(the campaign, who is ranked and who is not and why). `allow_large`
    lifts the limits (ccbench.limits), as --allow-large."""
    from ccbench import _ccsim
    from ccbench.compare import algorithm_names

    if direction not in ("down", "up"):
        raise RecommendError("--direction", f"'{direction}' is not allowed; down or up")
    if flows < 1:
        raise RecommendError("--flows", f"{flows} is not allowed; at least 1")
    w = parse_workload(workload)
    if objective is not None and objective not in OBJECTIVES:
        raise RecommendError("--objective", f"'{objective}' is not allowed; one of {', '.join(OBJECTIVES)}")
    known = algorithm_names()
    for a in algorithms or []:
        if a not in known:
            raise RecommendError("--algorithms", f"unknown algorithm '{a}'; known: {', '.join(known)}")
    rival = parse_compete(compete, flows)
    try:
        duration_s = _ccsim.duration_seconds(duration)
    except ValueError as e:
        raise RecommendError("--duration", str(e)) from None
    base, first = network_scenario(network)
    levels = settings(w, flows, direction, rival, duration_s, first)
    probe = parse(_raw(base, levels, ["reno"], duration, seed, 1, allow_large, objective, w, rival, network))
    ecn = route_marks_ecn(probe.runs[0].scenario, direction)
    chosen = candidates(w, algorithms, ecn, rival[0] if rival else INCUMBENT)
    raw = _raw(base, levels, chosen.ranked, duration, seed, reps, allow_large, objective, w, rival, network)
    raw["name"] = f"recommend: {network}, {direction}link, {flows} flow(s), {workload}" + (
        f", beside {rival[1]} {rival[0]}" if rival else ""
    )
    return raw, chosen


def _raw(base, levels, algs, duration, seed, reps, allow_large, objective, w, rival, network) -> dict:
    obj = objective or ("completion" if w.sized else "throughput")
    scenario_levels = {k: {"duration": duration, **v} for k, v in levels.items()}
    large = {"allow_large": True} if allow_large else {}  # absent otherwise: earlier directories resume
    exclude = []
    if rival:  # the incumbent alone runs once: as the incumbent
        exclude = [{"setting": f"{rival[0]} alone", "flows[0].cc": a} for a in algs if a != rival[0]]
    return {
        **large,
        "name": f"recommend: {network}",
        "repetitions": reps,
        "seed": seed,
        **base,
        "common_seeds": ["flows[0].cc"],
        "keep_tables": "first",
        "kept_tables": list(RUN_TABLES_READ),
        "factors": {"setting": scenario_levels, "flows[0].cc": list(algs)},
        **({"exclude": exclude} if exclude else {}),
        "random": {"flows[*].access_delay": {"min": 0, "max": 2, "step": 0.1, "unit": "ms"}},
        # The report's own analysis per setting: goodput for a sized transfer is its size over its
        # completion time, the same order as completion time.
        "analysis": {
            "compare": "flows[0].cc",
            "objective": {"completion": "throughput"}.get(obj, obj),
            "margin": analysis.DEFAULT_MARGIN,
        },
    }


def parse(raw: dict) -> spec.Campaign:
    """The campaign checked; a scenario error is reported against the option that caused it."""
    try:
        return spec.parse(raw)
    except spec.CampaignFileError as e:
        for option, field in (("NETWORK", "profile"), ("--workload", "size"), ("--duration", "duration")):
            if field in e.path or field in e.detail.split(":")[0]:
                # The option's error, not the algorithm's the scenario was built with (the first).
                raise RecommendError(option, e.scenario_detail or e.detail) from None
        raise


def run_until_decided(
    raw: dict,
    out: Path,
    jobs: int | None = None,
    executor: str = "local",
    address: str | None = None,
    max_reps: int = MAX_REPS,
    on_round: Callable[[int], Callable] = lambda reps: lambda p: None,
    force: bool = False,
    options: dict | None = None,
) -> int:
    """Runs the campaign, adding repetitions while more would decide (at
    most `max_reps`); returns the repetitions reached. With `options`
    (answer_options), what decides is the answer's own comparison (the
    candidates alone, by the objective); without, the campaign's per-setting
    analysis. A directory of another campaign (other options) is refused
    unless `force`. The answer is saved, then the report is (re)built, the
    answer at its top."""
    parsed = parse(raw)  # errors named by option
    _, source, text, folder = spec.read(raw)  # the campaign's text stays the first round's
    reps = int(raw["repetitions"])
    first = True
    while True:
        _, _, reps = runner.run_until_decided(
            {**raw, "repetitions": reps},
            source,
            text,
            folder,
            out,
            jobs,
            executor,
            address,
            force=force and first,
            max_reps=max_reps if options is None else reps,
            on_round=on_round,
            preload=runner.REPORT_MODULES if first else (),
            parsed=parsed if first else None,
        )
        first = False
        if options is None or reps >= max_reps:
            break
        from ccbench.campaigns import answer

        c = answer.decision(Path(out), options)
        if c.pick is None or c.decided:
            break
        # As runner.run_until_decided: to the estimate, at least one more, at most the cap.
        reps = min(max_reps, max(reps + 1, c.reps_needed or max_reps))
    from ccbench.campaigns.report import build  # imported (preload) while the first round ran
    from ccbench.run_files import atomic_write_bytes

    if options is not None:
        from ccbench.campaigns import answer

        answer.save(out, answer.build(Path(out), options), options)
    build(out, jobs=jobs)
    atomic_write_bytes(Path(out) / CAMPAIGN_FILE, campaign_toml(raw).encode("utf-8"))
    return reps


def answer_options(
    network: str,
    workload: str,
    direction: str,
    flows: int,
    compete: str | None,
    objective: str | None,
    max_harm: float | None,
    chosen: Candidates,
    w: Workload,
) -> dict:
    """What answer.build needs besides the directory (saved with the answer)."""
    rival = parse_compete(compete, flows)
    return {
        "network": network,
        "workload": workload,
        "direction": direction,
        "flows": flows,
        "compete": {"cc": rival[0], "count": rival[1]} if rival else None,
        "objective": objective or ("completion" if w.sized else "throughput"),
        "margin": analysis.DEFAULT_MARGIN,
        "max_harm": max_harm,
        "not_ranked": chosen.not_ranked,
        "roles": chosen.roles,
    }


def check_directory(raw: dict, out: Path, force: bool) -> None:
    """Refuses, before anything runs, a directory that holds a recommendation
    with other options (storage.CampaignDirectoryError), unless `force`."""
    from ccbench.campaigns import storage

    if force or not (Path(out) / storage.INDEX).exists():
        return
    campaign = parse(raw)
    with storage.Index(out) as idx:
        meta = idx.meta()
    if not storage._same_campaign(meta, campaign, campaign.saved_text()):
        raise storage.CampaignDirectoryError(
            f"{out} holds a recommendation with other options ({meta.get('name', '?')}); use another --out, "
            "or --force to switch it to these options (the runs they share are kept)"
        )


#: The campaign as a file `ccbench campaign` runs, written into the directory.
CAMPAIGN_FILE = "recommend.toml"


def campaign_toml(raw: dict) -> str:
    """The campaign as TOML text (tomllib reads it back to `raw`): top-level
    keys as lines, every table inline. No TOML writer is a dependency, and
    a campaign holds only strings, numbers, booleans, lists and tables."""

    def value(v) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, str):
            return json.dumps(v)  # a JSON string is a TOML basic string
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{json.dumps(k)} = {value(x)}" for k, x in v.items()) + "}"
        raise TypeError(f"no TOML for {type(v).__name__}")

    head = "# ccbench recommend's campaign: ccbench campaign THIS_FILE runs it (docs/recommend.md).\n"
    return head + "".join(f"{json.dumps(k)} = {value(v)}\n" for k, v in raw.items())
