"""A kit binding of an engine with an object API: the reference engine's rule functions.

Here the "engine" is a set of plain functions (classify a throw, may this hand call, settle
a showdown, cut a score, who is out, the settlement): the shape of an object-API engine,
each hook a few lines. The kit does all the bookkeeping, so the whole corpus run against
this binding, under every shipped profile, tests the kit's bookkeeping against the oracles.

With ``--accept-illegal-throws`` the binding wrongly accepts every throw (as a single):
the corpus must catch it.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from jhyap_core.cards import parse_cards
from jhyap_core.table import Throw as PlacedThrow
from jhyap_core.vocabulary import ErrorCode
from jhyap_kit import (
    ANY,
    Action,
    Call,
    Deal,
    Refusal,
    RoundScore,
    Throw,
    ThrowKind,
    TrackedEngine,
    main,
)
from reference_engine import calling, game_end, picking, scoring, throws
from reference_engine.rules import Rules

SLOPPY = "--accept-illegal-throws" in sys.argv


class ObjectApiEngine(TrackedEngine):
    NAME, VERSION = "kit-object-api", "1.0"
    # Every rule parameter, any value: the reference rules play them all.
    RULES = dict.fromkeys(
        [
            "seats",
            "deck",
            "hand_size",
            "card_values",
            "direction",
            "deal",
            "next_starter",
            "throws",
            "pick",
            "reshuffle",
            "call",
            "showdown",
            "scoring",
            "game_end",
            "money",
            "turn_timer",
            "deck_runs_out",
            "deck_runs_out_when",
        ],
        ANY,
    )

    def begin_game(self, rules: Mapping[str, Any], seats: int) -> None:
        self.model = Rules.from_profile({"rules": rules})

    def begin_hand(self, deal: Deal) -> None:
        self.model = Rules.from_profile({"rules": self.rules})  # set_option applies now

    def refusal(self, seat: int, action: Action) -> Refusal | None:
        assert self.table is not None
        hand = self.table.hands[seat]
        if isinstance(action, Call):
            code = calling.call_refusal(
                self.hand_value(hand), self.table.turns_taken, len(self.table.active), self.model
            )
            return Refusal(code, "no call") if code is not None else None
        cards = parse_cards(list(action.cards)) if isinstance(action, Throw) else []
        if cards and not SLOPPY and throws.classify(cards, self.model) is None:
            return Refusal(ErrorCode.ILLEGAL_THROW, "not a single, set or run")
        if (
            cards
            and not SLOPPY
            and throws.joker_alone_refused(cards, parse_cards(list(hand)), self.model)
        ):
            return Refusal(ErrorCode.ILLEGAL_THROW, "no joker alone")
        if (
            cards
            and not SLOPPY
            and throws.single_refused(cards, parse_cards(list(hand)), self.model)
        ):
            return Refusal(ErrorCode.ILLEGAL_THROW, "no single now")
        if cards and not SLOPPY and throws.out_of_order(cards, self.model):
            return Refusal(ErrorCode.ILLEGAL_THROW, "a run is placed lowest first")
        return None

    def on_throw(self, seat: int, cards: tuple[str, ...]) -> ThrowKind:
        kind = throws.classify(parse_cards(list(cards)), self.model)
        return ThrowKind(kind.value) if kind is not None else ThrowKind.SINGLE

    def laid(self, cards: tuple[str, ...], kind: ThrowKind) -> tuple[str, ...]:
        return tuple(c.name for c in throws.laid(parse_cards(list(cards)), kind, self.model))

    def hand_value(self, cards: Sequence[str]) -> int:
        return self.model.cards.hand_value(parse_cards(list(cards)))

    def pickable_positions(self, offer: tuple[str, ...], kind: ThrowKind) -> tuple[int, ...]:
        placed = PlacedThrow(tuple(parse_cards(list(offer))), kind)
        return picking.pickable_positions(placed, self.model)

    def score_round(self, caller: int | None, hand_values: Sequence[int | None]) -> RoundScore:
        assert self.table is not None
        table, model = self.table, self.model
        values = {s: v for s, v in enumerate(hand_values) if v is not None}
        winner: int | None = None
        if caller is not None:
            order = table.turn_order_from(table.next_active(caller))
            result = scoring.showdown(values, order, caller, model)
            winner, deltas = result.winner, dict(result.deltas)
        else:
            scored = model.reshuffle.deck_runs_out.value == "round_ends_hands_score"
            deltas = {s: (values[s] if scored else 0) for s in table.active}
        totals = list(table.scores)
        for seat, delta in deltas.items():
            totals[seat] += delta
            if delta:
                added = scoring.hand_added(seat, values, caller, winner, model)
                totals[seat] = scoring.cut_score(totals[seat], scoring.cut_rules(added, model))
        out = game_end.eliminated_after(totals, table.active, model)
        per_seat = tuple(deltas.get(s, 0) for s in range(table.seats))
        return RoundScore(winner, per_seat, tuple(totals), tuple(out))

    def settlement(self, scores: Sequence[int]) -> list[dict[str, Any]] | None:
        rate = self.model.money.dollars_per_point
        if rate is None:
            return None
        paid = game_end.settlement(scores, rate, self.model.money.settlement)
        return [payment.to_json() for payment in paid]


if __name__ == "__main__":
    raise SystemExit(main(ObjectApiEngine()))
