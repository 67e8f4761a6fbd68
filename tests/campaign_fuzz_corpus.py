"""Malformed, hostile and extreme campaign files, by category: the seeded
corpus of the campaign fuzz test (tests/test_fuzz_campaign.py) and of
bench/fuzz_campaign.py, as tests/fuzz_corpus.py is for scenario files.

Each case is (category, file bytes, extra files): the bytes are written to
`c.toml`, the extra files (`base.toml`, one reno flow of 0.2 s, and
sometimes others) beside it. Every case must get exit 0 or one clean
`error:` line with exit 2 from `ccbench campaign`, and a refusal writes
nothing.
"""

from __future__ import annotations

import json
import random

from ccbench.campaigns.spec import TOP_LEVEL_KEYS

BASE = b'duration = "0.2s"\n[downlink]\nrate = "2Mbit"\ndelay = "10ms"\n[[flows]]\ncc = "reno"\n'
FILES = {"base.toml": BASE}
GOOD = (
    'name = "fuzz"\nbase = "base.toml"\nrepetitions = 1\nseed = 1\nkeep_tables = "none"\n'
    '[factors]\n"flows[0].cc" = ["reno", "cubic"]\n'
)

TOP_KEYS = list(TOP_LEVEL_KEYS)
WRONG_VALUES = [
    "true",
    "false",
    "0",
    "-1",
    "1.5",
    "1e400",
    "-1e400",
    "nan",
    "inf",
    "1" + "0" * 400,
    "9223372036854775808",
    "18446744073709551616",
    '""',
    '"x"',
    '"umts"',
    '["umts"]',
    "[]",
    "{}",
    "[1, 2]",
    "[[1]]",
    "{ a = 1 }",
    "{ tables = 1 }",
    "{ levels = 1 }",
    "{ repetitions = 1e9 }",
    "{ repetitions = 1000000000 }",
    "1979-05-27T07:32:00Z",
    "07:32:00",
    '"\\u001b[31mred"',
    '"' + "x" * 5000 + '"',
    '"é" ',
    '[{ "flows[0].cc" = true }]',
]
FACTOR_PATHS = [
    '"flows[0].cc"',
    '"flows[*].cc"',
    '"flows[9].cc"',
    '"downlink.rate"',
    '"downlink.delay"',
    '"flows[0].tcp.init_cwnd"',
    '"duration"',
    '"name"',
    '"seed"',
    '"run"',
    '"rep"',
    '"flows[].cc"',
    '"flows[-1].cc"',
    '"flows[0]"',
    '"flows"',
    '"downlink"',
    '"a..b"',
    '""',
    '"\\u0000"',
    '"flows[99999999999999999999].cc"',
    '"x' + "y" * 3000 + '"',
    '"condition"',
]
LEVELS = [
    '["reno", "cubic"]',
    '["reno", "reno"]',
    "[1, true]",
    "[1, 1.0]",
    "[true, false]",
    "[1, 10]",
    '["1s", "2s"]',
    '["1e9s"]',
    '["99999h"]',
    "[0.001, 0.002]",
    "[[1]]",
    "[{}]",
    "[]",
    "[nan]",
    "[inf]",
    '["1Mbit", "1e30Gbit"]',
    "{}",
    '{ a = { duration = "0.1s" }, b = { duration = "0.3s" } }',
    "{ a = { flows = 5 } }",
    "{ a = 1 }",
    '{ a = { duration = "0.1s", name = "' + "n" * 2000 + '" } }',
]
RANDOM_TABLES = [
    "{ min = 1, max = 3 }",
    '{ min = 1, max = 3, unit = "ms" }',
    "{ min = 1, max = 3, unit = 5 }",
    "{ min = 1, max = 1" + "0" * 400 + " }",
    "{ min = 0.001, max = 0.002, step = 1e-320 }",
    "{ min = -1e308, max = 1e308 }",
    "{ min = 3, max = 1 }",
    "{ min = true, max = 2 }",
    '{ min = "1ms", max = "2ms" }',
    "{ min = 1 }",
    "{ min = 1, max = 2, step = -1 }",
    "{ min = 1, max = 2, extra = 1 }",
    "5",
    "[1, 2]",
    '{ min = 0, max = 0.01, unit = "s" }',
]
RANDOM_PATHS = ['"flows[0].access_delay"', '"flows[*].access_delay"', '"downlink.delay"', '"nope[0].x"', '"flows"']
BASES = [
    '"base.toml"',
    '"missing.toml"',
    '"/dev/zero"',
    '"/dev/null"',
    '"/etc/passwd"',
    '"."',
    '"../../../../etc/shadow"',
    '"' + "a" * 5000 + '.toml"',
    '"\\u0000"',
    '"latin1.toml"',
    '"deep.toml"',
    '"big.toml"',
    "5",
    "[]",
]
EXTRA_FILES = {
    "latin1.toml": 'name = "caf\xe9"\nduration = "0.2s"\n'.encode("latin-1"),
    "deep.toml": b"x = " + b"[" * 3000 + b"]" * 3000 + b"\n",
    "big.toml": BASE + b"# " + b"x" * (2 << 20) + b"\n",
}
NAMES = ['"\\u202e evil"', '"[bold]x[/bold]"', '"\\u001b]0;pwned\\u0007"', '"' + "é" * 3000 + '"']
SIZES = [
    ("repetitions = 1000000000", ""),
    ("repetitions = " + str(2**63), ""),
    ("repetitions = 3", ""),
    ("", "[quick]\nrepetitions = 1000000000\n"),
    ("", "[quick]\nrepetitions = 1e9\n"),
]


