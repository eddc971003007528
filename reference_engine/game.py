"""A game of Jhyap under one resolved profile: a state machine with explicit phases.

Every method that changes the game first checks the whole request and raises a
JhyapError before touching anything, so a refused request leaves the state as it was.
Those methods are also ``@_atomic``: should one fail anyway (a JhyapError raised late,
or a bug), the state it had begun to change is put back as it was.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Concatenate, ParamSpec, TypeVar

from jhyap_core.cards import SORT_KEY, Card, full_deck, names, sorted_cards
from jhyap_core.profile import OptionChanges, option_specs, resolve
from jhyap_core.vocabulary import (
    BETWEEN_HANDS,
    IN_TURN,
    ErrorCode,
    JhyapError,
    OptionError,
    Phase,
    RuleViolation,
    ThrowKind,
)

from . import calling, game_end, picking, scoring, throws
from .actions import Action, Call, PickDeck, PickOffer, ThrowCards, Timeout
from .rules import (
    DealerRule,
    DeckRunsOut,
    GameEndKind,
    KeptAside,
    NextStarter,
    ReshuffleMoment,
    Rules,
    TimerExpiry,
)
from .throws import Throw

Event = dict[str, Any]


_P = ParamSpec("_P")
_R = TypeVar("_R")
# The game's attributes that a request changes in place, by how a snapshot copies them.
# Every other attribute is immutable or replaced whole (a dict such as ``last_round`` is
# built anew, never edited), so a snapshot shares it; tests/test_hardening.py checks that
# no other attribute ever holds a list, dict or set that is edited.
FLAT_LISTS = ("scores", "active", "deck", "out_of_play", "set_aside")  # of seats or cards
NESTED_LISTS = ("hands",)  # lists of lists of cards
DICTS_AND_SETS = ("out_in_round", "multi_throwers")  # of seats
REPLACED_ONLY = frozenset({"document", "profile", "rules", "last_round", "result"})


def _snapshot(game: Game) -> dict[str, Any]:
    """The game's attributes, with a copy of each container a request edits in place."""
    saved = vars(game).copy()
    for name in FLAT_LISTS:
        saved[name] = saved[name][:]
    for name in NESTED_LISTS:
        saved[name] = [inner[:] for inner in saved[name]]
    for name in DICTS_AND_SETS:
        saved[name] = saved[name].copy()
    return saved


