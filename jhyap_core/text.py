"""Messages that repeat a value keep it short: a long run of letters or digits is clipped.

A 5,000-digit number or a 5,000-letter command name, echoed whole in an error, drowns the
message; :func:`clip_words` keeps the first characters of each run of more than ``limit``
word characters and says how long it was. Paths and sentences are runs of short words,
so they are left as they are.
"""

from __future__ import annotations

import re
from typing import Final

WORD_LIMIT: Final = 80


def clip_words(text: str, limit: int = WORD_LIMIT) -> str:
    """``text`` with every run of more than ``limit`` word characters clipped."""

    def clip(found: re.Match[str]) -> str:
        run = found.group(0)
        return f"{run[: limit - 1]}… ({len(run)} characters)"

    return re.sub(rf"\w{{{limit + 1},}}", clip, text)