def _with(line: str, tail: str = "") -> str:
    """GOOD with `line` added (in place of GOOD's own line of the same key) and `tail` appended."""
    key = line.split(" = ", 1)[0]
    good = "".join(ln + "\n" for ln in GOOD.splitlines() if not ln.startswith(f"{key} = ")) if key else GOOD
    return good.replace("[factors]\n", line + "\n[factors]\n", 1) + tail


def _many_factors(rng: random.Random) -> str:
    count, levels = rng.choice([(10, 10), (40, 2), (1, 100_000), (3, 5), (20, 3)])
    lines = ['name = "big"', 'base = "base.toml"', "[factors]"]
    for i in range(count):
        lines.append(f'"flows[0].tcp.x{i}" = [' + ", ".join(str(j) for j in range(levels)) + "]")
    return "\n".join(lines) + "\n"


#: Second mutations, applied to most files after their category's: each makes the file differ from
#: the others of its category in values that are read (a seed, a name, a level), not only in bytes.
ALGORITHMS = ["cubic", "bbr", "vegas", "CUBIC", "nope", "", "westwood+", "reno"]


def _perturb(rng: random.Random, text: str) -> str:
    choice = rng.randrange(5)
    if choice == 0:
        return text.replace("seed = 1\n", f"seed = {rng.choice([0, rng.randrange(2**53), 2**53, -1])}\n", 1)
    if choice == 1:
        chars = "abcé€\\\"'[]{}.=#\t"
        name = "".join(rng.choice(chars) for _ in range(rng.randint(0, 40)))
        return text.replace('name = "fuzz"', f"name = {json.dumps(name)}", 1)
    if choice == 2:
        return text.replace('"cubic"', f'"{rng.choice(ALGORITHMS)}"', 1)
    if choice == 3:
        return text.replace('"0.2s"', f'"{rng.choice(["0.1s", "0.3s", "0s", "-1s", "1e9s"])}"', 1)
    return text + f"# {rng.random()}\n"


