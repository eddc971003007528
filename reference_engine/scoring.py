"""The showdown after a call and the points each seat scores for it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from .rules import BeatenCall, Rules, ScoringKind


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
    # A tie goes against the caller; among equal lowest, the first after the caller wins.
    beaten = lowest <= values[caller]
    winner = next(s for s in others if values[s] == lowest) if beaten else caller
    deltas = dict.fromkeys(turn_order, 0)
    if rules.scoring is ScoringKind.TRANSFER:
        if beaten:
            amount = sum(values.values())
            if rules.beaten_call is BeatenCall.HANDS_EXCEPT_WINNER:
                amount -= values[winner]
            deltas[caller] = -amount
            deltas[winner] = amount
        else:
            for seat in others:
                deltas[seat] = -values[seat]
            deltas[caller] = sum(values[s] for s in others)
    elif beaten:
        deltas[caller] = values[caller] + rules.beaten_penalty
    else:
        for seat in others:
            deltas[seat] = values[seat]
    return Showdown(Outcome.BEATEN_CALL if beaten else Outcome.WON_CALL, caller, winner, deltas)
