"""Which groups of cards may be thrown: singles, sets of a rank, runs in one suit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations

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
        if all(b - a == 1 for a, b in zip(ranks, ranks[1:], strict=False)):
            return ThrowKind.RUN
    return None


def legal_throws(hand: Sequence[Card], rules: Rules) -> list[tuple[Card, ...]]:
    """Every legal throw from ``hand``, each in canonical card order."""
    ordered = sorted(hand, key=lambda c: c.sort_key)
    found: list[tuple[Card, ...]] = []
    for size in range(1, len(ordered) + 1):
        for combo in combinations(ordered, size):
            if classify(combo, rules) is not None:
                found.append(combo)
    return found
