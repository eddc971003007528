"""Which groups of cards may be thrown: singles, sets of a rank, runs in one suit."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, pairwise

from jhyap_core.cards import JOKER_RANK, Card
from jhyap_core.vocabulary import ThrowKind

from .rules import JokersExtend, JokersWild, Rules, RunAce, RunOrder, SingleThrow, ThrowLaid


def _wild_in(rules: Rules, kind: ThrowKind) -> bool:
    wild = rules.cards.jokers_wild
    if kind is ThrowKind.SET:
        return wild in (JokersWild.SETS, JokersWild.SETS_AND_RUNS)
    return wild in (JokersWild.RUNS, JokersWild.SETS_AND_RUNS)


def _ace_ranks(rules: Rules) -> tuple[int, ...]:
    """The ranks an ace may take in a run: 1 (low), 14 (above the king), or either."""
    if rules.throws.run_ace is RunAce.HIGH:
        return (14,)
    if rules.throws.run_ace is RunAce.LOW_OR_HIGH:
        return (1, 14)
    return (1,)


# The lowest and highest rank a run may reach; an ace above the king stands at 14.
_RUN_BOUNDS = {RunAce.LOW: (1, 13), RunAce.HIGH: (2, 14), RunAce.LOW_OR_HIGH: (1, 14)}


def run_positions(cards: Sequence[Card], rules: Rules) -> list[tuple[Card, int]] | None:
    """Each card of a run with the rank it stands at, lowest first; None if no run.

    Natural cards keep their rank (an ace 1 or 14 as the profile allows). Jokers, where
    the profile lets them stand in runs, fill the gaps first, then extend the run
    upwards, then downwards (throws.run.jokers_extend up_first; down_first the other way
    round): one fixed reading, so the ends of a run are well defined.
    """
    count = len(cards)
    if count < rules.throws.run_min or (
        rules.throws.run_max is not None and count > rules.throws.run_max
    ):
        return None
    naturals = [c for c in cards if not c.is_joker]
    jokers = [c for c in cards if c.is_joker]
    if jokers and not _wild_in(rules, ThrowKind.RUN):
        return None
    if len(naturals) < rules.throws.run_min_naturals:
        return None
    if not naturals or any(c.suit != naturals[0].suit for c in naturals):
        return None
    down_first = rules.throws.run_jokers_extend is JokersExtend.DOWN_FIRST
    if rules.throws.run_wrap:
        return _wrapped_positions(naturals, jokers, down_first)
    for ace in _ace_ranks(rules):
        ranked = sorted(((ace if c.rank == 1 else c.rank, c) for c in naturals), key=_first)
        ranks = [r for r, _ in ranked]
        if any(b == a for a, b in pairwise(ranks)):
            return None
        low, high = ranks[0], ranks[-1]
        spare = len(jokers) - (high - low + 1 - len(ranks))
        if spare < 0:
            continue
        bottom, top = _RUN_BOUNDS[rules.throws.run_ace]
        if down_first:
            down = min(spare, low - bottom)
            up = spare - down
        else:
            up = min(spare, top - high)
            down = spare - up
        if low - down < bottom or high + up > top:
            continue
        placed: list[tuple[Card, int]] = []
        spare_jokers = list(jokers)
        by_rank = {r: c for r, c in ranked}
        for rank in range(low - down, high + up + 1):
            card = by_rank.get(rank)
            placed.append((card, rank) if card is not None else (spare_jokers.pop(), rank))
        return placed
    return None


def _first(pair: tuple[int, Card]) -> int:
    return pair[0]


def _wrapped_positions(
    naturals: list[Card], jokers: list[Card], down_first: bool
) -> list[tuple[Card, int]] | None:
    """A run whose ranks go round the corner (Q K A 2): the king is followed by the ace.

    The run starts after the widest gap between its naturals' ranks, going round (the
    lowest starting rank among equal gaps), so the naturals span as few ranks as they
    can; jokers fill the gaps, then extend the run upwards (``down_first``: downwards).
    Ranks are stated 1 to 13 going round; a run holds at most thirteen cards.
    """
    if len(naturals) + len(jokers) > 13:
        return None
    ranks = sorted(c.rank for c in naturals)
    if any(b == a for a, b in pairwise(ranks)):
        return None
    # The gap before each natural, going round: the run starts at the one after the widest.
    gaps = [(ranks[i] - ranks[i - 1] - 1) % 13 for i in range(len(ranks))]
    if len(ranks) == 1:
        gaps = [12]
    widest = max(gaps)
    start = ranks[gaps.index(widest)]
    span = 13 - widest  # ranks from the first natural to the last, going round
    if span > len(naturals) + len(jokers):
        return None
    if down_first:  # the spare jokers stand below the first natural, going round
        start = (start - 1 - (len(naturals) + len(jokers) - span)) % 13 + 1
    by_rank = {c.rank: c for c in naturals}
    spare_jokers = list(jokers)
    placed: list[tuple[Card, int]] = []
    for step in range(len(naturals) + len(jokers)):
        rank = (start - 1 + step) % 13 + 1
        card = by_rank.get(rank)
        placed.append((card, rank) if card is not None else (spare_jokers.pop(), rank))
    return placed


def classify(cards: Sequence[Card], rules: Rules) -> ThrowKind | None:
    """The kind of throw ``cards`` make, or None when they are no legal throw."""
    count = len(cards)
    if count == 0:
        return None
    if count == 1:
        return ThrowKind.SINGLE
    naturals = [c for c in cards if c.rank != JOKER_RANK]
    if rules.cards.max_packs == 1 and len(set(naturals)) != len(naturals):
        return None  # one pack holds each card once
    ranks = {c.rank for c in naturals}
    # Jokers alone are a set of their own rank (where the profile allows it); among
    # naturals they stand in only when wild.
    one_rank = (not naturals and rules.throws.set_jokers_alone) or (
        len(ranks) == 1 and (len(naturals) == count or _wild_in(rules, ThrowKind.SET))
    )
    if one_rank and rules.throws.set_min <= count <= rules.throws.set_max:
        return ThrowKind.SET
    if run_positions(cards, rules) is not None:
        return ThrowKind.RUN
    return None


def legal_throws(hand: Sequence[Card], rules: Rules) -> list[tuple[Card, ...]]:
    """Every legal throw from ``hand``, each in canonical card order; shorter throws first,
    then by their cards' canonical positions (docs/protocol.md, "Legal actions")."""
    ordered = sorted(hand, key=lambda c: c.sort_key)
    if (
        any(c.is_joker for c in ordered)
        or len(set(ordered)) != len(ordered)
        or rules.throws.run_ace is not RunAce.LOW
        or rules.throws.run_wrap
        or rules.throws.run_max is not None
    ):
        return _singles_rule(_legal_throws_by_subsets(ordered, rules), rules)
    found: list[tuple[Card, ...]] = [(c,) for c in ordered]
    by_rank: dict[int, list[Card]] = {}
    by_suit: dict[str, list[Card]] = {}
    for card in ordered:
        by_rank.setdefault(card.rank, []).append(card)
        by_suit.setdefault(card.suit, []).append(card)
    for group in by_rank.values():
        for size in range(max(2, rules.throws.set_min), min(rules.throws.set_max, len(group)) + 1):
            found.extend(combinations(group, size))
    # Without jokers every card of a run is natural: it needs min_naturals cards too.
    shortest = max(rules.throws.run_min, rules.throws.run_min_naturals)
    for suited in by_suit.values():
        # Within one suit ranks are distinct; every consecutive stretch long enough is a run.
        for start in range(len(suited)):
            end = start
            while end + 1 < len(suited) and suited[end + 1].rank == suited[end].rank + 1:
                end += 1
                if end - start + 1 >= shortest:
                    found.append(tuple(suited[start : end + 1]))
    return _singles_rule(sorted(found, key=_throw_order), rules)