def _atomic(
    method: Callable[Concatenate[Game, _P], _R],
) -> Callable[Concatenate[Game, _P], _R]:
    """Run ``method`` so that, if it raises, the game is left exactly as it was."""

    @functools.wraps(method)
    def run(game: Game, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        saved = _snapshot(game)
        try:
            return method(game, *args, **kwargs)
        except BaseException:
            vars(game).clear()
            vars(game).update(saved)
            raise

    return run


_BETWEEN_HANDS = BETWEEN_HANDS
# An enum's value is a property, slow on the state's path: looked up in a dict instead.
_PHASE_NAMES = {phase: phase.value for phase in Phase}
_KIND_NAMES = {kind: kind.value for kind in ThrowKind}
_TURN = IN_TURN


@dataclass(frozen=True, slots=True)
class LegalActions:
    """What the seat to act may do; any order of a listed throw's cards is legal too."""

    seat: int
    call: bool
    throws: tuple[tuple[Card, ...], ...]
    pick_deck: bool
    pick_offer: tuple[Card, ...]

    def to_json(self) -> dict[str, Any]:
        picks: list[dict[str, Any]] = [{"from": "deck"}] if self.pick_deck else []
        picks += [{"from": "offer", "card": str(c)} for c in self.pick_offer]
        return {
            "seat": self.seat,
            "call": self.call,
            "throws": [names(t) for t in self.throws],
            "picks": picks,
        }


class Game:
    """One table: seats, scores across hands, and the hand in progress."""

    def __init__(
        self,
        profile_document: Mapping[str, Any],
        seats: int,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        # The order of checks for start (docs/protocol.md): the profile itself, then the
        # option names, then their values, then the seat count.
        Rules.from_profile(profile_document)
        self.document = profile_document
        self.profile = resolve(profile_document, options)
        self.rules = Rules.from_profile(self.profile)
        if (
            isinstance(seats, bool)
            or not isinstance(seats, int)
            or not (self.rules.seats_min <= seats <= self.rules.seats_max)
        ):
            raise JhyapError(
                f"seats must be {self.rules.seats_min} to {self.rules.seats_max}, not {seats!r}",
                ErrorCode.INVALID_SEATS,
            )
        self.seats = seats
        self.phase = Phase.AWAITING_DEAL
        self.round = 0
        self.scores = [0] * seats
        self.active: list[int] = list(range(seats))
        self.out_in_round: dict[int, int] = {}  # seat -> round it went out, in that order
        self.starter = self.rules.first_starter % seats
        self.to_act: int | None = None
        self.hands: list[list[Card]] = [[] for _ in range(seats)]
        self.deck: list[Card] = []  # top card last, so drawing is a pop
        self.offer: Throw | None = None
        self.thrown: Throw | None = None  # this turn's throw, before the pick
        self.out_of_play: list[Card] = []
        self.draw_waiting: int | None = None  # the seat whose draw waits for a new deck
        self.timeout_waiting: int | None = None  # the seat whose timeout pick waits for one
        self.set_aside: list[Card] = []  # the last hands of seats put out, until the next deal
        self.turns_taken = 0
        self.multi_throwers: set[int] = set()
        self.last_round: dict[str, Any] | None = None
        self.result: dict[str, Any] | None = None

    # -- seats -------------------------------------------------------------

    def next_active(self, seat: int) -> int:
        for step in range(1, self.seats + 1):
            candidate = (seat + step) % self.seats
            if candidate in self.active:
                return candidate
        raise AssertionError("no seat in play")

    def turn_order_from(self, first: int) -> list[int]:
        return sorted(self.active, key=lambda s: (s - first) % self.seats)

    @property
    def eliminated(self) -> list[int]:
        """Seats that are out, in the order they went out."""
        return list(self.out_in_round)

    @property
    def dealer(self) -> int | None:
        """The last seat in play in turn order from the starter."""
        if self.rules.dealer is DealerRule.NONE:
            return None
        for step in range(1, self.seats + 1):
            seat = (self.starter - step) % self.seats
            if seat in self.active:
                return seat
        raise IndexError("no seat in play")

    def hand_value(self, seat: int) -> int:
        values = self.rules.rank_values
        return sum([values[c.rank] for c in self.hands[seat]])

    @property
    def full_deck(self) -> tuple[Card, ...]:
        """Every card this table plays with: its packs and their jokers."""
        rules = self.rules
        return full_deck(rules.packs_for(self.seats), rules.jokers_per_pack, rules.ranks_left_out)

    # -- between hands ------------------------------------------------------

    @_atomic
    def deal(self, order: Sequence[Card]) -> list[Event]:
        """Deal a hand from ``order``, every card of the table's deck, the first dealt first."""
        if self.phase not in _BETWEEN_HANDS:
            raise RuleViolation(f"cannot deal in phase {self.phase}", ErrorCode.WRONG_PHASE)
        deck = self.full_deck
        if len(order) != len(deck) or Counter(order) != Counter(deck):
            if len(deck) == 52:
                raise JhyapError(
                    "deal needs each of the 52 cards exactly once", ErrorCode.INVALID_DECK
                )
            raise JhyapError(
                f"deal needs the table's {len(deck)} cards: {self.rules.packs_for(self.seats)}"
                f" pack(s) of {self.rules.pack_cards} with {self.rules.jokers_per_pack}"
                " joker(s) each",
                ErrorCode.INVALID_DECK,
            )
        seats = self.turn_order_from(self.starter)
        size = self.rules.hand_size
        self.hands = [[] for _ in range(self.seats)]
        for i, card in enumerate(order[: size * len(seats)]):
            self.hands[seats[i % len(seats)]].append(card)
        turned_up = order[size * len(seats)]
        self.deck = list(reversed(order[size * len(seats) + 1 :]))
        self.offer = Throw((turned_up,), ThrowKind.SINGLE)
        self.thrown = None
        self.out_of_play = []
        self.draw_waiting = None
        self.timeout_waiting = None
        self.set_aside = []
        self.turns_taken = 0
        self.multi_throwers = set()
        self.round += 1
        self.to_act = self.starter
        self.phase = Phase.CALL_OR_THROW
        return [
            {
                "type": "round_started",
                "round": self.round,
                "dealer": self.dealer,
                "starter": self.starter,
                "turn_order": seats,
            },
            {
                "type": "dealt",
                "hands": [names(sorted_cards(h)) for h in self.hands],
                "turned_up": str(turned_up),
                "deck_size": len(self.deck),
            },
        ]

    @_atomic
    def set_option(self, name: str, value: Any) -> list[Event]:
        """Change a host option between hands; it applies from the next hand."""
        specs = option_specs(self.document)
        if name not in specs:
            raise OptionError(
                f"unknown option {name!r}; this profile's options: {', '.join(specs) or 'none'}",
                ErrorCode.UNKNOWN_OPTION,
            )
        if self.phase not in _BETWEEN_HANDS:
            raise RuleViolation("options change only between hands", ErrorCode.WRONG_PHASE)
        changes = specs[name].changes
        if changes is OptionChanges.AT_START_ONLY:
            raise OptionError(
                f"option {name} is locked once the table is open", ErrorCode.OPTION_LOCKED
            )
        if changes is OptionChanges.BEFORE_FIRST_DEAL and self.round > 0:
            raise OptionError(
                f"option {name} is locked once the first hand is dealt", ErrorCode.OPTION_LOCKED
            )
        values = dict(self.profile["option_values"])
        values[name] = value
        profile = resolve(self.document, values)
        self.rules = Rules.from_profile(profile)
        self.profile = profile
        return [{"type": "option_changed", "name": name, "value": profile["option_values"][name]}]

    @_atomic
    def end_game(self) -> list[Event]:
        """The host ends an open table between hands."""
        if self.rules.game_end is not GameEndKind.HOST_ENDS:
            raise RuleViolation(
                "this profile's game ends by its own rules, not by the host",
                ErrorCode.GAME_NOT_ENDABLE,
            )
        if self.phase not in _BETWEEN_HANDS:
            raise RuleViolation("the table can be ended only between hands", ErrorCode.WRONG_PHASE)
        return self._finish_game()

    # -- turns --------------------------------------------------------------

    @_atomic
    def act(self, seat: int, action: Action) -> list[Event]:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.seats:
            raise JhyapError(f"no seat {seat!r} at this table", ErrorCode.INVALID_SEAT)
        if self.phase not in _TURN:
            raise RuleViolation(
                f"no turn is in progress (phase {self.phase})", ErrorCode.WRONG_PHASE
            )
        if seat != self.to_act:
            raise RuleViolation(
                f"it is seat {self.to_act}'s turn, not seat {seat}'s", ErrorCode.NOT_YOUR_TURN
            )
        match action:
            case Call():
                return self._call(seat)
            case ThrowCards(cards):
                return self._throw(seat, cards)
            case PickDeck():
                self._require_phase(Phase.PICK, "pick")
                return self._pick(seat, None)
            case PickOffer(card):
                self._require_phase(Phase.PICK, "pick")
                self._check_offer_pick(seat, card)
                return self._pick(seat, card)
            case Timeout():
                return self._timeout(seat)
        raise JhyapError(f"unknown action {action!r}", ErrorCode.BAD_REQUEST)

    def _require_phase(self, phase: Phase, what: str) -> None:
        if self.phase is not phase:
            raise RuleViolation(f"cannot {what} in phase {self.phase}", ErrorCode.WRONG_PHASE)

    def _call(self, seat: int) -> list[Event]:
        self._require_phase(Phase.CALL_OR_THROW, "call (calls come before the throw)")
        value = self.hand_value(seat)
        refusal = calling.call_refusal(
            value, self.turns_taken, len(self.active), self.rules, self.seats
        )
        if refusal is ErrorCode.CALL_TOO_EARLY:
            raise RuleViolation("no call until every player has had a turn this hand", refusal)
        if refusal is not None:
            raise RuleViolation(
                f"hand worth {value} is over the call limit "
                f"{self.rules.call_limit_for(self.seats)}",
                refusal,
            )
        return [{"type": "called", "seat": seat, "value": value}, *self._end_round(seat)]

    def _throw(self, seat: int, cards: Sequence[Card], forced: bool = False) -> list[Event]:
        self._require_phase(Phase.CALL_OR_THROW, "throw (one throw a turn)")
        hand = self.hands[seat]
        missing = [c for c in cards if c not in hand]
        if missing:
            raise RuleViolation(
                f"seat {seat} does not hold {', '.join(names(missing))}", ErrorCode.CARD_NOT_IN_HAND
            )
        held = Counter(hand)
        repeated = [c for c, n in Counter(cards).items() if n > held[c]]
        kind = None if repeated else throws.classify(cards, self.rules)
        if kind is None:
            raise RuleViolation(
                f"{' '.join(names(cards)) or 'nothing'} is not a single, "
                "a set of one rank or a run in one suit",
                ErrorCode.ILLEGAL_THROW,
            )
        if not forced and throws.single_refused(cards, hand, self.rules):
            raise RuleViolation(
                "a single card may be thrown only when the hand holds no set or run",
                ErrorCode.ILLEGAL_THROW,
            )
        for card in cards:
            hand.remove(card)
        self.thrown = Throw(throws.laid(cards, kind, self.rules), kind)
        if len(cards) >= 2:
            self.multi_throwers.add(seat)
        self.phase = Phase.PICK
        events: list[Event] = [
            {"type": "thrown", "seat": seat, "cards": names(self.thrown.cards), "kind": kind.value}
        ]
        if (
            not self.deck
            and self.rules.reshuffle_moment is ReshuffleMoment.AT_THROW_AFTER_DECK_EMPTIED
        ):
            # The deck is remade now, before the pick, whichever way the seat then picks.
            self._keep_aside_from_offer()
            self.phase = Phase.AWAITING_RESHUFFLE
            events.append(
                {"type": "reshuffle_needed", "cards": names(sorted_cards(self.out_of_play))}
            )
        return events

    def _check_offer_pick(self, seat: int, card: Card) -> None:
        assert self.offer is not None
        if card not in self.offer.cards:
            raise RuleViolation(f"{card} is not on offer", ErrorCode.CARD_NOT_ON_OFFER)
        if not picking.offer_open_to(seat, self.multi_throwers, self.rules):
            raise RuleViolation(
                "thrown cards may be picked only after throwing two or more "
                "cards together this round",
                ErrorCode.PICK_NOT_ALLOWED,
            )
        if card not in picking.pickable_cards(self.offer, self.rules):
            allowed = names(picking.pickable_cards(self.offer, self.rules))
            raise RuleViolation(
                f"{card} may not be picked from this throw; allowed: {', '.join(allowed)}",
                ErrorCode.PICK_NOT_ALLOWED,
            )

    def _pick(self, seat: int, card: Card | None) -> list[Event]:
        assert self.offer is not None and self.thrown is not None
        if card is None and not self.deck:
            return self._await_new_deck(seat)
        rest = list(self.offer.cards)
        if card is None:
            card = self.deck.pop()
            events: list[Event] = [
                {"type": "picked", "seat": seat, "from": "deck", "card": str(card)}
            ]
        else:
            rest.remove(card)  # one copy: with several packs the offer may repeat a card
            events = [{"type": "picked", "seat": seat, "from": "offer", "card": str(card)}]
        self.hands[seat].append(card)
        held = self._held_back(rest)
        if held:
            # The previous throw's takeable cards stay out of the new deck made at once; they
            # wait on offer, beside the throw just made, until the reshuffle.
            rest = [c for i, c in enumerate(self.offer.cards) if i not in held]
            kept = tuple(c for i, c in enumerate(self.offer.cards) if i in held)
            self.offer = Throw(kept, self.offer.kind)
        self.out_of_play.extend(rest)
        if rest:
            events.append({"type": "out_of_play", "cards": names(sorted_cards(rest))})
        if not held:
            self.offer, self.thrown = self.thrown, None
        self.turns_taken += 1
        self.to_act = self.next_active(seat)
        at_next_draw = self.rules.reshuffle_moment is not ReshuffleMoment.WHEN_DECK_EMPTIED
        if self.deck:
            self.phase = Phase.CALL_OR_THROW
        elif self.rules.deck_runs_out is not DeckRunsOut.RESHUFFLE:
            events += self._end_round(None)
        elif at_next_draw:
            self.phase = Phase.CALL_OR_THROW
        else:
            self.phase = Phase.AWAITING_RESHUFFLE
            events.append(
                {"type": "reshuffle_needed", "cards": names(sorted_cards(self.out_of_play))}
            )
        return events

    def _held_back(self, rest: Sequence[Card]) -> set[int]:
        """Positions of the offer kept out of a deck remade as this pick empties it.

        Only under reshuffle.moment when_deck_emptied with kept_aside pickable_and_throw,
        after a draw of the deck's last card: the previous throw's takeable cards. None when
        the new deck would then have no card at all.
        """
        rules = self.rules
        if (
            self.deck
            or rules.deck_runs_out is not DeckRunsOut.RESHUFFLE
            or rules.reshuffle_moment is not ReshuffleMoment.WHEN_DECK_EMPTIED
            or rules.kept_aside is not KeptAside.PICKABLE_AND_THROW
            or len(rest) != len(self.offer.cards if self.offer else ())
        ):
            return set()
        assert self.offer is not None
        held = set(picking.pickable_positions(self.offer, rules))
        if not self.out_of_play and len(held) == len(self.offer.cards):
            return set()
        return held

    def _keep_aside_from_offer(self) -> None:
        """With kept_aside pickable_and_throw, the offer's cards that cannot be taken join
        the new deck; by position, since with two packs or two jokers a name can be both."""
        assert self.offer is not None
        if self.rules.kept_aside is KeptAside.PICKABLE_AND_THROW:
            keep = set(picking.pickable_positions(self.offer, self.rules))
            cards = self.offer.cards
            self.out_of_play.extend(c for i, c in enumerate(cards) if i not in keep)
            kept = tuple(c for i, c in enumerate(cards) if i in keep)
            self.offer = Throw(kept, self.offer.kind)

    def _await_new_deck(self, seat: int) -> list[Event]:
        """A draw finds the deck empty: the out-of-play cards must become a new deck first.

        Only under reshuffle.moment when_draw_finds_deck_empty; with kept_aside
        pickable_and_throw the offer's cards that cannot be taken join the new deck too.
        """
        self._keep_aside_from_offer()
        self.draw_waiting = seat
        self.phase = Phase.AWAITING_RESHUFFLE
        return [{"type": "reshuffle_needed", "cards": names(sorted_cards(self.out_of_play))}]

    def _timeout(self, seat: int) -> list[Event]:
        if self.rules.timer_seconds <= 0:
            raise RuleViolation("the turn timer is off at this table", ErrorCode.TIMER_OFF)
        events: list[Event] = [{"type": "timed_out", "seat": seat}]
        value = self.rules.card_value
        if self.phase is Phase.CALL_OR_THROW:
            highest = max(self.hands[seat], key=lambda c: (value(c.rank), c.rank, c.sort_key))
            # The timer's single is forced: throws.single does not refuse it.
            events += self._throw(seat, (highest,), forced=True)
            after: Phase = self.phase  # the throw may have called for a new deck
            if after is Phase.AWAITING_RESHUFFLE:
                # The deck is remade at this throw; the timeout's pick follows the reshuffle.
                self.timeout_waiting = seat
                return events
        return events + self._timeout_pick(seat)

    def _timeout_pick(self, seat: int) -> list[Event]:
        """A timeout's pick: the lowest takeable card (take_lowest) or the deck's top."""
        value = self.rules.card_value
        take: Card | None = None
        if self.rules.timer_expiry is TimerExpiry.THROW_HIGHEST_SINGLE_THEN_TAKE_LOWEST:
            assert self.offer is not None
            if picking.offer_open_to(seat, self.multi_throwers, self.rules):
                pickable = picking.pickable_cards(self.offer, self.rules)
                take = min(pickable, key=lambda c: (value(c.rank), c.rank, c.sort_key))
        return self._pick(seat, take)

    @_atomic
    def reshuffle(self, order: Sequence[Card]) -> list[Event]:
        """Make the new deck from the cards out of play, ``order[0]`` on top."""
        if self.phase is not Phase.AWAITING_RESHUFFLE:
            raise RuleViolation(f"no reshuffle is due (phase {self.phase})", ErrorCode.WRONG_PHASE)
        if len(order) != len(self.out_of_play) or Counter(order) != Counter(self.out_of_play):
            raise JhyapError(
                "reshuffle order must hold exactly the cards out of play: "
                f"{' '.join(names(sorted_cards(self.out_of_play)))}",
                ErrorCode.INVALID_RESHUFFLE,
            )
        self.deck = list(reversed(order))
        self.out_of_play = []
        self.phase = Phase.CALL_OR_THROW
        events: list[Event] = [{"type": "reshuffled", "deck_size": len(self.deck)}]
        if self.draw_waiting is not None:
            seat, self.draw_waiting = self.draw_waiting, None
            self.phase = Phase.PICK
            events += self._pick(seat, None)
        elif self.thrown is not None and self.to_act is not None:
            if self.rules.reshuffle_moment is ReshuffleMoment.WHEN_DECK_EMPTIED:
                # The previous throw's cards held back from the new deck go out of play now.
                assert self.offer is not None
                held = list(self.offer.cards)
                self.out_of_play.extend(held)
                self.offer, self.thrown = self.thrown, None
                events.append({"type": "out_of_play", "cards": names(sorted_cards(held))})
            else:  # at_throw_after_deck_emptied: the seat that threw picks now
                self.phase = Phase.PICK
                if self.timeout_waiting is not None:
                    seat, self.timeout_waiting = self.timeout_waiting, None
                    events += self._timeout_pick(seat)
        return events

    # -- the end of a hand and of the game -----------------------------------

    def _end_round(self, caller: int | None) -> list[Event]:
        """Score the hand: a showdown after a call, or (``caller`` None) a deck run out."""
        values = {s: self.hand_value(s) for s in self.active}
        if caller is not None:
            order = self.turn_order_from(self.next_active(caller))
            result = scoring.showdown(values, order, caller, self.rules)
            outcome: str = result.outcome.value
            winner: int | None = result.winner
            deltas = dict(result.deltas)
        else:
            outcome, winner = "deck_ran_out", None
            deltas = scoring.deck_ran_out(values, self.rules)
        for seat, delta in deltas.items():
            self.scores[seat] += delta
            if delta:
                self.scores[seat] = scoring.cut_score(self.scores[seat], self.rules)
        out = game_end.eliminated_after(self.scores, self.active, self.rules)
        self.last_round = {
            "round": self.round,
            "outcome": outcome,
            "caller": caller,
            "winner": winner,
            "hand_values": [values.get(s) for s in range(self.seats)],
            "deltas": [deltas.get(s, 0) for s in range(self.seats)],
            "scores": list(self.scores),
            "eliminated": out,
        }
        events: list[Event] = [{"type": "round_ended", **self.last_round}]
        next_starter = self._next_starter(caller, winner, out)
        for seat in out:
            self.active.remove(seat)
            self.out_in_round[seat] = self.round
            # A seat that is out holds no cards (protocol.state.seat-out); its last hand
            # is set aside until the next deal.
            self.set_aside.extend(self.hands[seat])
            self.hands[seat] = []
        if next_starter not in self.active:
            next_starter = self.next_active(next_starter)
        self.starter = next_starter
        self.to_act = None
        self.phase = Phase.ROUND_OVER
        if game_end.game_over_after_round(self.round, self.scores, self.active, self.rules):
            events += self._finish_game()
        return events

    def _next_starter(self, caller: int | None, winner: int | None, out: Sequence[int]) -> int:
        """Who starts the next hand, before skipping seats that just went out."""
        rule = self.rules.next_starter
        if winner is not None and winner not in out:
            if rule is NextStarter.ROUND_WINNER:
                return winner
            if rule is NextStarter.SEAT_AFTER_ROUND_WINNER:
                return self.next_active(winner)
        if rule is NextStarter.CALLER and caller is not None and caller not in out:
            return caller
        return self.next_active(self.starter)

    def _finish_game(self) -> list[Event]:
        self.result = game_end.game_result(
            self.scores, self.active, self.out_in_round, self.last_round, self.rules
        )
        self.phase = Phase.GAME_OVER
        self.to_act = None
        return [{"type": "game_ended", **self.result}]

    # -- views -------------------------------------------------------------

    def legal_actions(self) -> LegalActions | None:
        """The actions of the seat to act, or None outside a turn."""
        if self.phase not in _TURN or self.to_act is None:
            return None
        seat = self.to_act
        if self.phase is Phase.CALL_OR_THROW:
            can_call = (
                calling.call_refusal(
                    self.hand_value(seat),
                    self.turns_taken,
                    len(self.active),
                    self.rules,
                    self.seats,
                )
                is None
            )
            return LegalActions(
                seat, can_call, tuple(throws.legal_throws(self.hands[seat], self.rules)), False, ()
            )
        assert self.offer is not None
        offer_cards: tuple[Card, ...] = ()
        if picking.offer_open_to(seat, self.multi_throwers, self.rules):
            # Legal lists actions: two jokers that may be taken are one action, listed once.
            offer_cards = tuple(dict.fromkeys(picking.pickable_cards(self.offer, self.rules)))
        return LegalActions(seat, False, (), True, offer_cards)

    def state(self) -> dict[str, Any]:
        """The whole state as protocol JSON (see docs/protocol.md, "state")."""
        # Asked for after every request and every refusal checked: the sorts and sums are
        # written out here, not called per hand (a third of a checked game's time).
        offer = self.offer
        values = self.rules.rank_values
        key = SORT_KEY
        return {
            "phase": _PHASE_NAMES[self.phase],
            "round": self.round,
            "seats": self.seats,
            "active": self.active[:],
            "eliminated": self.eliminated,
            "dealer": self.dealer,
            "starter": self.starter,
            "to_act": self.to_act,
            "hands": [[c.name for c in sorted(h, key=key)] for h in self.hands],
            "hand_values": [sum([values[c.rank] for c in h]) for h in self.hands],
            "offer": [c.name for c in offer.cards] if offer else [],
            "offer_kind": _KIND_NAMES[offer.kind] if offer else None,
            "pickable": names(picking.pickable_cards(offer, self.rules)) if offer else [],
            "thrown": [c.name for c in self.thrown.cards] if self.thrown else [],
            "multi_throwers": sorted(self.multi_throwers),
            "deck": [c.name for c in reversed(self.deck)],
            "deck_size": len(self.deck),
            "out_of_play": [c.name for c in sorted(self.out_of_play, key=key)],
            "turns_taken": self.turns_taken,
            "scores": self.scores[:],
            "options": dict(self.profile["option_values"]),
            "last_round": self.last_round,
            "result": self.result,
        }