def corpus(rng: random.Random, size: int) -> list[tuple[str, bytes, dict[str, bytes]]]:
    """`size` cases drawn with `rng`, cycling through the categories so each is covered."""
    makers = [
        ("wrong type", lambda: _with(f"{rng.choice(TOP_KEYS)} = {rng.choice(WRONG_VALUES)}")),
        (
            "factors",
            lambda: (
                'base = "base.toml"\n[factors]\n'
                + "".join(f"{rng.choice(FACTOR_PATHS)} = {rng.choice(LEVELS)}\n" for _ in range(rng.randint(1, 3)))
            ),
        ),
        (
            "exclude",
            lambda: (
                GOOD
                + rng.choice(
                    [
                        '[[exclude]]\n"flows[0].cc" = "reno"\n',
                        '[[exclude]]\n"flows[0].cc" = true\n',
                        '[[exclude]]\n"flows[0].cc" = ["reno"]\n',
                        '[[exclude]]\nnope = "reno"\n',
                        "exclude = 5\n",
                        '[[exclude]]\n"flows[0].cc" = "reno"\n[[exclude]]\n"flows[0].cc" = "cubic"\n',
                    ]
                )
            ),
        ),
        ("random", lambda: GOOD + f"[random]\n{rng.choice(RANDOM_PATHS)} = {rng.choice(RANDOM_TABLES)}\n"),
        (
            "quick",
            lambda: (
                GOOD
                + "[quick]\n"
                + rng.choice(
                    [
                        "repetitions = 1\ntime_scale = 0.5\n",
                        "tables = 1\n",
                        "levels = 1\n",
                        'levels = { "flows[0].cc" = [true] }\n',
                        'levels = { "flows[0].cc" = ["bbr"] }\n',
                        'levels = { "flows[0].cc" = ["reno"] }\n',
                        "time_scale = 1e-320\n",
                        "time_scale = 2\n",
                        "scenario = 5\n",
                        'scenario = { duration = "0.1s" }\n',
                        "nope = 1\n",
                    ]
                )
            ),
        ),
        ("base path", lambda: GOOD.replace('base = "base.toml"', f"base = {rng.choice(BASES)}")),
        ("design size", lambda: _many_factors(rng) if rng.random() < 0.5 else _with(*rng.choice(SIZES))),
        (
            "analysis and study",
            lambda: _with(
                rng.choice(
                    [
                        'study = "umts"',
                        'study = "nope"',
                        "study = 5",
                        '[analysis]\ncompare = "flows[0].cc"\nobjective = "throughput"\nmargin = 0.1',
                        "[analysis]\nmargin = 2",
                        '[analysis]\nobjective = "fairness"',
                        "[analysis]\ncompare = 5",
                        '[analysis]\nnope = "x"',
                        'keep_tables = "all"',
                        'kept_tables = ["flows", "nope"]',
                        'common_seeds = ["flows[0].cc"]',
                        'common_seeds = "flows[0].cc"',
                    ]
                )
            ),
        ),
        (
            "encoding",
            lambda: rng.choice(
                [
                    GOOD.replace("fuzz", "caf\xe9").encode("latin-1"),
                    GOOD.encode("utf-16"),
                    b"\xef\xbb\xbf" + GOOD.encode(),
                    GOOD.encode().replace(b"fuzz", b"fu\x00zz"),
                    GOOD.encode() + b"\xff\xfe",
                ]
            ),
        ),
        (
            "nesting",
            lambda: (
                GOOD
                + rng.choice(
                    [
                        "x = " + "[" * 3000 + "]" * 3000 + "\n",
                        "y = " + "{ a = " * 500 + "1" + " }" * 500 + "\n",
                        "a" + ".a" * 20_000 + " = 1\n",
                        "[" + ".".join(["t"] * 5000) + "]\nx = 1\n",
                        "z = { " + "b." * 40 + "c = 1 }\n",
                    ]
                )
            ),
        ),
        (
            "syntax",
            lambda: rng.choice(
                [
                    GOOD[: rng.randint(1, len(GOOD) - 1)],
                    GOOD + "[factors]\n",
                    GOOD + "= 5\n",
                    GOOD.replace("=", "==", 1),
                    "[[factors]]\n" + GOOD,
                    GOOD + '"unterminated = 1\n',
                ]
            ),
        ),
        ("size", lambda: GOOD + ("# " + "x" * 98 + "\n") * rng.choice([100, 12_000, 30_000])),
        (
            "unicode",
            lambda: GOOD.replace('"fuzz"', rng.choice(NAMES)),
        ),
    ]
    cases = []
    for i in range(size):
        category, make = makers[i % len(makers)]
        data = make()
        if isinstance(data, str) and rng.random() < 0.8:
            data = _perturb(rng, data)
        files = {**FILES, **EXTRA_FILES} if category == "base path" else FILES
        cases.append((category, data.encode("utf-8") if isinstance(data, str) else data, files))
    return cases
