"""Words shared by every layer's messages."""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None, *, grouped: bool = False) -> str:
    """``1 case``, ``2 cases``; ``many`` for an irregular plural; ``grouped``: the count with
    thousands separators (``1,200 games``)."""
    number = f"{count:,}" if grouped else str(count)
    return f"{number} {word if count == 1 else many or word + 's'}"


def headed(heading: str, problems: str) -> str:
    """``heading: problem`` on one line when there is one problem, else the heading and
    each problem on a line of its own (a command's failure reads as one line)."""
    lines = problems.strip("\n")
    return f"{heading}:\n{lines}" if "\n" in lines else f"{heading}: {lines}"


def number_text(value: object, digits: int = 30) -> str:
    """A number as a message shows it: whole, unless it has more than ``digits`` digits
    (a profile may hold 10**400), then by its size, so the message stays one short line."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 3 * digits:
        shown = str(abs(value)) if value.bit_length() < 14_000 else None
        if shown is None or len(shown) > digits:
            size = f"{len(shown):,} digits" if shown is not None else f"{value.bit_length():,} bits"
            return f"{'-' if value < 0 else ''}a number of {size}"
    return str(value)


__all__ = ["headed", "number_text", "plural"]
