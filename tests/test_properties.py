"""Invariants over random small scenarios (hypothesis): no flow's goodput
exceeds the link's payload capacity, and a finished file transfer delivers
exactly its size."""

import ccbench
from ccbench import _ccsim
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ALGORITHMS = [a["name"] for a in _ccsim.algorithms()]


@st.composite
def scenarios(draw):
    rate_kbit = draw(st.integers(200, 20_000))
    flows = []
    for _ in range(draw(st.integers(1, 3))):
        flow = {
            "cc": draw(st.sampled_from(ALGORITHMS)),
            "start": f"{draw(st.integers(0, 500))}ms",
            "tcp": {"sack": draw(st.booleans())},
        }
        if draw(st.booleans()):
            flow["size"] = draw(st.integers(1, 300_000))
        flows.append(flow)
    delay_ms = draw(st.integers(1, 150))
    # A queue sized in BDPs must hold a packet: offered only where half a BDP (base RTT 2 x delay) is one.
    bdp_packets = rate_kbit * 1000 * 2 * delay_ms / 1000 / 8 / 1500
    queue = draw(st.sampled_from(["4pkt", "100pkt", "30KB"] + (["1bdp", "0.5bdp"] if bdp_packets >= 2 else [])))
    return {
        "duration": "4s",
        "seed": draw(st.integers(0, 2**32)),
        "downlink": {
            "rate": rate_kbit * 1000,
            "delay": f"{delay_ms}ms",
            "queue": {"size": queue},
            "loss": {"model": "bernoulli", "p": draw(st.sampled_from([0.0, 0.001, 0.01, 0.05]))},
        },
        "flows": flows,
    }


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_goodput_bounded_and_files_exact(scenario):
    r = ccbench.run(scenario)
    cap = r.links.set_index("link").loc["downlink", "capacity_bps"]
    f = r.flows
    # a flow's goodput over its active time cannot beat the link's payload capacity
    assert (f["goodput_bps"].fillna(0) <= cap * (1 + 1e-9)).all(), f
    done = f[f["completion_s"].notna()]
    assert (done["delivered_bytes"] == done["size_bytes"]).all()
    unfinished = f[f["size_bytes"].notna() & f["completion_s"].isna()]
    assert (unfinished["delivered_bytes"] < unfinished["size_bytes"]).all()
