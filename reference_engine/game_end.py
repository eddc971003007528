"""When a game ends, who wins, the standings, and the settlement in money."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from .rules import GameEndKind, Rules, ScoringKind, Settlement


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
    if rules.game_end is not GameEndKind.ELIMINATION or rules.out_above is None:
        return []
    limit = rules.out_above
    if rules.reaching_is_out:
        out = [s for s in sorted(active) if scores[s] >= limit]
    else:
        out = [s for s in sorted(active) if scores[s] > limit]
    if out and len(out) == len(active):
        # Everyone still in went over together (a hand where all seats score): the lowest stay.
        lowest = min(scores[s] for s in active)
        out = [s for s in out if scores[s] != lowest]
    return out


def past_target(scores: Sequence[int], active: Sequence[int], rules: Rules) -> bool:
    """Whether a seat in play has passed the target (or reached it, where that counts)."""
    limit = rules.out_above
    assert limit is not None
    if rules.reaching_is_out:
        return any(scores[s] >= limit for s in active)
    return any(scores[s] > limit for s in active)


def game_over_after_round(
    round_number: int, scores: Sequence[int], active: Sequence[int], rules: Rules
) -> bool:
    if rules.game_end is GameEndKind.ONE_HAND:
        return True
    if rules.game_end is GameEndKind.FIRST_PAST_TARGET:
        return past_target(scores, active, rules)
    if rules.game_end is GameEndKind.ELIMINATION:
        return len(active) <= 1
    if rules.game_end is GameEndKind.FIXED_ROUNDS:
        return rules.rounds is not None and round_number >= rules.rounds
    return False


def winners(scores: Sequence[int], active: Sequence[int], rules: Rules) -> list[int]:
    """The seats that win (docs/protocol.md, "Game result"): always the first seats of the
    standings. The last seat in after an elimination; after fixed rounds every seat still in
    with the best total, the highest under transfer scoring and the lowest under penalty
    scoring; the same after a game that ends when a total passes its target; none at an
    open table, whose result is its settlement."""
    if rules.game_end is GameEndKind.ELIMINATION:
        return sorted(active)
    if rules.game_end in (GameEndKind.FIXED_ROUNDS, GameEndKind.FIRST_PAST_TARGET):
        pick = max if rules.scoring is ScoringKind.TRANSFER else min
        best = pick(scores[s] for s in active)
        return [s for s in sorted(active) if scores[s] == best]
    return []


def standings(scores: Sequence[int], out_in_round: Mapping[int, int], rules: Rules) -> list[int]:
    """Seats from best to worst (docs/protocol.md, "Game result").

    Seats still in come first, by score (higher first under transfer scoring, lower
    first under penalty scoring); then the seats that are out, the later round first,
    then by score the same way. Equal places go to the lower seat number.
    """
    sign = -1 if rules.scoring is ScoringKind.TRANSFER else 1
    return sorted(
        range(len(scores)), key=lambda s: (-out_in_round.get(s, 1 << 30), sign * scores[s], s)
    )


def hand_winners(last_round: Mapping[str, Any]) -> list[int]:
    """A one-hand game's winners: the hand's winner, or, when the hand ended with no call
    (the deck ran out), every seat with the lowest hand value."""
    if last_round.get("winner") is not None:
        return [int(last_round["winner"])]
    values = {s: v for s, v in enumerate(last_round["hand_values"]) if v is not None}
    lowest = min(values.values())
    return [s for s, v in sorted(values.items()) if v == lowest]


def hand_standings(last_round: Mapping[str, Any]) -> list[int]:
    """A one-hand game's standings: its winners, then by hand value, the lower seat first
    on equal values."""
    first = hand_winners(last_round)
    values = last_round["hand_values"]
    rest = sorted(
        (s for s in range(len(values)) if s not in first),
        key=lambda s: (values[s] is None, values[s] or 0, s),
    )
    return [*first, *rest]


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
        settlement(scores, rules.dollars_per_point, rules.settlement)
        if rules.dollars_per_point is not None
        else None
    )
    if rules.game_end is GameEndKind.ONE_HAND and last_round is not None:
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
