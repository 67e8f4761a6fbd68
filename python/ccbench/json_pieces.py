"""JSON text with parts handled whole: a trace's opportunities (hundreds of
thousands of numbers) are encoded once and spliced into every text that holds
them, and found again as text in what the core writes back, instead of being
encoded and decoded number by number each time (a campaign passes each run's
scenario to the core and back several times)."""

from __future__ import annotations

import re
import secrets
from typing import Any

#: A stand-in as json.dumps writes it: a Pieces' marker (8 random bytes in
#: hex) and a part's number. One compiled pattern serves every Pieces (a
#: pattern with the marker in it was compiled anew for each: 0.4 ms a text).
STAND_IN = re.compile(r'"([0-9a-f]{16}):(\d+)"')


class Pieces:
    """Stand-ins for parts of a value: put `stand_in(part)` where the part
    goes; after json.dumps, `splice` puts each part (a JSON text) in place of
    its stand-in; after json.loads, `restore` gives the part a stand-in stands for."""

    def __init__(self) -> None:
        # Random, so no string of the value itself can look like a stand-in.
        self.marker = secrets.token_hex(8)
        self.parts: list[Any] = []

    def stand_in(self, part: Any) -> str:
        self.parts.append(part)
        return f"{self.marker}:{len(self.parts) - 1}"

    def splice(self, encoded: str) -> str:
        """`encoded` (JSON holding stand-ins as strings) with each part's text in its stand-in's place."""
        if not self.parts:
            return encoded
        return STAND_IN.sub(lambda m: self.parts[int(m.group(2))] if m.group(1) == self.marker else m.group(0), encoded)

    def restore(self, value: Any) -> Any:
        """The part `value` stands in for, or `value` itself when it is no stand-in."""
        if isinstance(value, str) and value.startswith(f"{self.marker}:"):
            return self.parts[int(value[len(self.marker) + 1 :])]
        return value
