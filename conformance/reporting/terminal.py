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


_LINE_BREAKS = re.compile("[\n\u0085\u2028\u2029]")


def one_line(text: str) -> str:
    """``text`` as a part of one report line: every control character visible, and line
    breaks too (``\\n``), so that what an engine wrote can never start a line of its own
    (a forged ``== 145 passed ==`` summary). Colour codes it wrote are shown escaped too:
    only jhyap's own, added after, colour a report."""
    return _LINE_BREAKS.sub(_escape_break, visible(text))


def _escape_break(match: re.Match[str]) -> str:
    return "\\n" if match.group() == "\n" else _escape(match)


# The colours Style paints with (a foreground colour and bold, or the reset): they can
# only colour text, not move the cursor, clear the screen or write the title/clipboard.
_OWN_STYLE = re.compile("\x1b\\[(?:3[123](?:;1)?|1|0)m")


def visible_styled(text: str) -> str:
    """``text`` with every control character made visible except the colour codes of
    :class:`~conformance.reporting.style.Style`: a report line both painted by jhyap
    and quoting what an engine wrote."""
    kept = _OWN_STYLE.split(text)
    codes = _OWN_STYLE.findall(text)
    out = [visible(kept[0])]
    for code, part in zip(codes, kept[1:], strict=True):
        out += [code, visible(part)]
    return "".join(out)
