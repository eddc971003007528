"""Players for simulations: plain functions from what one seat can see to an action.

A policy is ``Callable[[PublicView, random.Random], Action]``. It is handed a
``PublicView``: the seat's own hand and what everybody at the table sees (the
offer, the cards out of play, hand sizes, scores, the cards other players took
from the offer and still hold). It never sees another hand, the deck's order or
what another player drew. ``TableMemory`` builds views from the public events of
a game, so a researcher can plug in their own policy and play it with
``play_game``.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jhyap_core.cards import Card, parse_card
from jhyap_core.vocabulary import Phase

from . import picking
from .actions import Action, Call, PickDeck, PickOffer, ThrowCards
from .game import Event, Game, LegalActions
from .randomplay import deal_order, random_action, reshuffle_order
from .rules import GameEndKind, Rules


@dataclass(frozen=True, slots=True)
class PublicView:
    """What seat ``seat`` knows when it must act: nothing of other hands but what was shown."""

    seat: int
    hand: tuple[Card, ...]
    phase: Phase
    rules: Rules
    legal: LegalActions
    active: tuple[int, ...]
    hand_sizes: tuple[int, ...]  # by seat; 0 for a seat that is out
    scores: tuple[int, ...]
    round: int
    turns_taken: int
    offer: tuple[Card, ...]
    pickable: tuple[Card, ...]
    thrown: tuple[Card, ...]  # this turn's throw, before the pick
    multi_throwers: frozenset[int]  # seats that threw two or more cards together this hand
    out_of_play: tuple[Card, ...]
    known_held: tuple[tuple[Card, ...], ...]  # by seat: cards seen taken from the offer, still held
    all_cards: tuple[Card, ...]

    def value(self, cards: Iterable[Card]) -> int:
        return self.rules.cards.hand_value(cards)

    def unseen(self) -> list[Card]:
        """Cards this seat has not seen: in the deck or hidden in another hand."""
        # A multiset: with several packs a card can be both seen and unseen.
        left = Counter(self.all_cards)
        left.subtract([*self.hand, *self.offer, *self.thrown, *self.out_of_play])
        for cards in self.known_held:
            left.subtract(cards)
        return [c for c, n in left.items() for _ in range(max(0, n))]


Policy = Callable[[PublicView, random.Random], Action]


@dataclass
class TableMemory:
    """The public record of a hand: which offer cards each seat took and still holds."""

    seats: int
    known_held: list[list[Card]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.known_held = [[] for _ in range(self.seats)]

    def observe(self, events: Sequence[Event]) -> None:
        """Take in the public part of ``events`` (dealt hands and deck draws stay hidden)."""
        for event in events:
            kind = event["type"]
            if kind == "dealt":
                self.known_held = [[] for _ in range(self.seats)]
            elif kind == "picked" and event["from"] == "offer":
                self.known_held[event["seat"]].append(parse_card(event["card"]))
            elif kind == "thrown":
                held = self.known_held[event["seat"]]
                for name in event["cards"]:
                    card = parse_card(name)
                    if card in held:
                        held.remove(card)

    def view(self, game: Game) -> PublicView:
        """The view of the seat to act; reads only what that seat may see."""
        legal = game.legal_actions()
        if legal is None:
            raise ValueError(f"no seat is to act in phase {game.phase}")
        seat = legal.seat
        offer = game.offer
        rules = game.rules
        return PublicView(
            seat=seat,
            hand=tuple(game.hands[seat]),
            phase=game.phase,
            rules=rules,
            legal=legal,
            active=tuple(game.active),
            hand_sizes=tuple(
                len(game.hands[s]) if s in game.active else 0 for s in range(game.seats)
            ),
            scores=tuple(game.scores),
            round=game.round,
            turns_taken=game.turns_taken,
            offer=offer.cards if offer else (),
            pickable=picking.pickable_cards(offer, rules) if offer else (),
            thrown=game.thrown.cards if game.thrown else (),
            multi_throwers=frozenset(game.multi_throwers),
            out_of_play=tuple(game.out_of_play),
            known_held=tuple(tuple(h) for h in self.known_held),
            all_cards=tuple(game.full_deck),
        )


# -- the random policy -------------------------------------------------------


def random_policy(view: PublicView, rng: random.Random) -> Action:
    """Any legal action, leaning towards long throws so that hands end."""
    return random_action(view.legal, rng)


# -- the heuristic policy ------------------------------------------------------


def completes_group(card: Card, hand: Iterable[Card], rules: Rules) -> bool:
    """Whether ``card`` added to ``hand`` makes a set or a run that holds ``card``."""
    hand = list(hand)
    same_rank = sum(1 for c in hand if c.rank == card.rank)
    if same_rank + 1 >= max(2, rules.throws.set_min):
        return True
    ranks = {c.rank for c in hand if c.suit == card.suit} | {card.rank}
    low = high = card.rank
    while low - 1 in ranks:
        low -= 1
    while high + 1 in ranks:
        high += 1
    return high - low + 1 >= rules.throws.run_min


def chance_lowest(view: PublicView) -> float:
    """Estimated chance that every other hand is worth more than this seat's hand.

    Each other hand is its known cards plus cards drawn without replacement from the
    unseen ones; the sum is taken as normal (with a continuity correction) and the
    hands as independent.
    """
    mine = view.value(view.hand)
    pool = [view.rules.cards.card_value(c) for c in view.unseen()]
    if not pool:
        return 1.0
    size = len(pool)
    mean = sum(pool) / size
    variance = sum((v - mean) ** 2 for v in pool) / size
    chance = 1.0
    for seat in view.active:
        if seat == view.seat:
            continue
        known = view.known_held[seat]
        hidden = max(0, view.hand_sizes[seat] - len(known))
        expected = view.value(known) + hidden * mean
        spread = hidden * variance * (size - hidden) / (size - 1) if size > 1 else 0.0
        # A tie goes against the caller, so the other hand must be worth strictly more.
        if spread <= 0:
            chance *= 1.0 if expected > mine else 0.0
            continue
        z = (mine + 0.5 - expected) / math.sqrt(spread)
        chance *= 1.0 - 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))
    return chance


@dataclass(frozen=True, slots=True)
class Heuristic:
    """A sensible player: sheds high cards, keeps what the offer would complete, calls when
    it is probably lowest.

    ``call_threshold`` is the estimated chance of being lowest needed to call at the
    start of a hand; it drops by ``patience`` for each time round the table, since
    waiting for a surer call lets the others shed their cards too. ``low_card`` is the
    highest value worth taking from the offer for its own sake.
    """

    call_threshold: float = 0.6
    patience: float = 0.05
    low_card: int = 3

    def __call__(self, view: PublicView, rng: random.Random) -> Action:
        legal = view.legal
        if view.phase is Phase.CALL_OR_THROW:
            rounds = view.turns_taken // max(1, len(view.active))
            threshold = max(0.0, self.call_threshold - self.patience * rounds)
            if legal.call and chance_lowest(view) >= threshold:
                return Call()
            return ThrowCards(self._throw(view))
        return self._pick(view)

    def _throw(self, view: PublicView) -> tuple[Card, ...]:
        wanted = [c for c in view.pickable if completes_group(c, view.hand, view.rules)]
        keep: set[Card] = set()
        if wanted and picking.offer_open_to(view.seat, view.multi_throwers, view.rules):
            target = min(wanted, key=lambda c: view.value((c,)))
            keep = {c for c in view.hand if _partners(c, target)}
        candidates = [t for t in view.legal.throws if not keep.intersection(t)] or list(
            view.legal.throws
        )
        return max(candidates, key=lambda t: (view.value(t), len(t)))

    def _pick(self, view: PublicView) -> Action:
        offer = view.legal.pick_offer
        completing = [c for c in offer if completes_group(c, view.hand, view.rules)]
        if completing:
            return PickOffer(min(completing, key=lambda c: view.value((c,))))
        low = [c for c in offer if view.value((c,)) <= self.low_card]
        if low:
            return PickOffer(min(low, key=lambda c: view.value((c,))))
        return PickDeck()


def _partners(card: Card, target: Card) -> bool:
    """Whether ``card`` would form a set or a run together with ``target``."""
    return card.rank == target.rank or (
        card.suit == target.suit and abs(card.rank - target.rank) <= 2
    )


heuristic_policy: Policy = Heuristic()

POLICIES: Mapping[str, Policy] = {"random": random_policy, "heuristic": heuristic_policy}


# -- playing whole games ----------------------------------------------------------


def step(
    game: Game,
    memory: TableMemory,
    policies: Sequence[Policy],
    rng: random.Random,
    max_rounds: int,
) -> tuple[str, Any, list[Event]]:
    """Advance by one request: a deal, a reshuffle, the end of an open table, or one action.

    Returns the kind of request (``deal``, ``reshuffle``, ``end_game`` or ``act``), the
    action for ``act``, and the events.
    """
    if game.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
        if game.round >= max_rounds and game.rules.game_end.kind is GameEndKind.HOST_ENDS:
            return "end_game", None, game.end_game()
        events = game.deal(deal_order(game, rng))
        memory.observe(events)
        return "deal", None, events
    if game.phase is Phase.AWAITING_RESHUFFLE:
        events = game.reshuffle(reshuffle_order(game, rng))
        memory.observe(events)
        return "reshuffle", None, events
    view = memory.view(game)
    action = policies[view.seat](view, rng)
    events = game.act(view.seat, action)
    memory.observe(events)
    return "act", action, events


def play_game(
    document: Mapping[str, Any],
    seats: int,
    policies: Sequence[Policy],
    rng: random.Random,
    options: Mapping[str, Any] | None = None,
    max_rounds: int = 50,
) -> Game:
    """Play one game, seat ``i`` played by ``policies[i]``.

    A table the host ends is ended after ``max_rounds`` hands; a game that ends by its
    own rules is left unfinished (phase ``round_over``) if it has not ended by then.
    """
    game = Game(document, seats, options)
    memory = TableMemory(seats)
    while game.phase is not Phase.GAME_OVER and not left_unfinished(game, max_rounds):
        step(game, memory, policies, rng, max_rounds)
    return game


def left_unfinished(game: Game, max_rounds: int) -> bool:
    """Whether a game that ends by its own rules has run out of ``max_rounds``."""
    return (
        game.phase is Phase.ROUND_OVER
        and game.round >= max_rounds
        and (game.rules.game_end.kind is not GameEndKind.HOST_ENDS)
    )
