"""A kit binding of a Dashain table whose first hand starts at seat 1, not seat 0.

Its rules are the Dashain table's (specs/dashain.yaml) but for who starts:
tests/data/variants/dashain-first-starter-1.yaml declares them. Every transcript of the
corpus opens with a move by seat 0; run under that profile, each derived case is
re-seated (docs/readings.md) so that its moves are played by the seats this table gives
them, and judged to its end:

    jhyap run --engine "python tests/kit_engines/seat_one.py" \\
        --profile tests/data/variants/dashain-first-starter-1.yaml

The card play is written here from the rule texts, not taken from the reference engine:
throws, hand values, when a call is allowed, the showdown, transfer scoring and the
settlement. The kit plays the table procedure (the deal from the starter, turns, the
offer, reshuffles).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any, ClassVar

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from jhyap_kit import (
    ANY,
    KIT_RULES,
    Action,
    Call,
    Deal,
    ErrorCode,
    Refusal,
    RoundScore,
    RuleSupport,
    Throw,
    ThrowKind,
    TrackedEngine,
    main,
)

RANKS = "A23456789TJQK"
# The Dashain table's rules, as rule parameters; seat 1 starts the first hand.
PLAYS = {
    "seats": {"min": 2, "max": 6},
    "deck.cards": 52,
    "deck.jokers": 0,
    "hand_size": 5,
    "card_values": {rank: RANKS.index(rank) + 1 for rank in RANKS},
    "direction": "left",
    "deal.dealer": "seat_before_starter",
    "deal.first_starter": 1,
    "next_starter": "next_seat",
    "throws.set": {"min": 2, "max": 4},
    "throws.run": {"min": 3, "ace": "low"},
    "throws.order_matters": False,
    "pick.from_offer": "run_ends",
    "call.inclusive": True,
    "call.timing": "start_of_turn",
    "showdown": {"tie": "beats_caller", "winner_among_lowest": "first_after_caller"},
    "scoring": {
        "kind": "transfer",
        "won_call": "each_other_hand",
        "beaten_call": "hands_except_winner",
        "beaten_penalty": 0,
    },
    "game_end": {"kind": "host_ends", "rounds": None, "out_above": None},
    "money.settlement": "largest_debtor_pays_largest_creditor",
}
# The host may set the call limit, when the first call is allowed, the money per point
# and the turn timer (the Dashain table's options).
HOST_SET = {"call.limit": ANY, "call.first_round": ANY, "money.dollars_per_point": ANY}


def rank(card: str) -> int:
    return RANKS.index(card[0]) + 1


def throw_kind(cards: Sequence[str]) -> ThrowKind | None:
    """A single card; a set of two to four of one rank; a run of three or more in one
    suit, aces low, in any order placed. None: no legal throw."""
    if len(cards) == 1:
        return ThrowKind.SINGLE
    if 2 <= len(cards) <= 4 and len({rank(c) for c in cards}) == 1:
        return ThrowKind.SET
    ranks = sorted(rank(c) for c in cards)
    in_sequence = ranks == list(range(ranks[0], ranks[0] + len(ranks)))
    if len(cards) >= 3 and len({c[1] for c in cards}) == 1 and in_sequence:
        return ThrowKind.RUN
    return None


class SeatOneDashain(TrackedEngine):
    NAME, VERSION = "kit-seat-one-dashain", "1.0"
    RULES: ClassVar[RuleSupport] = {
        **KIT_RULES,
        **{path: (value,) for path, value in PLAYS.items()},
        **HOST_SET,
        "turn_timer": ANY,
    }

    def begin_game(self, rules: Mapping[str, Any], seats: int) -> None:
        self.begin_hand(None)

    def begin_hand(self, deal: Deal | None) -> None:
        call = self.rules["call"]
        self.limit = int(call["limit"])  # a host's change applies from the next hand
        self.first_round_locked = call["first_round"] == "after_every_player_had_a_turn"
        money = self.rules.get("money") or {}
        self.rate = Decimal(str(money["dollars_per_point"])) if money else None

    def refusal(self, seat: int, action: Action) -> Refusal | None:
        table = self.table
        assert table is not None
        if isinstance(action, Call):
            if self.first_round_locked and table.turns_taken < len(table.active):
                return Refusal(ErrorCode.CALL_TOO_EARLY, "everybody plays a turn first")
            if self.hand_value(table.hands[seat]) > self.limit:
                return Refusal(ErrorCode.CALL_OVER_LIMIT, f"a call needs {self.limit} or less")
        if isinstance(action, Throw) and throw_kind(action.cards) is None:
            return Refusal(ErrorCode.ILLEGAL_THROW, "not a single, a set or a run")
        return None

    def on_throw(self, seat: int, cards: tuple[str, ...]) -> ThrowKind:
        kind = throw_kind(cards)
        assert kind is not None
        return kind

    def hand_value(self, cards: Sequence[str]) -> int:
        return sum(rank(card) for card in cards)

    def score_round(self, caller: int | None, hand_values: Sequence[int | None]) -> RoundScore:
        table = self.table
        assert table is not None and caller is not None  # the deck is reshuffled, never out
        seats = table.seats
        values = {s: v for s, v in enumerate(hand_values) if v is not None}
        # The others in turn order from the seat after the caller.
        others = [(caller + step) % seats for step in range(1, seats)]
        others = [s for s in others if s in values]
        lowest = min(values[s] for s in others)
        deltas = [0] * seats
        if lowest <= values[caller]:  # a tie beats the caller; the first lowest wins
            winner = next(s for s in others if values[s] == lowest)
            amount = sum(values.values()) - values[winner]
            deltas[caller], deltas[winner] = -amount, amount
        else:
            winner = caller
            for seat in others:
                deltas[seat] = -values[seat]
            deltas[caller] = sum(values[s] for s in others)
        scores = tuple(score + delta for score, delta in zip(table.scores, deltas, strict=True))
        return RoundScore(winner, tuple(deltas), scores, ())

    def settlement(self, scores: Sequence[int]) -> list[dict[str, Any]] | None:
        """The seat owing most pays the seat owed most (lower seats first), until square."""
        if self.rate is None:
            return None
        balance = list(scores)
        paid: list[dict[str, Any]] = []
        while True:
            debtor = min(range(len(balance)), key=lambda s: (balance[s], s))
            creditor = min(range(len(balance)), key=lambda s: (-balance[s], s))
            if balance[debtor] >= 0 or balance[creditor] <= 0:
                return paid
            points = min(-balance[debtor], balance[creditor])
            balance[debtor] += points
            balance[creditor] -= points
            dollars = (self.rate * points).quantize(Decimal("0.01"))
            paid.append({"from": debtor, "to": creditor, "points": points, "dollars": str(dollars)})


if __name__ == "__main__":
    raise SystemExit(main(SeatOneDashain()))
