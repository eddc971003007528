"""Random play through the Python API, for property tests and benchmarks."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from .actions import Call, PickDeck, PickOffer, ThrowCards
from .cards import DECK
from .game import Game, Phase
from .rules import GameEndKind


def random_step(
    game: Game, rng: random.Random, max_rounds: int = 50, call_chance: float = 0.5
) -> bool:
    """Advance ``game`` by one request chosen at random among the legal ones.

    Deals and reshuffles use random orders; an open table (ended by the host) is ended
    after ``max_rounds`` hands. Returns True when the step completed a turn.
    """
    if game.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
        if game.round >= max_rounds and game.rules.game_end is GameEndKind.HOST_ENDS:
            game.end_game()
            return False
        deck = list(DECK)
        rng.shuffle(deck)
        game.deal(deck)
        return False
    if game.phase is Phase.AWAITING_RESHUFFLE:
        pile = list(game.out_of_play)
        rng.shuffle(pile)
        game.reshuffle(pile)
        return False
    legal = game.legal_actions()
    assert legal is not None
    if legal.call and rng.random() < call_chance:
        game.act(legal.seat, Call())
        return True
    if legal.throws:
        # Lean towards big throws (the longer of two picks) so that rounds end.
        one, two = rng.choice(legal.throws), rng.choice(legal.throws)
        cards = list(one if len(one) >= len(two) else two)
        rng.shuffle(cards)
        game.act(legal.seat, ThrowCards(tuple(cards)))
        return False
    if legal.pick_offer and rng.random() < 0.5:
        game.act(legal.seat, PickOffer(rng.choice(legal.pick_offer)))
    else:
        game.act(legal.seat, PickDeck())
    return True


def play_random_game(
    document: Mapping[str, Any],
    seats: int,
    rng: random.Random,
    options: Mapping[str, Any] | None = None,
    max_rounds: int = 50,
    call_chance: float = 0.5,
) -> tuple[Game, int]:
    """Play one game with the random policy; returns the game and the turns taken."""
    game = Game(document, seats, options)
    turns = 0
    while game.phase is not Phase.GAME_OVER:
        turns += random_step(game, rng, max_rounds, call_chance)
    return game, turns
