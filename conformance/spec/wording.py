"""Words shared by every layer's messages."""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None, *, grouped: bool = False) -> str:
    """``1 case``, ``2 cases``; ``many`` for an irregular plural; ``grouped``: the count with
    thousands separators (``1,200 games``)."""
    number = f"{count:,}" if grouped else str(count)
    return f"{number} {word if count == 1 else many or word + 's'}"


__all__ = ["plural"]
