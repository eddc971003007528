"""A turn: what may be thrown, what may be picked, when a call is allowed, the timeout."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from itertools import combinations

from .table import JOKER, SUITS, Table, canonical, rank


def _ace_values(t: Table) -> tuple[int, ...]:
    """'low': below the two only; 'high': above the king only; 'low_or_high': either end."""
    return {"low": (1,), "high": (14,), "low_or_high": (1, 14)}[t.run_ace]


def _bounds(t: Table) -> tuple[int, int]:
    return {"low": (1, 13), "high": (2, 14), "low_or_high": (1, 14)}[t.run_ace]


def run_ranks(cards: Sequence[str], t: Table) -> list[int] | None:
    """The ranks a run's cards stand for, lowest first, or None when they are no run."""
    layout = run_layout(cards, t)
    return layout[0] if layout else None


def run_layout(cards: Sequence[str], t: Table) -> tuple[list[int], int] | None:
    """The ranks a run stands for, in run order, and the rank its aces take; None if no run.

    The naturals are of one suit with distinct ranks; jokers (only where deck.jokers_wild
    lets them stand in runs) fill the gaps, then extend the run upwards, then downwards
    (bga-yaniv.throws.jokers); an ace is tried low before high. throws.run.max bounds the
    run's length, throws.run.min_naturals its natural cards; throws.run.wrap lets it turn
    the corner (_wrapped).
    """
    if len(cards) < t.run_min or (t.run_max is not None and len(cards) > t.run_max):
        return None
    naturals = [c for c in cards if c != JOKER]
    jokers = len(cards) - len(naturals)
    if jokers and t.jokers_wild not in ("runs", "sets_and_runs"):
        return None
    if len(naturals) < t.run_min_naturals:
        return None
    if not naturals or len({c[1] for c in naturals}) != 1:
        return None
    if t.run_wrap:
        return _wrapped(sorted(rank(c) for c in naturals), len(cards), t.run_jokers_extend)
    bottom, top = _bounds(t)
    for ace in _ace_values(t):
        ranks = sorted(ace if rank(c) == 1 else rank(c) for c in naturals)
        if len(set(ranks)) != len(ranks):
            return None
        low, high = ranks[0], ranks[-1]
        spare = jokers - (high - low + 1 - len(ranks))
        if spare < 0 or low < bottom or high > top:
            continue
        # The spare jokers go one way while the bounds allow, the rest the other way.
        first = min(spare, top - high if t.run_jokers_extend == "up_first" else low - bottom)
        up, down = (
            (first, spare - first) if t.run_jokers_extend == "up_first" else (spare - first, first)
        )
        if low - down < bottom or high + up > top:
            continue
        return list(range(low - down, high + up + 1)), ace
    return None


def _wrapped(ranks: list[int], n: int, extend: str) -> tuple[list[int], int] | None:
    """A run going round the corner: n ranks from a start, the king followed by the ace.

    Of the windows of n ranks that start at a natural and hold every natural, the one whose
    last natural comes soonest (jokers fill gaps, then go upwards); among equals the lowest
    start rank (the schema's "widest gap" words, counted the other way round). Under
    jokers_extend down_first the spare jokers go below it instead: the window starts as many
    ranks earlier as it has spare jokers after its last natural.
    """
    if len(set(ranks)) != len(ranks) or n > 13:
        return None
    best: tuple[int, int] | None = None
    for start in ranks:
        window = [(start - 1 + i) % 13 + 1 for i in range(n)]
        if not set(ranks) <= set(window):
            continue
        last = max(window.index(r) for r in ranks)
        if best is None or last < best[0]:
            best = (last, start)
    if best is None:
        return None
    last, start = best
    if extend == "down_first":
        start -= n - 1 - last
    return [(start - 1 + i) % 13 + 1 for i in range(n)], 1


def throw_kind(cards: Sequence[str], t: Table) -> str | None:
    """'single', 'set' or 'run' for a legal throw, else None. Any order of the cards."""
    if not cards:
        return None
    if len(cards) == 1:
        return "single"
    naturals = [c for c in cards if c != JOKER]
    wild_sets = t.jokers_wild in ("sets", "sets_and_runs")
    # A set: one rank; jokers alone make a set of jokers, among naturals only when wild in sets.
    one_rank = (not naturals and t.set_jokers_alone) or (
        len({rank(c) for c in naturals}) == 1 and (len(naturals) == len(cards) or wild_sets)
    )
    if one_rank and t.set_min <= len(cards) <= t.set_max:
        return "set"
    if run_ranks(cards, t) is not None:
        return "run"
    return None


def in_run_order(cards: Sequence[str], t: Table) -> list[str]:
    """A run's cards from its lowest rank up, each joker at the rank it stands for; any
    other throw as given."""
    layout = run_layout(cards, t) if throw_kind(cards, t) == "run" else None
    if layout is None:
        return list(cards)
    ranks, ace = layout
    at = {(ace if rank(c) == 1 else rank(c)): c for c in cards if c != JOKER}
    return [at.get(r, JOKER) for r in ranks]


