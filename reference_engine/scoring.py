"""The showdown after a call and the points each seat scores for it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from .rules import (
    BeatenCall,
    BeatenOthers,
    DeckRunsOut,
    MultiplesFor,
    Rules,
    ScoringKind,
    ShowdownTie,
    WinnerAmongLowest,
)


class Outcome(StrEnum):
    WON_CALL = "won_call"
    BEATEN_CALL = "beaten_call"


@dataclass(frozen=True, slots=True)
class Showdown:
    outcome: Outcome
    caller: int
    winner: int
    deltas: Mapping[int, int]


def showdown(
    values: Mapping[int, int], turn_order: Sequence[int], caller: int, rules: Rules
) -> Showdown:
    """Settle a call. ``turn_order`` lists the seats in play, starting after the caller."""
    others = [s for s in turn_order if s != caller]
    lowest = min(values[s] for s in others)
    # The profile says who wins a tie with the caller, and which of equal lowest others wins.
    beaten = beats(lowest, values[caller], rules)
    tied = [s for s in others if values[s] == lowest]
    if rules.showdown.winner_among_lowest is WinnerAmongLowest.LOWEST_SEAT:
        tied.sort()
    winner = tied[0] if beaten else caller
    deltas = dict.fromkeys(turn_order, 0)
    if rules.scoring.kind is ScoringKind.NONE:
        pass  # no points are kept: the winner and the hand values are the result
    elif rules.scoring.kind is ScoringKind.TRANSFER:
        if beaten:
            amount = sum(values.values())
            if rules.scoring.beaten_call is BeatenCall.HANDS_EXCEPT_WINNER:
                amount -= values[winner]
            deltas[caller] = -amount
            deltas[winner] = amount
        else:
            for seat in others:
                deltas[seat] = -values[seat]
            deltas[caller] = sum(values[s] for s in others)
    elif beaten:
        deltas[caller] = beaten_caller_scores(values[caller], rules)
        deltas.update(beaten_others_score(values, others, caller, winner, rules))
    else:
        for seat in others:
            deltas[seat] = values[seat]
    deltas = multiplied(deltas, rules)
    return Showdown(Outcome.BEATEN_CALL if beaten else Outcome.WON_CALL, caller, winner, deltas)


def beats(hand: int, caller_hand: int, rules: Rules) -> bool:
    """Whether ``hand`` beats a call on ``caller_hand``: equal or lower under showdown.tie
    beats_caller, only lower under caller_wins."""
    if rules.showdown.tie is ShowdownTie.BEATS_CALLER:
        return hand <= caller_hand
    return hand < caller_hand


def beaten_caller_scores(hand: int, rules: Rules) -> int:
    """What a beaten caller holding ``hand`` scores under penalty scoring (before the
    points multiplier): their hand plus the penalty, their hand times the factor, or the
    penalty alone."""
    match rules.scoring.beaten_call:
        case BeatenCall.CALLER_HAND_TIMES:
            return hand * rules.scoring.beaten_factor
        case BeatenCall.PENALTY_ONLY:
            return rules.scoring.beaten_penalty
        case _:
            return hand + rules.scoring.beaten_penalty


def beaten_others_score(
    values: Mapping[int, int], others: Sequence[int], caller: int, winner: int, rules: Rules
) -> dict[int, int]:
    """What the seats other than a beaten caller score under penalty scoring (before the
    points multiplier): nothing, their hands but the round winner's, every hand, or every
    hand but those equal to the lowest or those that beat the call (several winners of one
    hand scoring nothing)."""
    match rules.scoring.beaten_others:
        case BeatenOthers.SCORE_OWN_HANDS_BUT_BEATERS:
            return {
                seat: 0 if beats(values[seat], values[caller], rules) else values[seat]
                for seat in others
            }
        case BeatenOthers.SCORE_NOTHING:
            return dict.fromkeys(others, 0)
        case BeatenOthers.ALL_BUT_CALLER_SCORE_OWN_HANDS:
            return {seat: values[seat] for seat in others}
        case BeatenOthers.SCORE_OWN_HANDS_BUT_LOWEST:
            lowest = values[winner]
            return {seat: 0 if values[seat] == lowest else values[seat] for seat in others}
        case _:
            return {seat: 0 if seat == winner else values[seat] for seat in others}


def deck_ran_out(values: Mapping[int, int], rules: Rules) -> dict[int, int]:
    """What each seat in play scores when the deck runs out and ends the hand uncalled."""
    scored = rules.reshuffle.deck_runs_out is DeckRunsOut.ROUND_ENDS_HANDS_SCORE
    if rules.scoring.kind is ScoringKind.NONE:
        scored = False
    return multiplied({seat: (value if scored else 0) for seat, value in values.items()}, rules)


def multiplied(deltas: Mapping[int, int], rules: Rules) -> dict[int, int]:
    """A hand's points times scoring.points_multiplier (before any cut of a total)."""
    return {seat: delta * rules.scoring.points_multiplier for seat, delta in deltas.items()}


def hand_added(
    seat: int, values: Mapping[int, int], caller: int | None, winner: int | None, rules: Rules
) -> bool:
    """Whether ``seat``'s own hand added points to its score this hand: it is worth more
    than 0 and counted (every seat that scores, but a beaten caller under penalty_only)."""
    beaten_caller = caller is not None and winner != caller and seat == caller
    if beaten_caller and rules.scoring.beaten_call is BeatenCall.PENALTY_ONLY:
        return False
    return values.get(seat, 0) > 0


def cut_rules(own_hand_added: bool, rules: Rules) -> Rules:
    """The rules a seat's total is cut by: under scoring.multiples_for own_hand, a seat
    whose own hand added nothing keeps a total on a multiple (exact cuts still apply)."""
    if own_hand_added or rules.scoring.multiples_for != MultiplesFor.OWN_HAND:
        return rules
    return rules.with_values(
        {"scoring.drop_at_multiples_of": None, "scoring.halve_at_multiples_of": None}
    )


def cut_score(total: int, rules: Rules) -> int:
    """A seat's total after the profile's score cuts: an exact match first, then a drop at
    a multiple, then halving; one of them at most."""
    for cut in rules.scoring.cuts:
        if total == cut.at:
            return cut.to
    drop = rules.scoring.drop_at_multiples_of
    if drop and total > 0 and total % drop == 0:
        return total - drop
    step = rules.scoring.halve_at_multiples_of
    if step and total > 0 and total % step == 0:
        return total // 2
    return total
