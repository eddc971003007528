"""Cards and their notation: rank ``A 2 3 4 5 6 7 8 9 T J Q K`` then suit ``c d h s``; ``X``.

``X`` is a joker.

With several packs a card name can occur more than once; cards are values, so two
copies of ``Ah`` are equal and hands, offers and decks are multisets.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from operator import attrgetter

from .vocabulary import ErrorCode, JhyapError

RANKS = "A23456789TJQK"
JOKER_RANK = 0
JOKER_NAME = "X"


class Suit(StrEnum):
    CLUBS = "c"
    DIAMONDS = "d"
    HEARTS = "h"
    SPADES = "s"
    JOKER = "x"  # a joker's own "suit": it belongs to no suit of the pack


SUITS = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
_SUIT_ORDER = {suit: i for i, suit in enumerate(SUITS)}


@dataclass(frozen=True, slots=True)
class Card:
    """One card; ``rank`` runs from 1 (ace) to 13 (king); a joker has rank 0."""

    rank: int
    suit: Suit
    # Derived once, because cards are compared, hashed and named on every action.
    sort_key: int = field(init=False, compare=False, repr=False)
    name: str = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        # Canonical order: by rank, then clubs < diamonds < hearts < spades.
        # Jokers sort after every card of the pack.
        if self.rank == JOKER_RANK:
            object.__setattr__(self, "sort_key", 14 * 4)
            object.__setattr__(self, "name", JOKER_NAME)
            return
        object.__setattr__(self, "sort_key", self.rank * 4 + _SUIT_ORDER[self.suit])
        object.__setattr__(self, "name", RANKS[self.rank - 1] + self.suit.value)

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER_RANK

    @property
    def rank_symbol(self) -> str:
        return JOKER_NAME if self.is_joker else RANKS[self.rank - 1]

    def __hash__(self) -> int:
        return self.sort_key

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Card({self})"


DECK: tuple[Card, ...] = tuple(Card(r, s) for r in range(1, 14) for s in SUITS)
JOKER = Card(JOKER_RANK, Suit.JOKER)
_BY_NAME = {str(card): card for card in (*DECK, JOKER)}


def full_deck(
    packs: int = 1, jokers_per_pack: int = 0, ranks_left_out: Iterable[int] = ()
) -> tuple[Card, ...]:
    """Every card in play: ``packs`` packs, each the 52 cards less the ranks left out (1 ace
    to 13 king, all four suits), with ``jokers_per_pack`` jokers."""
    gone = frozenset(ranks_left_out)
    pack = tuple(c for c in DECK if c.rank not in gone) if gone else DECK
    return (pack + (JOKER,) * jokers_per_pack) * packs


def parse_card(text: object) -> Card:
    """The card named ``text`` (e.g. ``Td``), or a JhyapError with code invalid_card.

    >>> card = parse_card("Td")
    >>> card.rank, card.suit, card.name
    (10, <Suit.DIAMONDS: 'd'>, 'Td')
    >>> parse_card("X").is_joker
    True
    >>> parse_card("10d")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    jhyap_core.vocabulary.JhyapError: '10d' is not a card: write rank (A 2-9 T J Q K) ...
    """
    if isinstance(text, str):
        card = _BY_NAME.get(text)
        if card is not None:
            return card
    raise JhyapError(
        f"{text!r} is not a card: write rank (A 2-9 T J Q K) then suit (c d h s), e.g. Td,"
        " or X for a joker",
        ErrorCode.INVALID_CARD,
    )


def parse_cards(items: object) -> list[Card]:
    """The cards named in ``items``: bad_request unless a list of strings, then invalid_card."""
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise JhyapError("cards must be a list of card names", ErrorCode.BAD_REQUEST)
    return [parse_card(item) for item in items]


# A C-level key: cards are sorted for every state and event, the game's hottest path.
SORT_KEY: Callable[[Card], int] = attrgetter("sort_key")


def sorted_cards(cards: Iterable[Card]) -> list[Card]:
    """``cards`` in canonical order: by rank, ace first; within a rank c d h s; jokers last.

    >>> names(sorted_cards(parse_cards(["X", "Ks", "2h", "Ah", "2c"])))
    ['Ah', '2c', '2h', 'Ks', 'X']
    """
    return sorted(cards, key=SORT_KEY)


def names(cards: Iterable[Card]) -> list[str]:
    return [c.name for c in cards]


def sorted_names(cards: Iterable[Card]) -> list[str]:
    """The names of ``cards`` in canonical order: ``names(sorted_cards(cards))``."""
    return [c.name for c in sorted(cards, key=SORT_KEY)]
