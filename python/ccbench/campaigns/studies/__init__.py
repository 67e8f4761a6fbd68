"""The shipped studies: each is one campaign file in this folder, NAME.toml,
whose `[about]` table says what the study measured, on what network, the
paper (authors, title, venue, year), the Linux release its flows run, what
`--quick` and `--full` run, and (`[about.reference]`) the study's own
published numbers that the report shows beside ccbench's. A new study is a
new file here; its report section (campaigns/study_report.py) is optional.
`ccbench studies` prints this; `ccbench study NAME` runs NAME.toml."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomllib

FOLDER = Path(__file__).resolve().parent
#: The `[about]` fields every shipped study gives, as text (campaigns/spec.py checks them in any
#: campaign file that has an `[about]` table).
ABOUT_FIELDS = ("title", "paper", "setting", "kernel", "measured", "network", "quick", "full")


@dataclass(frozen=True)
class Study:
    """A shipped study: `paper` is the exact citation (authors, title, venue,
    year), `setting` where and how it measured, `kernel` the Linux release
    its flows run (tcp.kernel, as the study's stack), `reference` the study's
    own numbers (empty when it gave none)."""

    name: str
    title: str
    paper: str
    setting: str
    kernel: str
    measured: str
    network: str
    quick: str
    full: str
    reference: dict[str, Any] = field(default_factory=dict)

    @property
    def source(self) -> str:
        """The citation and the setting, as one sentence."""
        return f"{self.paper}; {self.setting}"

    @property
    def path(self) -> Path:
        return FOLDER / f"{self.name}.toml"

    def text(self) -> str:
        return self.path.read_text(encoding="utf-8")


def _read(path: Path) -> Study:
    about = tomllib.loads(path.read_text(encoding="utf-8"))["about"]
    return Study(path.stem, *(about[k] for k in ABOUT_FIELDS), reference=about.get("reference", {}))


#: The shipped studies, by name.
STUDIES: dict[str, Study] = {p.stem: _read(p) for p in sorted(FOLDER.glob("*.toml"))}
