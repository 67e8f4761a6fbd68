"""The answer of `ccbench recommend`, from its campaign directory: the pick
in words, the table (with 95% confidence intervals) and the same as JSON.

The pick is analysis.analyze_condition's over the candidate alone on the
path (the objective, ties within the margin broken on secondary metrics);
harm.py adds what each does to the incumbent and to its own kind. A
candidate whose harm exceeds `max_harm` is flagged, not hidden. When the
pick harms the incumbent more than the incumbent harms itself, the answer
also names the best candidate that does not.

JSON keys (stable; `ccbench recommend --json`, and recommend.json in the
directory): network, workload, direction, flows, compete ({cc, count} or
null), objective, margin, max_harm, repetitions, pick, answer, decided,
no_pick, incumbent_harm ({throughput, delay} intervals or null),
candidates (per candidate: name, role, rank, verdict, goodput_bps,
rtt_p95_ms, retrans_pct, completion_ms, power, harm_throughput, harm_delay,
jain_self, above_max_harm; an interval is {mean, low, high, n}),
not_ranked ([{name, role, reason}]), directory.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np

from ccbench.campaigns import analysis, harm
from ccbench.campaigns.harm import ALONE, SELF, RecommendError

FACTOR = "flows[0].cc"
#: Written into the campaign directory beside the report.
ANSWER_FILE = "recommend.json"
#: Harm above the incumbent's own by more than this is "large" in the words (an absolute share
#: of throughput; assumed: a tenth of the others' throughput is what an operator notices).
LARGE_HARM_GAP = 0.10

COMPLETION = analysis.Objective(
    "completion", "completion_ms", ("rtt_p95_ms", "retrans_pct"), "shortest mean completion time of the transfers"
)


def objective_of(name: str, sized: bool, margin: float = analysis.DEFAULT_MARGIN) -> analysis.Objective:
    """recommend's objectives: the campaign analysis' presets, except that
    latency keeps only candidates whose goodput is within the margin of the
    best (the campaign preset allows 80%): lower delay is not bought with
    goodput the user would notice."""
    if name == "completion":
        if not sized:
            raise RecommendError("--objective", "completion needs transfers of a size: --workload file:SIZE or web")
        return COMPLETION
    if name == "latency":
        return replace(
            analysis.OBJECTIVES["latency"],
            min_goodput_share=1 - margin,
            description=f"lowest p95 RTT among candidates within {margin:.0%} of the best goodput",
        )
    return analysis.OBJECTIVES[name]


def decision(directory: Path, options: dict) -> analysis.ConditionResult:
    """The comparison the pick comes from (the candidates alone, by the
    objective): whether more repetitions would decide it."""
    from ccbench.campaigns import storage

    runs = harm.per_run(storage.load(directory).flows, FACTOR)
    margin = options.get("margin", analysis.DEFAULT_MARGIN)
    obj = objective_of(options["objective"], bool(runs["completion_ms"].notna().any()), margin)
    own = analysis.with_power(harm.user_samples(runs, ALONE))
    return analysis.analyze_condition(own, "cc", obj, margin, "c0", {})


def build(directory: Path, options: dict) -> dict:
    """The whole answer (the JSON keys above) of the campaign in `directory`
    run with `options` (recommend's command options, as `answer_options` gives)."""
    from ccbench.campaigns import storage

    data = storage.load(directory)
    runs = harm.per_run(data.flows, FACTOR)
    sized = bool(runs["completion_ms"].notna().any())
    margin = options.get("margin", analysis.DEFAULT_MARGIN)
    obj = objective_of(options["objective"], sized, margin)
    own = analysis.with_power(harm.user_samples(runs, ALONE))
    c = analysis.analyze_condition(own, "cc", obj, margin, "c0", {})
    compete = options.get("compete")
    harms = harm.harms(runs, f"vs {compete['cc']}", f"{compete['cc']} alone") if compete else {}
    selfs = harm.user_samples(runs, SELF)
    roles = options.get("roles", {})
    max_harm = options.get("max_harm")
    rows = []
    for _, r in c.table.iterrows():
        name = str(r["name"])
        h = harms.get(name, {})
        jain = selfs.loc[selfs["cc"] == name, "jain"]
        ht = h.get("throughput")
        rows.append(
            {
                "name": name,
                "role": roles.get(name, "general"),
                "rank": None if not np.isfinite(r["rank"]) else int(r["rank"]),
                "verdict": str(r["verdict"]),
                **{m: _interval(r, m) for m in ("goodput_bps", "rtt_p95_ms", "retrans_pct", "completion_ms", "power")},
                "harm_throughput": ht,
                "harm_delay": h.get("delay"),
                "jain_self": harm.interval(jain, nonnegative=True, upper=1.0) if len(jain) else None,
                "above_max_harm": bool(max_harm is not None and ht and ht["mean"] > max_harm),
            }
        )
    incumbent = harms.get(compete["cc"]) if compete else None
    out = {
        "network": options["network"],
        "workload": options["workload"],
        "direction": options["direction"],
        "flows": options["flows"],
        "compete": compete,
        "objective": obj.name,
        "margin": margin,
        "max_harm": max_harm,
        "repetitions": c.reps,
        "pick": c.pick,
        "decided": c.decided,
        "no_pick": c.no_pick,
        "incumbent_harm": {"throughput": incumbent["throughput"], "delay": incumbent["delay"]} if incumbent else None,
        "candidates": rows,
        "not_ranked": [{"name": n, "role": roles.get(n, ""), "reason": r} for n, r in options["not_ranked"].items()],
        "directory": str(directory),
    }
    out["answer"] = words(out, c, obj, margin)
    return _finite(out)


def _interval(r, m: str) -> dict | None:
    if m not in r or not np.isfinite(r[m]):
        return None
    return {"mean": float(r[m]), "low": float(r[f"{m}_low"]), "high": float(r[f"{m}_high"]), "n": int(r["n"])}


def _finite(x):
    """NaN and infinities as null: JSON has neither."""
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_finite(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def _row(answer: dict, name: str | None) -> dict | None:
    return next((r for r in answer["candidates"] if r["name"] == name), None)


def _pct(a: float, b: float) -> float:
    return 100.0 * (a - b) / b if b else math.nan


def _versus(pick: dict, base: dict, obj: analysis.Objective, margin: float) -> str:
    """What the pick gains over the incumbent, in words: its objective and p95 delay."""
    parts = []
    g, bg = pick["goodput_bps"], base["goodput_bps"]
    if obj.name == "completion" and pick["completion_ms"] and base["completion_ms"]:
        d = _pct(pick["completion_ms"]["mean"], base["completion_ms"]["mean"])
        parts.append(f"{abs(d):.0f}% {'shorter' if d < 0 else 'longer'} mean completion time than {base['name']}")
    elif g and bg:
        d = _pct(g["mean"], bg["mean"])
        if abs(d) < 100 * margin:
            parts.append(f"the same goodput as {base['name']} (within {margin:.0%})")
        else:
            parts.append(f"{abs(d):.0f}% {'more' if d > 0 else 'less'} goodput than {base['name']}")
    p, bp = pick["rtt_p95_ms"], base["rtt_p95_ms"]
    if p and bp:
        diff = p["mean"] - bp["mean"]
        if abs(diff) <= max(margin * bp["mean"], analysis.METRICS["rtt_p95_ms"].floor):
            parts.append("the same p95 delay")
        else:
            parts.append(f"{abs(diff):.0f} ms {'lower' if diff < 0 else 'higher'} p95 delay ({p['mean']:.0f} ms)")
    return " with ".join(parts)


def words(answer: dict, c: analysis.ConditionResult, obj: analysis.Objective, margin: float) -> str:
    """The answer's first paragraph."""
    if c.pick is None:
        return f"No pick: {c.no_pick or 'no candidate has data'}."
    compete = answer["compete"]
    inc_name = compete["cc"] if compete else "cubic"
    pick, inc = _row(answer, c.pick), _row(answer, inc_name)
    text = f"On this path pick {c.pick}"
    if inc and c.pick != inc_name:
        text += ": " + _versus(pick, inc, obj, margin)
    elif c.pick == inc_name:
        text += f" (the incumbent): no other candidate does better on {analysis.METRICS[obj.metric].label}"
    text += f"; {c.pick_reason}." if c.pick_reason else "."
    base = answer["incumbent_harm"]
    h = pick.get("harm_throughput")
    finite = h and base and math.isfinite(h["mean"]) and math.isfinite(base["throughput"]["mean"])
    if compete and finite and c.pick != inc_name:
        b = base["throughput"]
        others = f"a competing {inc_name} flow's" if compete["count"] == 1 else f"{compete['count']} {inc_name} flows'"
        text += f" It takes {max(h['mean'], 0):.0%} of {others} throughput"
        if large_harm(h, b):
            text += f", much more than {inc_name} takes from itself: a large harm to {inc_name} traffic"
        elif h["mean"] > b["mean"] + margin:
            text += f", more than {inc_name} takes from itself"
        else:
            text += f", no more than {inc_name} takes from itself"
        text += f" (harm {h['mean']:.2f} vs {b['mean']:.2f})"
        d = pick.get("harm_delay")
        if d and d["mean"] is not None and math.isfinite(d["mean"]) and d["mean"] > margin:
            rise = d["mean"] / (1 - d["mean"]) if d["mean"] < 1 else math.inf  # (y - x) / x from (y - x) / y
            text += f" and raises the {inc_name} traffic's p95 delay by {rise:.0%}"
        text += "."
    if compete and base and math.isfinite(base["throughput"]["mean"]):
        b = base["throughput"]
        gentle = gentlest_alternative(answer, c, b["mean"] + margin)
        if gentle and gentle != c.pick and h and h["mean"] > b["mean"] + margin:
            text += f" If sharing with {inc_name} traffic matters, pick {gentle}."
        harsh = [
            f"{r['name']} (harm {r['harm_throughput']['mean']:.2f})"
            for r in answer["candidates"]
            if r["name"] != c.pick and r["harm_throughput"] and large_harm(r["harm_throughput"], b)
        ]
        if harsh:
            more = f" and {len(harsh) - 3} more" if len(harsh) > 3 else ""
            text += f" A large harm to {inc_name} traffic (more than {inc_name}'s {b['mean']:.2f}): "
            text += ", ".join(harsh[:3]) + more + "."
    if c.tied:
        names = ", ".join(c.tied) if len(c.tied) <= 3 else f"{', '.join(c.tied[:3])} and {len(c.tied) - 3} more"
        text += f" Statistically tied with it: {names}."
    if not c.decided:
        text += " " + analysis.confidence_text(c, margin)
    flagged = [r["name"] for r in answer["candidates"] if r["above_max_harm"]]
    if flagged:
        text += f" Above --max-harm {answer['max_harm']:g}: {', '.join(flagged)}."
    if answer["not_ranked"]:
        text += " Not ranked: " + ", ".join(f"{r['name']} ({r['role']})" for r in answer["not_ranked"]) + "."
    return text


def large_harm(h: dict, baseline: dict) -> bool:
    """Harm above the incumbent's own with 95% confidence, and by LARGE_HARM_GAP or more."""
    return h["low"] > baseline["mean"] and h["mean"] >= baseline["mean"] + LARGE_HARM_GAP


def gentlest_alternative(answer: dict, c: analysis.ConditionResult, bar: float) -> str | None:
    """The best-ranked candidate (table order) whose harm to the incumbent is within `bar`."""
    for r in answer["candidates"]:
        h = r["harm_throughput"]
        if r["rank"] is not None and h and h["mean"] <= bar:
            return r["name"]
    return None


def save(directory: Path, answer: dict, options: dict) -> None:
    from ccbench.run_files import atomic_write_bytes

    text = json.dumps({"options": options, "answer": answer}, indent=2, sort_keys=True)
    atomic_write_bytes(Path(directory) / ANSWER_FILE, text.encode("utf-8"))


def html_section(directory: Path) -> str | None:
    """The answer at the top of the campaign's report.html, rebuilt from the
    saved runs and the options saved in recommend.json (None for a campaign
    that is not a recommendation): `ccbench report DIR` rebuilds it too."""
    from html import escape

    path = Path(directory) / ANSWER_FILE
    if not path.exists():
        return None
    options = json.loads(path.read_text(encoding="utf-8"))["options"]
    a = build(Path(directory), options)

    def ci(v, scale=1.0, spec=".1f"):
        if not v or v["mean"] is None:
            return "–"
        if v["low"] is None:
            return f"{v['mean'] * scale:{spec}}"
        return f"{v['mean'] * scale:{spec}} [{v['low'] * scale:{spec}}, {v['high'] * scale:{spec}}]"

    heads = ["rank", "algorithm", "goodput Mbit/s", "p95 RTT ms", "retx %", "completion ms", "harm (throughput)"]
    heads += ["harm (delay)", "Jain (own kind)", "vs best"]
    rows = "".join(
        "<tr>"
        + "".join(
            f"<td>{escape(str(x))}</td>"
            for x in (
                r["rank"] or "–",
                r["name"] + (" (above --max-harm)" if r["above_max_harm"] else ""),
                ci(r["goodput_bps"], 1e-6, ".2f"),
                ci(r["rtt_p95_ms"], spec=".0f"),
                ci(r["retrans_pct"], spec=".2f"),
                ci(r["completion_ms"], spec=".0f"),
                ci(r["harm_throughput"], spec=".2f"),
                ci(r["harm_delay"], spec=".2f"),
                ci(r["jain_self"], spec=".2f"),
                r["verdict"],
            )
        )
        + "</tr>"
        for r in a["candidates"]
    )
    skipped = "".join(f"<li>{escape(r['name'])}: {escape(r['reason'])}</li>" for r in a["not_ranked"])
    return (
        f'<h2 id="answer">The answer</h2><p>{escape(a["answer"])}</p>'
        f"<table><thead><tr>{''.join(f'<th>{escape(h)}</th>' for h in heads)}</tr></thead>"
        f"<tbody>{rows}</tbody></table>"
        '<p class="note">95% confidence intervals [low, high] over the repetitions. Harm: Ware et al., HotNets '
        "2019, to the competing flows against their performance alone; its interval leaves out the spread of "
        "the flows alone.</p>" + (f"<p>Not ranked:</p><ul>{skipped}</ul>" if skipped else "")
    )
