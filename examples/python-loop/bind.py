"""Binds dhumbal_game.py, a console game written for people, to the conformance suite:
its loop runs in a thread; its players and its two shuffles take the harness's moves and cards.
"""

import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).parent), str(Path(__file__).resolve().parents[2])]

import dhumbal_game as dg  # noqa: E402

from jhyap_kit import ANY, KIT_RULES, Call, Deal, ErrorCode, LoopDriver, Pick, Refusal  # noqa: E402
from jhyap_kit import RoundScore, Throw, ThrowKind, TrackedEngine, main  # noqa: E402

SUITS = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
RANKS = "A23456789TJQK"
driver = LoopDriver(refused={"turn": ErrorCode.ILLEGAL_THROW, "draw": ErrorCode.PICK_NOT_ALLOWED})


def card(name: str) -> dg.Card:
    return dg.Card(RANKS.index(name[0]) + 1, SUITS[name[1]])


def cards(names: tuple[str, ...] | list[str]) -> list[dg.Card]:
    return [card(n) for n in names]


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
        return None if move.source == "deck" else card(move.card)


class Table(dg.Game):
    """The game with its shuffles replaced by the cards the harness gives."""

    def deal(self) -> None:
        deal: Deal = driver.wait(None, "deal")
        for seat, hand in enumerate(deal.hands):
            self.players[seat].hand = cards(hand)
        self.starter = deal.starter
        self.pile, self.dead = [card(deal.turned_up)], []
        self.deck = cards(deal.stock)[::-1]  # the game draws from the end of its list

    def refill_deck(self) -> list[dg.Card]:
        return cards(driver.wait(None, "reshuffle"))[::-1]


class BoundDhumbal(TrackedEngine):
    NAME, VERSION = "kitchen-dhumbal", "1.0"
    RULES = {
        **KIT_RULES,
        "seats": ({"min": 2, "max": 5},),
        "deck.jokers": (0,),
        "card_values": ({r: RANKS.index(r) + 1 for r in RANKS},),
        "next_starter": ("round_winner",),
        "throws": ({"set": {"min": 2, "max": 4}, "run": {"min": 3, "ace": "low"},
                    "order_matters": False},),
        "pick.from_offer": ("any",),
        "reshuffle.moment": ("when_deck_emptied",),
        "call.limit": ANY,
        "call.inclusive": (True,),
        "call.first_round": ("allowed",),
        "showdown": ({"tie": "beats_caller", "winner_among_lowest": "first_after_caller"},),
        "scoring": ({"kind": "penalty", "won_call": "each_other_hand",
                     "beaten_call": "caller_hand_plus_penalty", "beaten_penalty": 20},),
        "game_end": ({"kind": "elimination", "rounds": None, "out_above": 100},),
        "money": (None,),
        "turn_timer": (None,),
    }

    def begin_game(self, rules, seats):
        self.game = Table([Seat(s) for s in range(seats)], show_limit=rules["call"]["limit"])
        driver.start(self.game.play)

    def begin_hand(self, deal):
        driver.send(None, "deal", deal)

    def refusal(self, seat, action):
        player = self.game.players[seat]
        if isinstance(action, Call) and not self.game.can_show(player):
            return Refusal(ErrorCode.CALL_OVER_LIMIT, "hand over the show limit")
        if isinstance(action, Throw) and dg.discard_kind(cards(action.cards)) is None:
            return Refusal(ErrorCode.ILLEGAL_THROW, "not a discard at this table")
        return None

    def on_call(self, seat):
        driver.send(seat, "turn", Call())

    def on_throw(self, seat, thrown):
        driver.send(seat, "turn", Throw(thrown))
        return ThrowKind(dg.discard_kind(cards(thrown)))

    def on_pick(self, seat, taken, source):
        driver.send(seat, "draw", Pick(source, taken))

    def on_reshuffle(self, stock):
        driver.send(None, "reshuffle", stock)

    def hand_value(self, held):
        return dg.hand_points(cards(held))

    def score_round(self, caller, hand_values):
        last = self.game.history[-1]
        return RoundScore(last.winner, tuple(last.points), tuple(last.scores),
                          tuple(last.knocked_out))


if __name__ == "__main__":
    raise SystemExit(main(BoundDhumbal()))
