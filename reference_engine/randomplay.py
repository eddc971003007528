"""Random play through the Python API, for property tests and benchmarks."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from .actions import Call, PickDeck, PickOffer, ThrowCards
from .cards import DECK
from .game import Game, Phase
from .rules import GameEndKind


def play_random_game(
    document: Mapping[str, Any],
    seats: int,
    rng: random.Random,
    options: Mapping[str, Any] | None = None,
    max_rounds: int = 50,
    call_chance: float = 0.5,
) -> tuple[Game, int]:
    """Play one game with a random policy; returns the game and the turns taken.

    An open table (ended by the host) is ended after ``max_rounds`` hands.
    """
    game = Game(document, seats, options)
    turns = 0
    while game.phase is not Phase.GAME_OVER:
        if game.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
            if game.round >= max_rounds and game.rules.game_end is GameEndKind.HOST_ENDS:
                game.end_game()
                break
            deck = list(DECK)
            rng.shuffle(deck)
            game.deal(deck)
        elif game.phase is Phase.AWAITING_RESHUFFLE:
            pile = list(game.out_of_play)
            rng.shuffle(pile)
            game.reshuffle(pile)
        else:
            legal = game.legal_actions()
            assert legal is not None
            if legal.call and rng.random() < call_chance:
                game.act(legal.seat, Call())
            elif legal.throws:
                # Lean towards big throws (the longer of two picks) so that rounds end.
                one, two = rng.choice(legal.throws), rng.choice(legal.throws)
                cards = list(one if len(one) >= len(two) else two)
                rng.shuffle(cards)
                game.act(legal.seat, ThrowCards(tuple(cards)))
            elif legal.pick_offer and rng.random() < 0.5:
                low = min(legal.pick_offer, key=lambda c: c.rank)
                game.act(legal.seat, PickOffer(low))
            else:
                game.act(legal.seat, PickDeck())
                turns += 1
                continue
            if game.phase is not Phase.PICK:
                turns += 1
    return game, turns
