"""Words shared by every layer's messages."""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 case``, ``2 cases``; ``many`` for an irregular plural."""
    return f"{count} {word if count == 1 else many or word + 's'}"


__all__ = ["plural"]
