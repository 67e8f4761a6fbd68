"""The TOML snippets of the README and the documentation are real: every one
is valid TOML, and each one presented as scenario or campaign text validates
(fragments are completed with the fields they leave out)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import tomllib
from ccbench.inputs import TomlText
from ccbench.scenario import load

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("**/*.md"))]
BASE = 'duration = "5s"\n[[flows]]\ncc = "cubic"\n'


def toml_blocks(path: Path | None = None) -> list[str]:
    """The ```toml blocks of one file, or of every file (the README first)."""
    paths = [path] if path else DOCUMENTS
    return [b for p in paths for b in re.findall(r"^```toml\n(.*?)^```", p.read_text(encoding="utf-8"), re.S | re.M)]


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_toml_block_is_toml(path):
    for block in toml_blocks(path):
        tomllib.loads(block)


def test_the_scenario_example_validates():
    block = next(b for b in toml_blocks() if 'cc = "vegas"' in b and "cc_params" in b)
    scenario = load(TomlText(block))
    assert [f["cc"] for f in scenario["flows"]] == ["cubic", "vegas"]


def test_the_link_example_validates():
    block = next(b for b in toml_blocks() if "arq = " in b)
    text = block.replace("[downlink]\n", '[downlink]\nrate = "10Mbit"\n', 1)
    # 30 s: the example's outage starts at 10 s (an outage after the run's end is refused).
    scenario = load(TomlText(BASE.replace('"5s"', '"30s"') + text))
    assert scenario["downlink"]["arq"]["max_retries"] == 3


def test_the_traffic_and_pcap_examples_validate():
    traffic = next(b for b in toml_blocks() if "[[udp]]" in b and "[background]" in b)
    pcap = next(b for b in toml_blocks() if "[record.pcap]" in b)
    link = '[downlink]\nrate = "1Gbit"\ndelay = "10ms"\n'
    s = load(TomlText('duration = "120s"\n' + link + '[[flows]]\ncc = "cubic"\n' + traffic))
    assert s["udp"][0]["rate"] == 200_000_000 and s["udp"][0]["start"] == 50
    assert s["background"]["load"] == 0.3 and s["background"]["cc"] == "cubic"
    assert s["background"]["profile"] == [[0.0, 0.5], [60.0, 1.5]]
    s = load(TomlText(BASE + link + pcap))
    assert s["record"]["pcap"]["path"] == "run.pcap" and s["record"]["pcap"]["snaplen"] == 128


def test_the_routes_example_validates():
    block = next(b for b in toml_blocks() if "ack_route" in b)
    scenario = load(TomlText(block))
    assert [link["name"] for link in scenario["links"]] == ["hop1", "hop2", "back"]
    assert scenario["flows"][0]["route"] == ["hop1", "hop2"]
    assert scenario["udp"][0]["route"] == ["hop1"]


def test_the_campaign_example_plans_every_combination_but_the_excluded(tmp_path):
    from ccbench.campaigns import spec

    block = next(b for b in toml_blocks() if "[factors]" in b and "[[exclude]]" in b)
    (tmp_path / "path.toml").write_text(BASE)
    (tmp_path / "c.toml").write_text(block)
    c = spec.parse(tmp_path / "c.toml")
    assert c.repetitions == 5 and len(c.runs) == (2 * 2 * 2 - 2) * 5
    assert not any(r.levels["profile"] == "umts" and r.levels["downlink.rate"] == "100Mbit" for r in c.runs)
    assert {r.scenario["downlink"]["rate"] for r in c.runs} == {10_000_000, 100_000_000}


def test_the_record_example_validates_with_the_defaults_it_names():
    block = next(b for b in toml_blocks() if b.startswith("[record]\n"))
    scenario = load(TomlText(BASE + '[downlink]\nrate = "10Mbit"\n' + block))
    defaults = load(TomlText(BASE + '[downlink]\nrate = "10Mbit"\n'))
    assert scenario["record"] == defaults["record"]
    assert scenario["record"]["rtt_samples"] == 10_000
