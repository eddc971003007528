"""The end of a hand and of the game: showdown, scores, cuts, eliminations, winners, money."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from .table import Table


@dataclass(frozen=True)
class Showdown:
    outcome: str  # won_call | beaten_call
    winner: int
    deltas: Mapping[int, int]  # every seat in play


def showdown(
    values: Mapping[int, int], after_caller: Sequence[int], caller: int, t: Table
) -> Showdown:
    """``after_caller``: the other seats in play in turn order from the one after the caller.

    tie beats_caller: a hand equal to the caller's beats the call; caller_wins: only a
    strictly lower one. Among equal lowest, the first after the caller wins (first_after_caller)
    or the one with the smallest seat number (lowest_seat).
    """
    lowest = min(values[s] for s in after_caller)
    beaten = lowest <= values[caller] if t.tie == "beats_caller" else lowest < values[caller]
    equal = [s for s in after_caller if values[s] == lowest]
    first = min(equal) if t.among_lowest == "lowest_seat" else equal[0]
    winner = first if beaten else caller
    deltas = dict.fromkeys([caller, *after_caller], 0)
    if t.kind == "transfer":
        if not beaten:  # each other hand is paid to the caller
            for s in after_caller:
                deltas[s] = -values[s]
            deltas[caller] = sum(values[s] for s in after_caller)
        else:
            total = sum(values.values())
            paid = total - values[winner] if t.beaten_call == "hands_except_winner" else total
            deltas[caller], deltas[winner] = -paid, paid
    elif not beaten:  # penalty: each other player scores their own hand
        for s in after_caller:
            deltas[s] = values[s]
    else:  # the caller scores: hand plus penalty, hand times the factor, or the penalty alone
        if t.beaten_call == "caller_hand_times":
            deltas[caller] = values[caller] * t.beaten_factor
        elif t.beaten_call == "penalty_only":
            deltas[caller] = t.beaten_penalty
        else:
            deltas[caller] = values[caller] + t.beaten_penalty
        # score_own_hands spares the round winner; all_but_caller_score_own_hands does not;
        # score_own_hands_but_lowest spares every hand as low as the lowest (several winners),
        # score_own_hands_but_beaters every hand that beats the call.
        for s in after_caller:
            spared = {
                "score_own_hands": s == winner,
                "all_but_caller_score_own_hands": False,
                "score_own_hands_but_lowest": values[s] == lowest,
                # every hand that beats the call, as the tie rule says
                "score_own_hands_but_beaters": (
                    values[s] <= values[caller]
                    if t.tie == "beats_caller"
                    else values[s] < values[caller]
                ),
            }.get(t.beaten_others, True)
            if not spared:
                deltas[s] = values[s]
    deltas = {s: d * t.multiplier for s, d in deltas.items()}
    return Showdown("beaten_call" if beaten else "won_call", winner, deltas)


def deck_ran_out(values: Mapping[int, int], t: Table) -> dict[int, int]:
    """round_ends_no_score: nobody scores; round_ends_hands_score: each seat its hand
    (times the points multiplier)."""
    scored = t.deck_runs_out == "round_ends_hands_score"
    return {s: (v * t.multiplier if scored else 0) for s, v in values.items()}


def after_cuts(total: int, t: Table, own_hand: bool = True) -> int:
    """A total of exactly ``at`` becomes ``to``; else a positive multiple of drop_at loses
    drop_at; else a positive multiple of halve_at halves. Applied only to a seat the hand
    scored for (its delta was not 0); where multiples_for is own_hand, the multiples only
    when ``own_hand``: the seat's own cards put points on its score."""
    for at, to in t.cuts:
        if total == at:
            return to
    if t.multiples_for == "own_hand" and not own_hand:
        return total
    if t.drop_at and total > 0 and total % t.drop_at == 0:
        return total - t.drop_at
    if t.halve_at and total > 0 and total % t.halve_at == 0:
        return total // 2
    return total


def eliminated(scores: Sequence[int], active: Sequence[int], t: Table) -> list[int]:
    """Seats in play now out (seat order): above out_above, or at it where reaching_is_out.
    Should all go out together, those with the lowest total stay in."""
    if t.end != "elimination" or t.out_above is None:
        return []
    limit = t.out_above
    out = [
        s for s in sorted(active) if scores[s] > limit or (t.reaching_is_out and scores[s] == limit)
    ]
    if out and len(out) == len(active):
        least = min(scores[s] for s in active)
        out = [s for s in out if scores[s] != least]
    return out


