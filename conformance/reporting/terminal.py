"""Text for a terminal: what an engine wrote must not drive it.

An engine's standard error and the messages of its answers reach the console report. A
terminal obeys escape sequences in them (clear the screen, set the window title, write
the clipboard), so every control character is shown as an escape such as ``\\x1b``.
"""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1 controls, and the bidirectional overrides
# that reorder what a line seems to say.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every control character written as a visible escape."""
    return _CONTROLS.sub(_escape, text)
