"""The reference engine with one rule deliberately broken, served over the protocol.

Usage: python tests/mutants/engine.py MUTANT. The conformance corpus must catch
every mutant: each breaks one rule family the way a real port might.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import itertools

from jhyap_core.cards import Card
from jhyap_core.table import Table, Throw
from jhyap_core.vocabulary import ErrorCode, Phase, ThrowKind
from reference_engine import calling, game_end, picking, scoring, server, throws
from reference_engine.actions import Action, ThrowCards
from reference_engine.game import Game
from reference_engine.rules import BeatenCall, NextStarter, PickFromOffer, Rules

_classify = throws.classify
_showdown = scoring.showdown
_pickable = picking.pickable_positions
_refusal = calling.call_refusal
_end_round = Game._end_round


def tie_to_caller() -> None:
    def showdown(
        values: Mapping[int, int], turn_order: Sequence[int], caller: int, rules: Rules
    ) -> scoring.Showdown:
        order = turn_order
        others = [s for s in order if s != caller]
        if min(values[s] for s in others) == values[caller]:
            # Wrongly lets the caller win a tie: scored as a won call.
            return scoring.Showdown(
                scoring.Outcome.WON_CALL,
                caller,
                caller,
                _won_call_deltas(values, order, caller, rules),
            )
        return _showdown(values, order, caller, rules)

    scoring.showdown = showdown


def _won_call_deltas(
    values: Mapping[int, int], order: Sequence[int], caller: int, rules: Rules
) -> dict[int, int]:
    others = [s for s in order if s != caller]
    deltas = dict.fromkeys(order, 0)
    sign = -1 if rules.scoring.kind.value == "transfer" else 1
    for s in others:
        deltas[s] = sign * values[s]
    if sign < 0:
        deltas[caller] = sum(values[s] for s in others)
    return deltas


def ace_high_runs() -> None:
    def classify(cards: Sequence[Card], rules: Rules) -> ThrowKind | None:
        kind = _classify(cards, rules)
        if kind is None and len(cards) >= 3 and len({c.suit for c in cards}) == 1:
            ranks = sorted(14 if c.rank == 1 else c.rank for c in cards)
            if all(b - a == 1 for a, b in itertools.pairwise(ranks)):
                return ThrowKind.RUN
        return kind

    throws.classify = classify


def two_card_runs() -> None:
    def classify(cards: Sequence[Card], rules: Rules) -> ThrowKind | None:
        if (
            len(cards) == 2
            and cards[0].suit == cards[1].suit
            and abs(cards[0].rank - cards[1].rank) == 1
        ):
            return ThrowKind.RUN
        return _classify(cards, rules)

    throws.classify = classify


def mixed_suit_runs() -> None:
    def classify(cards: Sequence[Card], rules: Rules) -> ThrowKind | None:
        kind = _classify(cards, rules)
        ranks = sorted(c.rank for c in cards)
        if (
            kind is None
            and len(cards) >= 3
            and all(b - a == 1 for a, b in itertools.pairwise(ranks))
        ):
            return ThrowKind.RUN
        return kind

    throws.classify = classify


def _pick_rule(rule: PickFromOffer, only_for: PickFromOffer) -> None:
    def pickable(offer: Throw, rules: Rules) -> tuple[int, ...]:
        if rules.picking.from_offer is only_for:
            return _pickable(offer, rules.with_values({"picking.from_offer": rule}))
        return _pickable(offer, rules)

    picking.pickable_positions = pickable


def dashain_run_middle() -> None:
    _pick_rule(PickFromOffer.ANY, PickFromOffer.RUN_ENDS)


def everestbuzz_any_card() -> None:
    _pick_rule(PickFromOffer.ANY, PickFromOffer.LAST_PLACED)


def dhumbal_run_ends() -> None:
    _pick_rule(PickFromOffer.RUN_ENDS, PickFromOffer.ANY)


def everestbuzz_first_placed() -> None:
    def pickable(offer: Throw, rules: Rules) -> tuple[int, ...]:
        if rules.picking.from_offer is PickFromOffer.LAST_PLACED:
            return (0,)
        return _pickable(offer, rules)

    picking.pickable_positions = pickable


def limit_exclusive() -> None:
    def refusal(
        hand_value: int, turns_taken: int, players: int, rules: Rules, seats: int | None = None
    ) -> ErrorCode | None:
        value, turns = hand_value, turns_taken
        limit = rules.calling.limit if seats is None else rules.calling.limit_for(seats)
        if value == limit:
            return ErrorCode.CALL_OVER_LIMIT
        return _refusal(value, turns, players, rules, seats)

    calling.call_refusal = refusal


def no_first_round_lock() -> None:
    def refusal(
        hand_value: int, turns_taken: int, players: int, rules: Rules, seats: int | None = None
    ) -> ErrorCode | None:
        return _refusal(hand_value, players, players, rules, seats)

    calling.call_refusal = refusal


def first_round_lock_everywhere() -> None:
    def refusal(
        hand_value: int, turns_taken: int, players: int, rules: Rules, seats: int | None = None
    ) -> ErrorCode | None:
        value, turns = hand_value, turns_taken
        if turns < players:
            return ErrorCode.CALL_TOO_EARLY
        return _refusal(value, turns, players, rules, seats)

    calling.call_refusal = refusal


def _beaten_model(model: BeatenCall, only_for: BeatenCall) -> None:
    def showdown(
        values: Mapping[int, int], turn_order: Sequence[int], caller: int, rules: Rules
    ) -> scoring.Showdown:
        order = turn_order
        if rules.scoring.beaten_call is only_for:
            rules = rules.with_values({"scoring.beaten_call": model})
        return _showdown(values, order, caller, rules)

    scoring.showdown = showdown


def dashain_beaten_pays_all_hands() -> None:
    _beaten_model(BeatenCall.ALL_HANDS, BeatenCall.HANDS_EXCEPT_WINNER)


def everestbuzz_busted_pays_except_winner() -> None:
    _beaten_model(BeatenCall.HANDS_EXCEPT_WINNER, BeatenCall.ALL_HANDS)


def penalty_30() -> None:
    def showdown(
        values: Mapping[int, int], turn_order: Sequence[int], caller: int, rules: Rules
    ) -> scoring.Showdown:
        order = turn_order
        if rules.scoring.beaten_penalty:
            rules = rules.with_values({"scoring.beaten_penalty": 30})
        return _showdown(values, order, caller, rules)

    scoring.showdown = showdown


def penalty_always_25() -> None:
    """A port that hard-codes Dhumbal's penalty for a beaten call: right under dhumbal,
    wrong under any ruleset that changes ``scoring.beaten_penalty``."""

    def showdown(
        values: Mapping[int, int], turn_order: Sequence[int], caller: int, rules: Rules
    ) -> scoring.Showdown:
        order = turn_order
        if rules.scoring.beaten_penalty:
            rules = rules.with_values({"scoring.beaten_penalty": 25})
        return _showdown(values, order, caller, rules)

    scoring.showdown = showdown


def out_at_100() -> None:
    def eliminated(scores: Sequence[int], active: Sequence[int], rules: Rules) -> list[int]:
        if rules.game_end.out_above is None:
            return []
        return [s for s in sorted(active) if scores[s] >= rules.game_end.out_above]

    game_end.eliminated_after = eliminated


def dealer_stays() -> None:
    def end_round(self: Game, caller: int) -> list[dict[str, Any]]:
        starter = self.starter
        events = _end_round(self, caller)
        if self.rules.turn.next_starter is NextStarter.NEXT_SEAT and starter in self.active:
            self.starter = starter
        return events

    Game._end_round = end_round  # type: ignore[method-assign, assignment]


def winner_does_not_start() -> None:
    def end_round(self: Game, caller: int) -> list[dict[str, Any]]:
        starter = self.starter
        events = _end_round(self, caller)
        if self.rules.turn.next_starter is NextStarter.ROUND_WINNER and self.active:
            self.starter = self.next_active(starter) if starter in self.active else self.starter
        return events

    Game._end_round = end_round  # type: ignore[method-assign, assignment]


def tie_break_by_seat_number() -> None:
    def showdown(
        values: Mapping[int, int], turn_order: Sequence[int], caller: int, rules: Rules
    ) -> scoring.Showdown:
        order = turn_order
        return _showdown(values, sorted(order), caller, rules)

    scoring.showdown = showdown


def call_after_throwing() -> None:
    original = Game._call

    def call(self: Game, seat: int) -> list[dict[str, Any]]:
        if self.phase is Phase.PICK:
            assert self.thrown is not None
            self.hands[seat].extend(self.thrown.cards)
            self.thrown = None
            self.phase = Phase.CALL_OR_THROW
        return original(self, seat)

    Game._call = call  # type: ignore[method-assign, assignment]


def reshuffle_keeps_nothing_aside() -> None:
    original = Game._pick

    def pick(self: Game, seat: int, card: Card | None) -> list[dict[str, Any]]:
        events = original(self, seat, card)
        if self.phase is Phase.AWAITING_RESHUFFLE and self.offer is not None:
            # Wrongly shuffles the throw just made into the new deck as well.
            self.out_of_play.extend(self.offer.cards)
            self.offer = Throw((), ThrowKind.SINGLE)
            events[-1]["cards"] = sorted(
                (c.name for c in self.out_of_play),
                key=lambda n: "A23456789TJQK".index(n[0]) * 4 + "cdhs".index(n[1]),
            )
        return events

    Game._pick = pick  # type: ignore[method-assign, assignment]


def everestbuzz_reshuffle_at_next_draw() -> None:
    """An engine written from the EverestBuzz document that reads its reshuffle the other way:
    when a draw finds the deck empty, keeping aside this throw and the previous top card."""
    from dataclasses import replace

    from jhyap_core.table import TableRules
    from reference_engine.rules import KeptAside, ReshuffleMoment

    original = Rules.from_profile
    original_read = TableRules.read

    def from_profile(profile: Mapping[str, Any]) -> Rules:
        return original(profile).with_values(
            {
                "reshuffle.moment": ReshuffleMoment.WHEN_DRAW_FINDS_DECK_EMPTY,
                "reshuffle.kept_aside": KeptAside.PICKABLE_AND_THROW,
            }
        )

    def read(rules: Mapping[str, Any]) -> TableRules:
        # The table procedure reads the reshuffle itself (TableRules.read).
        return replace(
            original_read(rules),
            reshuffle_moment=ReshuffleMoment.WHEN_DRAW_FINDS_DECK_EMPTY.value,
            kept_aside=KeptAside.PICKABLE_AND_THROW.value,
        )

    Rules.from_profile = from_profile  # type: ignore[method-assign]
    TableRules.read = read  # type: ignore[method-assign]


def house_rule_ignored() -> None:
    Table.offer_open_to = lambda self, seat: True  # type: ignore[method-assign]


def deal_in_blocks() -> None:
    original = Game.deal

    def deal(
        self: Game,
        order: Sequence[Card],
        layout: tuple[list[list[Card]], Card, list[Card]] | None = None,
    ) -> list[dict[str, Any]]:
        seats = self.turn_order_from(self.starter)
        size = self.rules.deal.hand_size
        n = len(seats)
        head = list(order[: size * n])
        # Deals five to each seat in turn instead of one card at a time.
        dealt = [head[(i % n) * size + i // n] for i in range(size * n)]
        return original(self, dealt + list(order[size * n :]), layout)

    Game.deal = deal  # type: ignore[method-assign, assignment]


def refusal_changes_state() -> None:
    # Game.act puts the state back on any exception: the damage is done outside it.
    original = Game.act

    def act(self: Game, seat: int, action: Action) -> list[dict[str, Any]]:
        try:
            return original(self, seat, action)
        except Exception:
            if isinstance(action, ThrowCards):
                self.turns_taken += 1
            raise

    Game.act = act  # type: ignore[method-assign]


def one_seat_too_many() -> None:
    original = Game.__init__

    def init(
        self: Game,
        profile_document: Mapping[str, Any],
        seats: int,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        from copy import deepcopy

        widened = deepcopy(dict(profile_document))
        widened["rules"]["seats"]["max"] += 1  # lets one player too many sit down
        original(self, widened, seats, options)

    Game.__init__ = init  # type: ignore[method-assign]


# -- raw lines: the protocol's transport and order of checks -----------------------------


def non_json_seq_zero() -> None:
    # Answers a line that is not JSON with seq 0 instead of null.
    original = server.Session.handle

    class NotJson:
        pass

    def decode_request(line: bytes) -> Any:
        try:
            return server.bounded_json.loads(line)
        except ValueError:
            return NotJson()

    def handle(self: server.Session, request: Any) -> dict[str, Any]:
        if isinstance(request, NotJson):
            return {
                "seq": 0,
                "ok": False,
                "error": {"code": ErrorCode.BAD_REQUEST.value, "message": "not JSON"},
            }
        return original(self, request)

    server.decode_request = decode_request
    server.Session.handle = handle  # type: ignore[method-assign, assignment]


def unknown_command_bad_request() -> None:
    # Answers a command name it does not know with bad_request, not unknown_command.
    original = server.Session.handle

    def handle(self: server.Session, request: Any) -> dict[str, Any]:
        response = original(self, request)
        error = response.get("error") or {}
        if error.get("code") == ErrorCode.UNKNOWN_COMMAND.value:
            error["code"] = ErrorCode.BAD_REQUEST.value
        return response

    server.Session.handle = handle  # type: ignore[method-assign, assignment]


def string_seq_echoed() -> None:
    # Refuses a request whose seq is a string, but echoes that string instead of null.
    original = server.Session.handle

    def handle(self: server.Session, request: Any) -> dict[str, Any]:
        response = original(self, request)
        if isinstance(request, dict) and isinstance(request.get("seq"), str):
            response["seq"] = request["seq"]
        return response

    server.Session.handle = handle  # type: ignore[method-assign, assignment]


MUTANTS: dict[str, Callable[[], None]] = {
    f.__name__: f
    for f in (
        tie_to_caller,
        ace_high_runs,
        two_card_runs,
        mixed_suit_runs,
        dashain_run_middle,
        everestbuzz_any_card,
        everestbuzz_first_placed,
        dhumbal_run_ends,
        limit_exclusive,
        no_first_round_lock,
        first_round_lock_everywhere,
        dashain_beaten_pays_all_hands,
        everestbuzz_busted_pays_except_winner,
        penalty_30,
        penalty_always_25,
        out_at_100,
        dealer_stays,
        winner_does_not_start,
        tie_break_by_seat_number,
        call_after_throwing,
        reshuffle_keeps_nothing_aside,
        everestbuzz_reshuffle_at_next_draw,
        house_rule_ignored,
        deal_in_blocks,
        refusal_changes_state,
        one_seat_too_many,
        non_json_seq_zero,
        unknown_command_bad_request,
        string_seq_echoed,
    )
}


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in MUTANTS:
        print(f"usage: engine.py MUTANT; mutants: {', '.join(MUTANTS)}", file=sys.stderr)
        raise SystemExit(2)
    MUTANTS[sys.argv[1]]()
    raise SystemExit(server.main())