def game_over(rounds_played: int, scores: Sequence[int], active: Sequence[int], t: Table) -> bool:
    """first_past_target: once any total in play is over out_above (or at it, reaching_is_out)."""
    if t.end == "first_past_target":
        assert t.out_above is not None
        limit = t.out_above
        return any(scores[s] > limit or (t.reaching_is_out and scores[s] == limit) for s in active)
    if t.end == "elimination":
        return len(active) <= 1
    if t.end == "fixed_rounds":
        return t.rounds is not None and rounds_played >= t.rounds
    return False  # host_ends: only the host ends it


def _by_score(score: int, t: Table) -> int:
    return -score if t.kind == "transfer" else score


def standings(scores: Sequence[int], out_round: Mapping[int, int], t: Table) -> list[int]:
    """Seats still in by score, then seats out (later out first, then by score); lower seat
    first on equal places."""
    still = sorted(
        (s for s in range(len(scores)) if s not in out_round),
        key=lambda s: (_by_score(scores[s], t), s),
    )
    gone = sorted(out_round, key=lambda s: (-out_round[s], _by_score(scores[s], t), s))
    return still + gone


def winners(scores: Sequence[int], active: Sequence[int], t: Table) -> list[int]:
    if t.end == "host_ends":
        return []
    if t.end == "elimination":
        return sorted(active)
    best = min(_by_score(scores[s], t) for s in active)
    return [s for s in sorted(active) if _by_score(scores[s], t) == best]


def next_turn(seat: int, active: Sequence[int], seats: int) -> int:
    """Play passes to seat + 1 (wrapping), skipping seats that are out; direction only
    names which way that is at a physical table."""
    for step in range(1, seats + 1):
        if (seat + step) % seats in active:
            return (seat + step) % seats
    raise AssertionError("nobody in play")


def next_starter(
    starter: int,
    caller: int | None,
    winner: int | None,
    out: Sequence[int],
    active_after: Sequence[int],
    seats: int,
    t: Table,
) -> int:
    """Who starts the next hand; a seat that just went out passes it to the next seat in.
    ``active_after``: the seats still in once this hand's eliminations are done."""
    rule = t.next_starter
    chosen: int | None = None
    if winner is not None and winner not in out and rule == "round_winner":
        chosen = winner
    elif winner is not None and winner not in out and rule == "seat_after_round_winner":
        chosen = next_turn(winner, [*active_after, *out], seats)
    elif rule == "caller" and caller is not None and caller not in out:
        chosen = caller
    elif rule == "first_starter":
        chosen = t.first_starter % seats  # every hand, whoever won or called
    if chosen is None:
        chosen = next_turn(starter, [*active_after, *out], seats)
    return chosen if chosen in active_after else next_turn(chosen, active_after, seats)


def dealer(starter: int, active: Sequence[int], seats: int, t: Table) -> int | None:
    """seat_before_starter: the last seat in play before the starter; none: no dealer."""
    if t.dealer == "none":
        return None
    for step in range(1, seats + 1):
        if (starter - step) % seats in active:
            return (starter - step) % seats
    raise AssertionError("nobody in play")


def deal(
    order: Sequence[str],
    starter: int,
    active: Sequence[int],
    seats: int,
    size: int,
    first_offer: str = "turned_up_card",
) -> tuple[list[list[str]], str | None, list[str]]:
    """One card at a time to each seat in play from the starter; then the turned-up card
    (none under first_offer none: the pages that stack the rest face down turn nothing up);
    the rest is the deck, top first."""
    turn = sorted(active, key=lambda s: (s - starter) % seats)
    hands: list[list[str]] = [[] for _ in range(seats)]
    for i in range(size * len(turn)):
        hands[turn[i % len(turn)]].append(order[i])
    rest = list(order[size * len(turn) :])
    if first_offer == "none":
        return hands, None, rest
    return hands, rest[0], rest[1:]


def settlement(
    scores: Sequence[int], rate: Decimal, method: str
) -> list[tuple[int, int, int, str]]:
    """(from, to, points, dollars) until every tally is square."""
    balance = list(scores)
    paid: list[tuple[int, int, int, str]] = []

    def pay(debtor: int, creditor: int) -> None:
        points = min(-balance[debtor], balance[creditor])
        balance[debtor] += points
        balance[creditor] -= points
        paid.append((debtor, creditor, points, f"{(rate * points).quantize(Decimal('0.01'))}"))

    if method == "debtors_pay_creditors_in_seat_order":
        for debtor in range(len(balance)):
            for creditor in range(len(balance)):
                if balance[debtor] < 0 and balance[creditor] > 0:
                    pay(debtor, creditor)
        return paid
    while True:
        debtor = min(range(len(balance)), key=lambda s: (balance[s], s))
        creditor = min(range(len(balance)), key=lambda s: (-balance[s], s))
        if balance[debtor] >= 0 or balance[creditor] <= 0:
            return paid
        pay(debtor, creditor)