def placed_out_of_order(cards: Sequence[str], t: Table) -> bool:
    """throws.run.order ascending: a run must be placed lowest first."""
    return t.run_order == "ascending" and in_run_order(cards, t) != list(cards)


def legal_throws(hand: Sequence[str], t: Table) -> set[tuple[str, ...]]:
    """Every legal throw of ``hand``, each as its cards in canonical order (a run, under
    throws.run.order ascending, in the order it must be placed)."""
    found: set[tuple[str, ...]] = set()
    ordered = canonical(list(hand))
    for size in range(1, len(ordered) + 1):
        for combo in combinations(ordered, size):
            if combo not in found and throw_kind(combo, t) is not None:
                found.add(combo)
    if t.single == "when_no_combination" and any(len(c) > 1 for c in found):
        found = {c for c in found if len(c) > 1}
    # highest_when_no_combination: a hand with no set or run throws only its highest cards.
    if t.single == "highest_when_no_combination" and found and all(len(c) == 1 for c in found):
        top = max(t.value(c[0]) for c in found)
        found = {c for c in found if t.value(c[0]) == top}
    # throws.single_joker false: a joker alone only from a hand allowing nothing else.
    if not t.single_joker and found - {(JOKER,)}:
        found.discard((JOKER,))
    if t.run_order == "ascending":
        found = {tuple(in_run_order(c, t)) for c in found}
    return found


def laid(cards: Sequence[str], t: Table) -> list[str]:
    """throws.laid: as placed, or by rank (a run by the ranks its cards stand at, a joker
    where it stands; a set or single in canonical order, or as placed under runs_by_rank)."""
    if t.laid == "as_placed":
        return list(cards)
    if throw_kind(cards, t) != "run":
        # runs_by_rank: only a run is put in rank order.
        return list(cards) if t.laid == "runs_by_rank" else canonical(list(cards))
    return in_run_order(cards, t)


def pickable(offer: Sequence[str], kind: str | None, t: Table) -> list[str]:
    """The offer's cards the pick rule allows taking, as placed, each occurrence once.

    any: every card; last_placed: the top one; first_or_last_placed: the first and the last;
    run_ends: a run's lowest and highest (a joker at an end is the run's first joker as
    placed), every card of a single or a set.
    """
    n = len(offer)
    if n == 0:
        return []
    if t.from_offer == "last_placed":
        return [offer[-1]]
    if t.from_offer == "first_or_last_placed":
        return [offer[0], offer[-1]] if n > 1 else [offer[0]]
    if t.from_offer == "run_ends" and kind == "run":
        layout = run_layout(offer, t)
        if layout is None:  # a run cut to its ends when the deck was remade
            return list(offer)
        ranks, ace = layout
        at = {(ace if rank(c) == 1 else rank(c)): c for c in offer if c != JOKER}
        wanted = Counter(at.get(r, JOKER) for r in {ranks[0], ranks[-1]})
        out = []
        for card in offer:
            if wanted[card] > 0:
                wanted[card] -= 1
                out.append(card)
        return out
    return list(offer)


def offer_open(seat: int, multi_throwers: Collection[int], t: Table) -> bool:
    """pick.only_after_multi_throw: only a seat that threw two or more cards together."""
    return not t.only_after_multi_throw or seat in multi_throwers


def multi_throwers(last: Mapping[int, tuple[int, int]], hand: int, turn: int, t: Table) -> set[int]:
    """The seats a throw of two or more cards still opens the offer to, from each seat's last
    such throw (``last``: seat -> the hand it was in, and the turns taken in that hand
    before it) at ``turn`` turns taken in hand ``hand``. pick.multi_throw_scope: ``game``
    any such throw of the game; ``hand`` one of this hand; ``turn`` one of this very turn."""
    if t.multi_throw_scope == "game":
        return set(last)
    if t.multi_throw_scope == "hand":
        return {seat for seat, (h, _) in last.items() if h == hand}
    return {seat for seat, at in last.items() if at == (hand, turn)}


def call_refusal(
    value: int, turns_taken: int, own_turns: int, players: int, t: Table, seats: int
) -> str | None:
    """Why a call is refused ('call_too_early', 'call_over_limit'), or None. ``own_turns``
    counts the turns the caller completed in this hand (call.min_own_turns)."""
    if t.first_round == "after_every_player_had_a_turn" and turns_taken < players:
        return "call_too_early"
    if own_turns < t.min_own_turns:
        return "call_too_early"
    limit = t.limit(seats)
    within = value <= limit if t.call_inclusive else value < limit
    return None if within else "call_over_limit"


def _suit_order(card: str) -> int:
    return 4 if card == JOKER else SUITS.index(card[1])


def timeout_throw(hand: Sequence[str], t: Table) -> str:
    """The highest-value card; among equals the higher rank, then the higher suit."""
    return max(hand, key=lambda c: (t.value(c), rank(c), _suit_order(c)))


def timeout_take(takeable: Sequence[str], t: Table) -> str | None:
    """Under take_lowest, the lowest-value takeable card (lower rank, then lower suit)."""
    if t.on_expiry != "throw_highest_single_then_take_lowest" or not takeable:
        return None
    return min(takeable, key=lambda c: (t.value(c), rank(c), _suit_order(c)))