def _singles_rule(found: list[tuple[Card, ...]], rules: Rules) -> list[tuple[Card, ...]]:
    """Under throws.single when_no_combination, no single while a larger throw is legal;
    under throws.run.order ascending, each run listed in the order it must be placed."""
    single = rules.throws.single
    if single is SingleThrow.WHEN_NO_COMBINATION and any(len(t) > 1 for t in found):
        found = [t for t in found if len(t) > 1]
    if single is SingleThrow.HIGHEST_WHEN_NO_COMBINATION and found and max(map(len, found)) == 1:
        top = max(rules.cards.card_value(t[0]) for t in found)
        found = [t for t in found if rules.cards.card_value(t[0]) == top]
    if not rules.throws.single_joker and not all(map(_lone_joker, found)):
        found = [t for t in found if not _lone_joker(t)]
    if rules.throws.run_order is RunOrder.ASCENDING:
        found = [ascending_run(t, rules) for t in found]
    return found


def _lone_joker(cards: Sequence[Card]) -> bool:
    return len(cards) == 1 and cards[0].is_joker


def joker_alone_refused(cards: Sequence[Card], hand: Sequence[Card], rules: Rules) -> bool:
    """Whether a joker thrown alone is refused under throws.single_joker false: the hand
    allows another throw (a hand of jokers only that make no set may throw one)."""
    if rules.throws.single_joker or not _lone_joker(cards):
        return False
    return not all(map(_lone_joker, legal_throws(hand, rules)))


