"""Cards and their notation: rank ``A 2 3 4 5 6 7 8 9 T J Q K`` then suit ``c d h s``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from .errors import ErrorCode, JhyapError

RANKS = "A23456789TJQK"


class Suit(StrEnum):
    CLUBS = "c"
    DIAMONDS = "d"
    HEARTS = "h"
    SPADES = "s"


SUITS = tuple(Suit)
_SUIT_ORDER = {suit: i for i, suit in enumerate(SUITS)}


@dataclass(frozen=True, slots=True)
class Card:
    """One card; ``rank`` runs from 1 (ace) to 13 (king)."""

    rank: int
    suit: Suit

    @property
    def rank_symbol(self) -> str:
        return RANKS[self.rank - 1]

    @property
    def sort_key(self) -> int:
        """Canonical order: by rank, then clubs < diamonds < hearts < spades."""
        return self.rank * 4 + _SUIT_ORDER[self.suit]

    def __str__(self) -> str:
        return RANKS[self.rank - 1] + self.suit.value

    def __repr__(self) -> str:
        return f"Card({self})"


DECK: tuple[Card, ...] = tuple(Card(r, s) for r in range(1, 14) for s in SUITS)
_BY_NAME = {str(card): card for card in DECK}


def parse_card(text: object) -> Card:
    """The card named ``text`` (e.g. ``Td``), or a JhyapError with code invalid_card."""
    if isinstance(text, str):
        card = _BY_NAME.get(text)
        if card is not None:
            return card
    raise JhyapError(
        f"{text!r} is not a card: write rank (A 2-9 T J Q K) then suit (c d h s), e.g. Td",
        ErrorCode.INVALID_CARD,
    )


def parse_cards(items: object) -> list[Card]:
    if not isinstance(items, list):
        raise JhyapError("cards must be a list of card names", ErrorCode.BAD_REQUEST)
    return [parse_card(item) for item in items]


def sorted_cards(cards: Iterable[Card]) -> list[Card]:
    return sorted(cards, key=lambda c: c.sort_key)


def names(cards: Iterable[Card]) -> list[str]:
    return [str(c) for c in cards]
