"""A transcript's deck: its cards by name, their order, and the deck a table plays with."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from jhyap_core.cards import DECK, JOKER_NAME, RANKS, full_deck
from reference_engine.rules import packs_at

CARD_NAMES = [str(c) for c in DECK]
RANK_SYMBOLS = RANKS
# A transcript's deck: (packs, jokers per pack), with a third item, the rank symbols each
# pack leaves out (e.g. "K"), only for a pack that leaves ranks out.
Deck = tuple[int, int] | tuple[int, int, str]
_CANONICAL = {name: i for i, name in enumerate([*CARD_NAMES, JOKER_NAME])}


def is_card_name(name: object) -> bool:
    """Whether ``name`` names a card of some deck (a joker included)."""
    return name in _CANONICAL


def canonical(cards: Iterable[str]) -> list[str]:
    """``cards`` in deck order (by rank, then suit; jokers last, anything else after)."""
    return sorted(cards, key=lambda c: _CANONICAL.get(c, 99))


def deck_names(packs: int = 1, jokers: int = 0, left_out: str = "") -> list[str]:
    """Every card name of a deck of ``packs`` packs with ``jokers`` jokers each, without the
    ranks ``left_out`` (rank symbols, e.g. ``"K"``), in order."""
    gone = [RANK_SYMBOLS.index(rank) + 1 for rank in left_out]
    return [str(c) for c in full_deck(packs, jokers, gone)]


def table_deck(rules: Mapping[str, Any], seats: int) -> Deck:
    """(packs, jokers per pack) a table of ``seats`` plays with under resolved ``rules``, and
    the ranks each pack leaves out as a third item when it leaves some out."""
    steps = rules["deck"].get("packs_by_seats") or ()
    packs = packs_at(((st["from_seats"], st["packs"]) for st in steps), seats)
    left_out = left_out_symbols(rules["deck"].get("ranks_left_out"))
    if left_out:
        return packs, int(rules["deck"]["jokers"]), left_out
    return packs, int(rules["deck"]["jokers"])


def left_out_symbols(ranks: Iterable[str] | None) -> str:
    """Rank symbols in rank order, as one string: ``["K", "Q"]`` is ``"QK"``."""
    return "".join(sorted(set(ranks or ()), key=RANK_SYMBOLS.index))


def deck_header(deck: Deck) -> dict[str, Any]:
    """A transcript's ``deck:`` for ``deck``."""
    header: dict[str, Any] = {"packs": deck[0], "jokers": deck[1]}
    if len(deck) == 3:
        header["left_out"] = list(deck[2])
    return header


def deck_words(deck: Deck) -> str:
    """``deck`` in words, for messages: ``2 packs of 49 cards without K, 1 joker each``."""
    packs, jokers = deck[0], deck[1]
    left_out = deck[2] if len(deck) == 3 else ""
    words = f"{packs} pack{'' if packs == 1 else 's'} of {52 - 4 * len(left_out) + jokers} cards"
    if left_out:
        words += f" without {' '.join(left_out)}"
    if not jokers:
        return words + ", no jokers"
    return words + f", {jokers} joker{'' if jokers == 1 else 's'}" + (" each" if packs > 1 else "")


def expand_deal(spec: Mapping[str, Any], deck: Deck = (1, 0)) -> list[str]:
    """The whole card order of a deal step (see docs/transcripts.md).

    ``deck`` is (packs, jokers per pack[, ranks left out]): the cards not named follow in
    pack order.
    """
    if "order" in spec:
        return list(spec["order"])
    hands = {int(seat): list(cards) for seat, cards in spec["hands"].items()}
    seats = sorted(hands)
    total = max(seats) + 1 if seats else 0
    starter = int(spec["starter"])
    order_of_play = sorted(seats, key=lambda s: (s - starter) % max(total, starter + 1))
    size = max(len(h) for h in hands.values())
    order: list[str] = []
    for i in range(size):
        for seat in order_of_play:
            if i < len(hands[seat]):
                order.append(hands[seat][i])
    if spec["turned_up"] is not None:  # null: the deck follows the hands (first_offer none)
        order.append(spec["turned_up"])
    order.extend(spec.get("deck") or [])
    left = Counter(deck_names(*deck))
    left.subtract(order)
    for name in dict.fromkeys(deck_names(*deck)):
        order.extend([name] * max(0, left[name]))
    return order
