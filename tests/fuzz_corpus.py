"""Malformed and extreme scenario files, by category: the seeded corpus of the
input fuzz test (tests/test_fuzz_input.py) and of bench/fuzz_input.py.

Each case is (category, file bytes, extra files): the bytes are written to
`s.toml`, the extra files (traces) beside it. Every case must get exit 0 or
a clean exit 2 from `ccbench validate` and `ccbench run`.
"""

from __future__ import annotations

import random

BASE = """name = "fuzz"
duration = "1s"
[downlink]
rate = "5Mbit"
delay = "10ms"
[[flows]]
cc = "cubic"
"""

#: Fields of BASE (and of the keys a file may add) with the line that sets them.
FIELDS = {
    "duration": 'duration = "1s"',
    "rate": 'rate = "5Mbit"',
    "delay": 'delay = "10ms"',
    "cc": 'cc = "cubic"',
    "name": 'name = "fuzz"',
}

EXTREME_NUMBERS = [
    "0",
    "-1",
    "1e300",
    "1e18",
    "18446744073709551615",
    "9223372036854775807",
    "4294967296",
    "-0.0",
    "inf",
    "nan",
    "1e-300",
    '"99999h"',
    '"+5ms"',
    '"1e308s"',
    '"2^64"',
    '"0bit"',
    '"1e30Gbit"',
    '"-5ms"',
]
WRONG_TYPES = ["true", "[1, 2]", "{a = 1}", "1979-05-27T07:32:00Z", '""', "[]", "{}", '"cubic"', "3.5"]
STRINGS = [
    "[/]",
    "[bold]x[/bold]",
    "\\u001b]0;pwned\\u0007",
    "x" * 100_000,
    "é" * 5000,
    "\\u0000",
    "TAHOE",
    "Westwood+",
    "../../etc/passwd",
]
SYNTAX_ERRORS = [
    "duration = ",
    "[[flows]\n",
    "x = [1,\n",
    '"unterminated',
    "= 3",
    "a.b = 1\na = 2",
    "[downlink]\n[downlink]",
]
UNKNOWN_KEYS = ["colour = 3", "[downlink.extra]\nx = 1", "[[flows]]\ncc = 'reno'\nwindow = 4", "[record]\nplots = true"]
TRACES = [
    b"1\n",
    b"",
    b"1\n\n2\n",
    b"1\nroot:x:0:0:root:/root:/bin/bash\n",
    b"5\n3\n",
    b"1\n18446744073710\n",
    b"99999999999999999999\n",
    b"1\r\n2\r\n3\n",
    b"\xff\xfe\x00\x01",
    b"0\n0\n",
    b"1\n1000000000\n",
]
TRACE_PATHS = ["/dev/zero", "/proc/self/environ", "/etc/passwd", "a/" * 3000 + "x", "/", "missing.trace"]
NESTING = [
    "x = " + "[" * 3000 + "]" * 3000,
    "x = " + "{a = " * 2000 + "1" + "}" * 2000,
    "x" + ".a" * 5000 + " = 1",
    "[" + ".".join(["t"] * 5000) + "]",
]


def _replace(field: str, value: str) -> str:
    return BASE.replace(FIELDS[field], f"{FIELDS[field].split(' = ')[0]} = {value}")


def corpus(rng: random.Random, size: int) -> list[tuple[str, bytes, dict[str, bytes]]]:
    """`size` cases drawn with `rng` from every category in turn."""
    makers = [
        ("syntax", lambda: (BASE + rng.choice(SYNTAX_ERRORS)).encode(), {}),
        ("wrong type", lambda: _replace(rng.choice(list(FIELDS)), rng.choice(WRONG_TYPES)).encode(), {}),
        ("unknown key", lambda: (BASE + rng.choice(UNKNOWN_KEYS)).encode(), {}),
        (
            "extreme number",
            lambda: _replace(rng.choice(["duration", "rate", "delay"]), rng.choice(EXTREME_NUMBERS)).encode(),
            {},
        ),
        ("count", lambda: (BASE + f"count = {rng.choice([0, -1, 5000, 4294967295, 2**40])}\n").encode(), {}),
        ("string", lambda: _replace(rng.choice(["name", "cc"]), f'"{rng.choice(STRINGS)}"').encode(), {}),
        (
            "trace file",
            lambda: _replace("rate", '"5Mbit"\ntrace = "t.trace"').replace('rate = "5Mbit"\n', "").encode(),
            None,
        ),
        (
            "trace path",
            lambda: (
                _replace("rate", f'"5Mbit"\ntrace = "{rng.choice(TRACE_PATHS)}"')
                .replace('rate = "5Mbit"\n', "")
                .encode()
            ),
            {},
        ),
        ("nesting", lambda: (BASE + rng.choice(NESTING) + "\n").encode(), {}),
        (
            "bytes",
            lambda: (
                rng.choice([b"\xef\xbb\xbf", b"", b"\x00"])
                + BASE.encode()
                + rng.choice([b"\xe9", b"\x00", b"", b"\r\n"])
            ),
            {},
        ),
        (
            "outage and queue",
            lambda: (
                BASE.replace(
                    'delay = "10ms"',
                    'delay = "10ms"\n'
                    + rng.choice(
                        [
                            'outages = [{start = "0s", duration = "10s"}]',
                            "queue = { size = 1 }",
                            'queue = { size = "100B" }',
                            'queue = { size = "0.0001bdp" }',
                        ]
                    ),
                )
            ).encode(),
            {},
        ),
    ]
    cases = []
    for i in range(size):
        category, make, extra = makers[i % len(makers)]
        files = {"t.trace": rng.choice(TRACES)} if extra is None else extra
        cases.append((category, make(), files))
    return cases
