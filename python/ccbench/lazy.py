"""Module attributes imported on first use (PEP 562), so importing a package
does not import what only some of its names need (NumPy, pandas, pyarrow,
matplotlib, kernel mode)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable


def attributes(module: str, names: dict[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `module`, whose `names` (name -> the
    module defining it) are imported when first read, then kept."""

    def __getattr__(name: str):
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(names[name]), name)
        setattr(sys.modules[module], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[module])) | set(names))

    return __getattr__, __dir__
