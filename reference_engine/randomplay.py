"""Random play through the Python API, for property tests, benchmarks and recordings."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from jhyap_core.cards import Card, names
from jhyap_core.vocabulary import Phase

from .actions import Action, Call, PickDeck, PickOffer, ThrowCards, action_to_json
from .game import Event, Game, LegalActions
from .rules import GameEndKind

Request = dict[str, Any]


def deal_order(game: Game, rng: random.Random) -> list[Card]:
    """A shuffled deck for the next deal."""
    deck = list(game.full_deck)
    rng.shuffle(deck)
    return deck


def reshuffle_order(game: Game, rng: random.Random) -> list[Card]:
    """A shuffled order of the cards the reshuffle makes into the new deck."""
    pile = list(game.out_of_play)
    rng.shuffle(pile)
    return pile


def random_step(
    game: Game, rng: random.Random, max_rounds: int = 50, call_chance: float = 0.5
) -> tuple[Request, list[Event]]:
    """Advance ``game`` by one request chosen at random among the legal ones.

    Deals and reshuffles use random orders; an open table (ended by the host) is ended
    after ``max_rounds`` hands. Returns the request as the protocol would carry it
    (without ``seq``) and the events it produced.
    """
    if game.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
        if game.round >= max_rounds and game.rules.game_end.kind is GameEndKind.HOST_ENDS:
            return {"cmd": "end_game"}, game.end_game()
        deck = deal_order(game, rng)
        return {"cmd": "deal", "deck": names(deck)}, game.deal(deck)
    if game.phase is Phase.AWAITING_RESHUFFLE:
        pile = reshuffle_order(game, rng)
        return {"cmd": "reshuffle", "order": names(pile)}, game.reshuffle(pile)
    legal = game.legal_actions()
    assert legal is not None
    action = random_action(legal, rng, call_chance)
    request = {"cmd": "act", "seat": legal.seat, "action": action_to_json(action)}
    return request, game.act(legal.seat, action)


def random_action(legal: LegalActions, rng: random.Random, call_chance: float = 0.5) -> Action:
    """Any legal action, leaning towards long throws (the longer of two picks) so hands end."""
    if legal.call and rng.random() < call_chance:
        return Call()
    if legal.throws:
        one, two = rng.choice(legal.throws), rng.choice(legal.throws)
        cards = list(one if len(one) >= len(two) else two)
        rng.shuffle(cards)
        return ThrowCards(tuple(cards))
    if legal.pick_offer and rng.random() < 0.5:
        return PickOffer(rng.choice(legal.pick_offer))
    return PickDeck()


def ends_turn(request: Request) -> bool:
    """Whether a request made by random_step completed a turn (a call, or a pick)."""
    return request["cmd"] == "act" and request["action"]["type"] in ("call", "pick")


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
        request, _ = random_step(game, rng, max_rounds, call_chance)
        turns += ends_turn(request)
    return game, turns
