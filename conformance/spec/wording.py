"""Words shared by every layer's messages."""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 case``, ``2 cases``; ``many`` for an irregular plural."""
    return f"{count} {word if count == 1 else many or word + 's'}"


def headed(heading: str, problems: str) -> str:
    """``heading: problem`` on one line when there is one problem, else the heading and
    each problem on a line of its own (a command's failure reads as one line)."""
    lines = problems.strip("\n")
    return f"{heading}:\n{lines}" if "\n" in lines else f"{heading}: {lines}"


__all__ = ["headed", "plural"]
