"""Which groups of cards may be thrown: singles, sets of a rank, runs in one suit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations, pairwise

from .cards import Card
from .rules import Rules


class ThrowKind(StrEnum):
    SINGLE = "single"
    SET = "set"
    RUN = "run"


@dataclass(frozen=True, slots=True)
class Throw:
    """Cards as placed, in order; the last one is placed on top."""

    cards: tuple[Card, ...]
    kind: ThrowKind


def classify(cards: Sequence[Card], rules: Rules) -> ThrowKind | None:
    """The kind of throw ``cards`` make, or None when they are no legal throw."""
    count = len(cards)
    if count == 0 or len(set(cards)) != count:
        return None
    if count == 1:
        return ThrowKind.SINGLE
    first = cards[0]
    if all(c.rank == first.rank for c in cards) and rules.set_min <= count <= rules.set_max:
        return ThrowKind.SET
    if count >= rules.run_min and all(c.suit == first.suit for c in cards):
        # Ace counts 1 only (rules.run_ace is "low"), so a run is consecutive ranks 1..13.
        ranks = sorted(c.rank for c in cards)
        if all(b - a == 1 for a, b in pairwise(ranks)):
            return ThrowKind.RUN
    return None


def legal_throws(hand: Sequence[Card], rules: Rules) -> list[tuple[Card, ...]]:
    """Every legal throw from ``hand``, each in canonical card order; shorter throws first,
    then by their cards' canonical positions (docs/protocol.md, "Legal actions")."""
    ordered = sorted(hand, key=lambda c: c.sort_key)
    found: list[tuple[Card, ...]] = [(c,) for c in ordered]
    by_rank: dict[int, list[Card]] = {}
    by_suit: dict[str, list[Card]] = {}
    for card in ordered:
        by_rank.setdefault(card.rank, []).append(card)
        by_suit.setdefault(card.suit, []).append(card)
    for group in by_rank.values():
        for size in range(max(2, rules.set_min), min(rules.set_max, len(group)) + 1):
            found.extend(combinations(group, size))
    for suited in by_suit.values():
        # Within one suit ranks are distinct; every consecutive stretch long enough is a run.
        for start in range(len(suited)):
            end = start
            while end + 1 < len(suited) and suited[end + 1].rank == suited[end].rank + 1:
                end += 1
                if end - start + 1 >= rules.run_min:
                    found.append(tuple(suited[start : end + 1]))
    return sorted(found, key=lambda cards: (len(cards), [c.sort_key for c in cards]))
