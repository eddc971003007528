"""Colour on a terminal: ANSI styles, honouring ``NO_COLOR`` and ``FORCE_COLOR``."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO, Final

CODES: Final = {"red": "31", "green": "32", "yellow": "33", "bold": "1"}


def colour_wanted(stream: IO[str], environ: Mapping[str, str] | None = None) -> bool:
    """Whether to colour ``stream``: never with ``NO_COLOR`` set (no-color.org), always
    with ``FORCE_COLOR`` set (force-color.org), else when it is a terminal that is not
    ``TERM=dumb``. An empty variable counts as unset; ``NO_COLOR`` wins, as in pytest."""
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR"):
        return True
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        return False
    return tty and env.get("TERM") != "dumb"


@dataclass(frozen=True)
class Style:
    """Paints text when ``enabled``; otherwise returns it unchanged."""

    enabled: bool = False

    @classmethod
    def for_stream(cls, stream: IO[str]) -> Style:
        return cls(colour_wanted(stream))

    def paint(self, text: str, *styles: str) -> str:
        if not self.enabled or not styles or not text:
            return text
        codes = ";".join(CODES[s] for s in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"


__all__ = ["Style", "colour_wanted"]
