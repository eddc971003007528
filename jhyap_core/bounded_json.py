"""JSON decoding with a bound on nesting, shared by the protocol server and the harness.

Python's decoder recurses once per level and fails with RecursionError near 1,000 levels;
and anything that later walks a deep value recursively fails the same way. No protocol
message needs more than a few levels, so deeper input is refused as a ValueError.
"""

from __future__ import annotations

import json
from typing import Any, Final

MAX_DEPTH: Final = 64


class JsonTooDeep(ValueError):
    """JSON text nested deeper than the bound."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"nested deeper than {limit} levels")


def depth_exceeds(value: Any, limit: int = MAX_DEPTH) -> bool:
    """``value`` (as ``json.loads`` makes it: plain dicts and lists) has arrays or objects
    nested more than ``limit`` levels. Walked a level at a time, without recursion."""
    level = [value] if value.__class__ is dict or value.__class__ is list else []
    depth = 1
    while level:
        if depth > limit:
            return True
        below = []
        for node in level:
            for child in node.values() if node.__class__ is dict else node:
                if child.__class__ is dict or child.__class__ is list:
                    below.append(child)
        level = below
        depth += 1
    return False


def loads(text: str | bytes, limit: int = MAX_DEPTH) -> Any:
    """``json.loads`` that raises JsonTooDeep (a ValueError) beyond ``limit`` levels."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise JsonTooDeep(limit) from None
    # Counting brackets runs at C speed; only text with enough of them can be too deep.
    opened = (
        text.count(b"[") + text.count(b"{")
        if isinstance(text, bytes)
        else text.count("[") + text.count("{")
    )
    if opened > limit and depth_exceeds(value, limit):
        raise JsonTooDeep(limit)
    return value
