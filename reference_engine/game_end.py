"""When a game ends, who wins, the standings, and the settlement in money.

The rule is the table procedure's (:class:`jhyap_core.table.GameEnd`, which the kit plays
too); this module reads it under the typed :class:`Rules`, function by function, so that a
mutant of one function (tests/mutants) changes the reference engine's play.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from jhyap_core.table import GameEnd, hand_standings, hand_winners

from .rules import GameEndKind, Rules, ScoringKind, Settlement

__all__ = [
    "Payment",
    "eliminated_after",
    "ending",
    "game_over_after_round",
    "game_result",
    "hand_standings",
    "hand_winners",
    "past_target",
    "settlement",
    "standings",
    "winners",
]


@dataclass(frozen=True, slots=True)
class Payment:
    payer: int
    payee: int
    points: int
    dollars: Decimal

    def to_json(self) -> dict[str, object]:
        return {
            "from": self.payer,
            "to": self.payee,
            "points": self.points,
            "dollars": f"{self.dollars:.2f}",
        }


def eliminated_after(scores: Sequence[int], active: Sequence[int], rules: Rules) -> list[int]:
    """Seats in play whose score now puts them out: above the threshold, or at it too
    where the profile says reaching it is out."""
    if rules.game_end.kind is not GameEndKind.ELIMINATION or rules.game_end.out_above is None:
        return []
    limit = rules.game_end.out_above
    if rules.game_end.reaching_is_out:
        out = [s for s in sorted(active) if scores[s] >= limit]
    else:
        out = [s for s in sorted(active) if scores[s] > limit]
    if out and len(out) == len(active):
        # Everyone still in went over together (a hand where all seats score): the lowest stay.
        lowest = min(scores[s] for s in active)
        out = [s for s in out if scores[s] != lowest]
    return out


def ending(rules: Rules) -> GameEnd:
    """The table procedure's game end (jhyap_core.table.GameEnd) under ``rules``."""
    return GameEnd(
        kind=rules.game_end.kind.value,
        rounds=rules.game_end.rounds,
        out_above=rules.game_end.out_above,
        reaching_is_out=rules.game_end.reaching_is_out,
        higher_wins=rules.scoring.kind is ScoringKind.TRANSFER,
    )


def past_target(scores: Sequence[int], active: Sequence[int], rules: Rules) -> bool:
    """Whether a seat in play has passed the target (or reached it, where that counts)."""
    return ending(rules).past_target(scores, active)


def game_over_after_round(
    round_number: int, scores: Sequence[int], active: Sequence[int], rules: Rules
) -> bool:
    return ending(rules).over(round_number, scores, active)


def winners(scores: Sequence[int], active: Sequence[int], rules: Rules) -> list[int]:
    """The seats that win: :meth:`GameEnd.winners <jhyap_core.table.GameEnd.winners>`."""
    return ending(rules).winners(scores, active)


def standings(scores: Sequence[int], out_in_round: Mapping[int, int], rules: Rules) -> list[int]:
    """Seats from best to worst: :meth:`GameEnd.standings <jhyap_core.table.GameEnd.standings>`."""
    return ending(rules).standings(scores, out_in_round)


def game_result(
    scores: Sequence[int],
    active: Sequence[int],
    out_in_round: Mapping[int, int],
    last_round: Mapping[str, Any] | None,
    rules: Rules,
) -> dict[str, Any]:
    """The game's result (docs/protocol.md, "Game result"): winners, standings, scores, the
    seats out in the order they went out, and the settlement where money is played."""
    payments = (
        settlement(scores, rules.money.dollars_per_point, rules.money.settlement)
        if rules.money.dollars_per_point is not None
        else None
    )
    # GameEnd.ranking, through this module's winners and standings (their mutants' points).
    if rules.game_end.kind is GameEndKind.ONE_HAND and last_round is not None:
        won, ranked = hand_winners(last_round), hand_standings(last_round)
    else:
        won, ranked = winners(scores, active, rules), standings(scores, out_in_round, rules)
    return {
        "winners": won,
        "standings": ranked,
        "scores": list(scores),
        "eliminated": list(out_in_round),
        "settlement": [p.to_json() for p in payments] if payments is not None else None,
    }


def settlement(
    scores: Sequence[int],
    rate: Decimal,
    method: Settlement = Settlement.LARGEST_DEBTOR_PAYS_LARGEST_CREDITOR,
) -> list[Payment]:
    """Who pays whom, until all are square: the seat owing most pays the seat owed most
    (lower seats first on ties), or each debtor in seat order pays the creditors in seat order."""
    if method is Settlement.DEBTORS_PAY_CREDITORS_IN_SEAT_ORDER:
        return _in_seat_order(list(scores), rate)
    balance = list(scores)
    payments: list[Payment] = []
    while True:
        debtor = min(range(len(balance)), key=lambda s: (balance[s], s))
        creditor = min(range(len(balance)), key=lambda s: (-balance[s], s))
        if balance[debtor] >= 0 or balance[creditor] <= 0:
            return payments
        points = min(-balance[debtor], balance[creditor])
        balance[debtor] += points
        balance[creditor] -= points
        payments.append(
            Payment(debtor, creditor, points, (rate * points).quantize(Decimal("0.01")))
        )


def _in_seat_order(balance: list[int], rate: Decimal) -> list[Payment]:
    payments: list[Payment] = []
    for debtor in range(len(balance)):
        for creditor in range(len(balance)):
            if balance[debtor] >= 0:
                break
            if balance[creditor] <= 0:
                continue
            points = min(-balance[debtor], balance[creditor])
            balance[debtor] += points
            balance[creditor] -= points
            payments.append(
                Payment(debtor, creditor, points, (rate * points).quantize(Decimal("0.01")))
            )
    return payments