def ascending_run(cards: Sequence[Card], rules: Rules) -> tuple[Card, ...]:
    """A run's cards lowest first (a joker where it stands); any other throw as it is."""
    placed = run_positions(cards, rules) if classify(cards, rules) is ThrowKind.RUN else None
    return tuple(cards) if placed is None else tuple(card for card, _ in placed)


def out_of_order(cards: Sequence[Card], rules: Rules) -> bool:
    """Whether ``cards`` are a run placed otherwise than lowest first under
    throws.run.order ascending (a joker must be placed where it stands)."""
    if rules.throws.run_order is RunOrder.ANY or classify(cards, rules) is not ThrowKind.RUN:
        return False
    return ascending_run(tuple(cards), rules) != tuple(cards)


def single_refused(cards: Sequence[Card], hand: Sequence[Card], rules: Rules) -> bool:
    """Whether throwing ``cards`` alone is refused by throws.single: because ``hand`` holds
    a set or a run (when_no_combination), or because it holds none and the card is not of
    the hand's highest value (highest_when_no_combination)."""
    if len(cards) != 1 or rules.throws.single is SingleThrow.ANY:
        return False
    combination = any(len(t) > 1 for t in legal_throws(hand, rules))
    if rules.throws.single is SingleThrow.WHEN_NO_COMBINATION:
        return combination
    value = rules.cards.card_value
    return not combination and value(cards[0]) < max(map(value, hand))


def laid(cards: Sequence[Card], kind: ThrowKind, rules: Rules) -> tuple[Card, ...]:
    """The throw's cards in the order they lie on the offer, the last on top.

    as_placed: the order the player placed them. by_rank: a run by the ranks its cards
    stand at, lowest first (a joker where it stands); a set or single in canonical card
    order (suits c d h s, jokers last). runs_by_rank: a run as by_rank, a set or single as
    placed.
    """
    if rules.throws.laid is ThrowLaid.AS_PLACED:
        return tuple(cards)
    if rules.throws.laid is ThrowLaid.RUNS_BY_RANK and kind is not ThrowKind.RUN:
        return tuple(cards)
    if kind is ThrowKind.RUN:
        placed = run_positions(cards, rules)
        if placed is not None:
            return tuple(card for card, _ in placed)
    return tuple(sorted(cards, key=lambda c: c.sort_key))


def _throw_order(cards: tuple[Card, ...]) -> tuple[int, list[int]]:
    """Shorter throws first, then by their cards' canonical positions."""
    return len(cards), [c.sort_key for c in cards]


def _legal_throws_by_subsets(ordered: list[Card], rules: Rules) -> list[tuple[Card, ...]]:
    """Every legal throw of a hand holding jokers or repeated cards, each listed once."""
    seen: dict[tuple[Card, ...], None] = {}
    for size in range(1, len(ordered) + 1):
        for combo in combinations(ordered, size):
            if combo not in seen and classify(combo, rules) is not None:
                seen[combo] = None
    return sorted(seen, key=_throw_order)
