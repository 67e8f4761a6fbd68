"""The studies' own published numbers for their reference conditions (the
calibration rows), shown beside ccbench's in the study reports. Copied from
the studies as data; nothing in ccbench is fitted to them here.

UMTS (study S1, De Cicco and Mascolo): NewReno, one flow, 100 s connections,
means over the campaign; utilization relative to the nominal 384/64 kbit/s.
LTE (study S3, Vaasa thesis): the average over all five schemes per place
(Ahventie, Olympia, VAMK) and day period, Mbit/s. WAN (study S5): with 100 ms
RTT, no jitter and default buffers all three algorithms reach close to the
100 Mbit/s capacity within a 100 s run (no number given).
"""

from __future__ import annotations

#: UMTS, NewReno, one flow: metric -> value, per direction.
UMTS_NEWRENO_ONE_FLOW = {
    "down": {
        "goodput_kbps": 122.03,
        "goodput_std_kbps": 65.38,
        "utilization_pct": 31.8,
        "rtt_mean_ms": 1550.0,
        "rtt_std_ms": 1096.0,
        "queuing_mean_ms": 1248.0,
        "timeouts_per_100s": 5.84,
        "retrans_pct": 7.13,
        "retrans_std_pct": 4.89,
    },
    "up": {
        "goodput_kbps": 56.44,
        "goodput_std_kbps": 2.09,
        "utilization_pct": 88.2,
        "rtt_mean_ms": 1471.0,
        "rtt_std_ms": 113.2,
        "queuing_mean_ms": 927.0,
        "timeouts_per_100s": 0.15,
        "retrans_pct": 0.04,
        "retrans_std_pct": 0.12,
    },
}

LTE_PLACES = ("Ahventie", "Olympia", "VAMK")
#: The profile calibrated to each place (by its measured speeds: VAMK fastest, Olympia slowest), as the
#: lte-* profiles' sources state.
LTE_PLACE_OF_PROFILE = {"lte-good": "VAMK", "lte-edge": "Ahventie", "lte-poor": "Olympia"}
LTE_PERIODS = ("early-morning", "forenoon", "afternoon", "evening")
#: LTE, average over the five schemes: (direction, period) -> Mbit/s per place (LTE_PLACES order).
LTE_AVERAGE_MBPS = {
    ("down", "early-morning"): (23.28, 21.22, 25.46),
    ("down", "forenoon"): (22.19, 21.15, 25.81),
    ("down", "afternoon"): (22.15, 20.29, 25.09),
    ("down", "evening"): (22.14, 20.20, 24.62),
    ("up", "early-morning"): (4.02, 2.95, 6.35),
    ("up", "forenoon"): (3.25, 2.90, 6.11),
    ("up", "afternoon"): (3.28, 2.83, 5.95),
    ("up", "evening"): (3.44, 2.74, 5.77),
}

WAN_REFERENCE = (
    "the study: with 100 ms RTT, no jitter and default buffers, Reno, Cubic and Vegas all reach close to the "
    "100 Mbit/s capacity within a 100 s run"
)
