"""JSON text with parts handled whole: a trace's opportunities (hundreds of
thousands of numbers) are encoded once and spliced into every text that holds
them, instead of being encoded number by number each time."""

from __future__ import annotations

import re
import secrets

#: A stand-in as json.dumps writes it: a Pieces' marker (8 random bytes in
#: hex) and a part's number. One compiled pattern serves every Pieces (a
#: pattern with the marker in it was compiled anew for each: 0.4 ms a text).
STAND_IN = re.compile(r'"([0-9a-f]{16}):(\d+)"')


class Pieces:
    """Stand-ins for parts of a value: put `stand_in(part)` where the part
    goes; after json.dumps, `splice` puts each part (a JSON text) in place of
    its stand-in."""

    def __init__(self) -> None:
        # Random, so no string of the value itself can look like a stand-in.
        self.marker = secrets.token_hex(8)
        self.parts: list[str] = []

    def stand_in(self, part: str) -> str:
        self.parts.append(part)
        return f"{self.marker}:{len(self.parts) - 1}"

    def splice(self, encoded: str) -> str:
        """`encoded` (JSON holding stand-ins as strings) with each part's text in its stand-in's place."""
        if not self.parts:
            return encoded
        return STAND_IN.sub(lambda m: self.parts[int(m.group(2))] if m.group(1) == self.marker else m.group(0), encoded)
