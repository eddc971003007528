"""Binds dhumbal_game.py, a console game written for people, to the conformance suite:
its loop runs in a thread; its players and its two shuffles take the harness's moves and cards."""

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).parent), str(Path(__file__).resolve().parents[2])]

import dhumbal_game as dg  # noqa: E402

import jhyap_kit as kit  # noqa: E402
from jhyap_kit import Call, Deal, ErrorCode, Source, Throw  # noqa: E402

SUITS = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
RANKS = "A23456789TJQK"
PLAYS = {  # the game's own rules, as rule parameters of a profile
    "seats": {"min": 2, "max": 5},
    "deck.jokers": 0,
    "card_values": {rank: RANKS.index(rank) + 1 for rank in RANKS},
    "next_starter": "round_winner",
    "throws.set": {"min": 2, "max": 4},
    "throws.run": {"min": 3, "ace": "low"},
    "throws.order_matters": False,
    "pick.from_offer": "any",
    "reshuffle.moment": "when_deck_emptied",
    "call.inclusive": True,
    "call.first_round": "allowed",
    "showdown": {"tie": "beats_caller", "winner_among_lowest": "first_after_caller"},
    "scoring.kind": "penalty",
    "scoring.won_call": "each_other_hand",
    "scoring.beaten_call": "caller_hand_plus_penalty",
    "scoring.beaten_penalty": dg.FAILED_SHOW_PENALTY,
    "game_end": {"kind": "elimination", "rounds": None, "out_above": dg.OUT_ABOVE},
    "money": None,
    "turn_timer": None,
}
SUPPORT = {**kit.KIT_RULES, **{path: (v,) for path, v in PLAYS.items()}, "call.limit": kit.ANY}
driver = kit.LoopDriver({"turn": ErrorCode.ILLEGAL_THROW, "draw": ErrorCode.PICK_NOT_ALLOWED})


def card(name: str) -> dg.Card:
    return dg.Card(RANKS.index(name[0]) + 1, SUITS[name[1]])


def cards(names: Sequence[str]) -> list[dg.Card]:
    return [card(name) for name in names]


class Seat(dg.Player):
    """A player whose every decision comes from the harness."""

    def __init__(self, seat: int) -> None:
        super().__init__(f"seat {seat}")
        self.seat = seat

    def choose_turn(self, game: dg.Game) -> tuple[str, list[dg.Card]]:
        move = driver.wait(self.seat, "turn")
        return ("show", []) if isinstance(move, Call) else ("discard", cards(move.cards))

    def choose_draw(self, game: dg.Game, pile: list[dg.Card]) -> dg.Card | None:
        move = driver.wait(self.seat, "draw")
        return None if move.source is Source.DECK else card(move.card)


class Table(dg.Game):
    """The game, its shuffles replaced by the cards the harness gives (top card first)."""

    def deal(self) -> None:
        deal: Deal = driver.wait(None, "deal")
        for seat, hand in enumerate(deal.hands):
            self.players[seat].hand = cards(hand)
        self.starter, self.pile, self.dead = deal.starter, [card(deal.turned_up)], []
        self.deck = cards(deal.stock)[::-1]  # the game draws from the end of its list

    def refill_deck(self) -> list[dg.Card]:
        return cards(driver.wait(None, "reshuffle"))[::-1]


class BoundDhumbal(kit.TrackedEngine):
    NAME, VERSION, RULES = "kitchen-dhumbal", "1.0", SUPPORT

    def begin_game(self, rules: Mapping[str, Any], seats: int) -> None:
        self.game = Table([Seat(s) for s in range(seats)], show_limit=rules["call"]["limit"])
        driver.start(self.game.play)

    def begin_hand(self, deal: Deal) -> None:
        driver.send(None, "deal", deal)

    def refusal(self, seat: int, action: kit.Action) -> kit.Refusal | None:
        if isinstance(action, Call) and not self.game.can_show(self.game.players[seat]):
            return kit.Refusal(ErrorCode.CALL_OVER_LIMIT, "the hand is over the show limit")
        if isinstance(action, Throw) and dg.discard_kind(cards(action.cards)) is None:
            return kit.Refusal(ErrorCode.ILLEGAL_THROW, "not a discard at this table")
        return None

    def on_call(self, seat: int) -> None:
        driver.send(seat, "turn", Call())

    def on_throw(self, seat: int, thrown: tuple[str, ...]) -> kit.ThrowKind:
        driver.send(seat, "turn", Throw(thrown))
        return kit.ThrowKind(str(dg.discard_kind(cards(thrown))))

    def on_pick(self, seat: int, taken: str, source: Source) -> None:
        driver.send(seat, "draw", kit.Pick(source, taken))

    def on_reshuffle(self, stock: tuple[str, ...]) -> None:
        driver.send(None, "reshuffle", stock)

    def hand_value(self, held: Sequence[str]) -> int:
        return dg.hand_points(cards(held))

    def score_round(self, caller: int | None, hand_values: Sequence[int | None]) -> kit.RoundScore:
        h = self.game.history[-1]  # the game's own summary of the round
        return kit.RoundScore(h.winner, tuple(h.points), tuple(h.scores), tuple(h.knocked_out))


if __name__ == "__main__":
    raise SystemExit(kit.main(BoundDhumbal()))
