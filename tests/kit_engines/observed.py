"""A kit binding of an engine that keeps its own hands and its own starter, and reports
them through the kit's observation hooks (docs/kit.md, "Observation hooks").

The card play is the reference's rule functions (tests/kit_engines/object_api.py); on top
of it the engine holds each seat's hand (dealt, thrown, picked, put out) and decides who
starts the next hand. ``observed_hands`` and ``observed_starter`` give the kit the engine's
own values, so what it decided is judged as the engine's: the kit reports the engine's
hands in ``state`` and ``dealt``, and follows its starter.

Two planted bugs, in what the kit used to decide for it:

- ``--own-card-back``: a pick from the offer gives the seat back the top card of the throw
  it has just made, not the card it took;
- ``--wrong-starter``: the start never passes on: the seat that started a hand starts the
  next one too (while it is still in).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from jhyap_kit import (
    Action,
    Deal,
    ErrorCode,
    Refusal,
    RoundScore,
    Source,
    Throw,
    ThrowKind,
    main,
)
from tests.kit_engines.object_api import ObjectApiEngine

OWN_CARD_BACK = "--own-card-back" in sys.argv
WRONG_STARTER = "--wrong-starter" in sys.argv


class ObservedEngine(ObjectApiEngine):
    NAME, VERSION = "kit-observed", "1.0"

    def begin_game(self, rules: Mapping[str, Any], seats: int) -> None:
        super().begin_game(rules, seats)
        self.seats = seats
        self.active = list(range(seats))
        self.hands: list[list[str]] = [[] for _ in range(seats)]
        self.starter = 0
        self.next_starter = 0
        self.just_thrown: tuple[str, ...] = ()

    def begin_hand(self, deal: Deal) -> None:
        super().begin_hand(deal)
        self.hands = [list(hand) for hand in deal.hands]
        self.starter = self.next_starter = deal.starter

    def refusal(self, seat: int, action: Action) -> Refusal | None:
        if isinstance(action, Throw):
            # The engine's own hand check, on the hand it holds.
            missing = Counter(action.cards) - Counter(self.hands[seat])
            if missing:
                return Refusal(ErrorCode.CARD_NOT_IN_HAND, f"seat {seat} does not hold that")
        return super().refusal(seat, action)

    def on_throw(self, seat: int, cards: tuple[str, ...]) -> ThrowKind:
        for card in cards:
            self.hands[seat].remove(card)
        self.just_thrown = cards
        return super().on_throw(seat, cards)

    def on_pick(self, seat: int, card: str, source: Source) -> None:
        if OWN_CARD_BACK and source is Source.OFFER:
            card = self.just_thrown[-1]  # the planted bug: its own card back
        self.hands[seat].append(card)

    def score_round(self, caller: int | None, hand_values: Sequence[int | None]) -> RoundScore:
        score = super().score_round(caller, hand_values)
        self.next_starter = self._next_starter(caller, score.winner, score.eliminated)
        for seat in score.eliminated:
            self.active.remove(seat)
            self.hands[seat] = []  # a seat that is out holds no cards
        if self.next_starter not in self.active:
            self.next_starter = self._seat_after(self.next_starter)
        return score

    def _next_starter(self, caller: int | None, winner: int | None, out: Sequence[int]) -> int:
        if WRONG_STARTER:
            return self.starter  # the planted bug: the start stays where it was
        rule = self.rules["next_starter"]
        if winner is not None and winner not in out:
            if rule == "round_winner":
                return winner
            if rule == "seat_after_round_winner":
                return self._seat_after(winner)
        if rule == "caller" and caller is not None and caller not in out:
            return caller
        return self._seat_after(self.starter)

    def _seat_after(self, seat: int) -> int:
        after = ((seat + step) % self.seats for step in range(1, self.seats + 1))
        return next(s for s in after if s in self.active)

    # -- what the engine decided, reported to the kit ------------------------------------

    def observed_hands(self) -> Sequence[Sequence[str]]:
        return self.hands

    def observed_starter(self) -> int:
        return self.next_starter


if __name__ == "__main__":
    raise SystemExit(main(ObservedEngine()))
