"""TrackedEngine: the protocol's bookkeeping around an engine that knows only the card play.

A binding subclasses :class:`TrackedEngine`, declares what its engine implements
(``NAME``, ``VERSION``, ``RULES``) and implements a few hooks. The kit owns everything
else the protocol asks for: option resolution and ``set_option``, the deal (from the
request's layout, or ``deck`` dealt by the profile's procedure), whose turn it is, the
offer and what may be picked from it (the profile's pick rule and the multi-throw house
rule), the cards out of play, reshuffles, turn counts, multi-throwers, the events, the
phases, dealer and starter, game end, winners and standings, ``state`` and ``legal``.

The hooks, in the order a hand calls them (cards are protocol names, seats protocol seats):

``begin_game(rules, seats)``
    A table opens; ``rules`` is the resolved profile's ``rules``.
``begin_hand(deal)``
    Start a hand from the cards as placed: :class:`~jhyap_core.messages.Deal`.
``refusal(seat, action) -> Refusal | None``
    What the engine refuses: a call it does not allow (``call_too_early``,
    ``call_over_limit``), a throw that is no single, set or run (``illegal_throw``). Asked
    before anything changes, after the kit's own checks (phase, turn, cards held, card on
    offer, the pick rule). Must not change the engine.
``on_call(seat)``, ``on_throw(seat, cards) -> ThrowKind``, ``on_pick(seat, card, source)``,
``on_reshuffle(stock)``
    Apply an accepted action to the engine. ``on_throw`` names what the throw is.
``hand_value(cards) -> int``
    The value of any cards under the engine's rules (the kit asks for hands and, for a
    timeout, single cards).
``score_round(caller, hand_values) -> RoundScore``
    Score the hand just ended: after a call by ``caller``, or (``caller`` None) a deck run
    out where the profile ends the hand then. ``hand_values`` is per seat (None when out).

Optional: ``pickable_positions(offer, kind)`` (the default plays ``pick.from_offer``),
``legal_throws(seat, hand)`` (the default asks ``refusal`` about every sub-multiset of the
hand), ``settlement(scores)`` (the default: none; a profile with money needs it).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar

from jhyap_core.cards import parse_card, sorted_cards
from jhyap_core.messages import (
    Action,
    Call,
    Deal,
    DealLayout,
    EngineInfo,
    Pick,
    Refusal,
    Refused,
    RoundScore,
    Throw,
    Timeout,
)
from jhyap_core.serving import Event, Json
from jhyap_core.vocabulary import (
    BETWEEN_HANDS,
    IN_TURN,
    PROTOCOL_VERSION,
    ErrorCode,
    Phase,
    ThrowKind,
)
from jhyap_core.vocabulary import PickSource as Source

from .options import Opened, change_option, open_table
from .support import KIT_RULES, RuleSupport
from .table import KitRules, Table

__all__ = ["PROTOCOL_VERSION", "TrackedEngine"]


def canonical(cards: Collection[str]) -> list[str]:
    """``cards`` in the protocol's canonical order (rank, ace first; suit c d h s; jokers last)."""
    return [c.name for c in sorted_cards(parse_card(c) for c in cards)]


def _sort_key(card: str) -> int:
    return parse_card(card).sort_key


def _rank(card: str) -> int:
    return parse_card(card).rank


class TrackedEngine:
    """A protocol backend that tracks the table and asks its hooks about the card play."""

    NAME: ClassVar[str] = "kit-engine"
    VERSION: ClassVar[str] = "0.0.0"
    LANGUAGE: ClassVar[str] = "python"
    RULES: ClassVar[RuleSupport] = KIT_RULES
    # The options the engine lets a host set; None: every option of the profile. Any other
    # is answered unsupported_option (docs/readings.md, "Points that are not readings").
    OPTIONS: ClassVar[Collection[str] | None] = None

    def __init__(self) -> None:
        self.table: Table | None = None
        self.rules: Mapping[str, Json] = {}  # the resolved rules of this (or the next) hand
        self.kit_rules: KitRules | None = None
        self._opened: Opened | None = None

    # -- hooks a binding implements ---------------------------------------------------

    def begin_game(self, rules: Mapping[str, Json], seats: int) -> None:
        """A table of ``seats`` opens under ``rules``; the default does nothing."""

    def begin_hand(self, deal: Deal) -> None:
        """Start a hand with exactly these hands, turned-up card and stock."""
        raise NotImplementedError

    def refusal(self, seat: int, action: Action) -> Refusal | None:
        """Why the engine refuses ``action`` by ``seat``, or None; changes nothing."""
        return None

    def on_call(self, seat: int) -> None:
        """``seat`` calls (the kit then asks ``score_round``)."""

    def on_throw(self, seat: int, cards: tuple[str, ...]) -> ThrowKind:
        """``seat`` throws ``cards`` (as placed); answer what the throw is."""
        raise NotImplementedError

    def on_pick(self, seat: int, card: str, source: Source) -> None:
        """``seat`` takes ``card``: the top of the deck or a card of the offer."""

    def on_reshuffle(self, stock: tuple[str, ...]) -> None:
        """The cards out of play become the deck, ``stock[0]`` on top."""

    def hand_value(self, cards: Sequence[str]) -> int:
        """The value of ``cards`` under the engine's rules."""
        raise NotImplementedError

    def score_round(self, caller: int | None, hand_values: Sequence[int | None]) -> RoundScore:
        """Score the hand that just ended (``caller`` None: the deck ran out)."""
        raise NotImplementedError

    def settlement(self, scores: Sequence[int]) -> list[dict[str, Any]] | None:
        """The game's money settlement (``{"from", "to", "points", "dollars"}``), or None."""
        return None

    def pickable_positions(self, offer: tuple[str, ...], kind: ThrowKind) -> tuple[int, ...]:
        """The positions of ``offer`` (as placed) that the pick rule lets be taken.

        The default plays ``pick.from_offer``; for ``run_ends`` it finds the ends of a run
        without jokers (an engine with wild jokers in runs overrides this)."""
        rule = self._kit.pick_from_offer
        count = len(offer)
        if count == 0:
            return ()
        if rule == "last_placed":
            return (count - 1,)
        if rule == "first_or_last_placed":
            return (0, count - 1) if count > 1 else (0,)
        if rule == "run_ends" and kind is ThrowKind.RUN and count > 2:
            ranks = [_rank(c) for c in offer]
            if self._kit.run_ace != "low" and 1 in ranks and 13 in ranks:
                ranks = [14 if r == 1 else r for r in ranks]
            return tuple(sorted({ranks.index(min(ranks)), ranks.index(max(ranks))}))
        return tuple(range(count))

    def legal_throws(self, seat: int, hand: Sequence[str]) -> list[tuple[str, ...]]:
        """Every throw ``seat`` may make from ``hand``, each in canonical order, each once.

        The default asks :meth:`refusal` about every sub-multiset of the hand."""
        ordered = canonical(hand)
        found: dict[tuple[str, ...], None] = {}
        for size in range(1, len(ordered) + 1):
            for combo in itertools.combinations(ordered, size):
                if combo not in found and self.refusal(seat, Throw(combo)) is None:
                    found[combo] = None
        return list(found)

    # -- what the kit reports ------------------------------------------------------------

    @classmethod
    def info(cls) -> EngineInfo:
        return EngineInfo(cls.NAME, cls.VERSION, cls.LANGUAGE)

    @property
    def _kit(self) -> KitRules:
        assert self.kit_rules is not None
        return self.kit_rules

    @property
    def _t(self) -> Table:
        assert self.table is not None
        return self.table

    # -- the backend: start and options ----------------------------------------------------

    def start(self, profile: Mapping[str, Json], options: Mapping[str, Json], seats: int) -> None:
        opened = open_table(profile, options, seats, self.RULES, self.OPTIONS)
        self._opened, self.rules, self.kit_rules = opened, opened.rules, opened.kit_rules
        kit = opened.kit_rules
        self.table = Table(
            seats=seats,
            starter=kit.first_starter % seats,
            scores=[0] * seats,
            active=list(range(seats)),
            hands=[[] for _ in range(seats)],
        )
        self.begin_game(self.rules, seats)

    def set_option(self, name: str, value: Json) -> list[Event]:
        assert self._opened is not None
        table = self._t
        opened = change_option(
            self._opened, table.phase, table.round, name, value, self.RULES, self.OPTIONS
        )
        self._opened, self.rules, self.kit_rules = opened, opened.rules, opened.kit_rules
        shown = opened.profile["option_values"][name]
        return [{"type": "option_changed", "name": name, "value": shown}]

    # -- the backend: deals -----------------------------------------------------------------

    def deal(self, deck: Sequence[str], layout: DealLayout | None) -> list[Event]:
        table, kit = self._t, self._kit
        if table.phase not in BETWEEN_HANDS:
            raise Refused(ErrorCode.WRONG_PHASE, f"cannot deal in phase {table.phase}")
        cards = kit.deck_for(table.seats)
        if len(deck) != len(cards) or Counter(deck) != Counter(cards):
            if len(cards) == 52:
                raise Refused(
                    ErrorCode.INVALID_DECK, "deal needs each of the 52 cards exactly once"
                )
            raise Refused(
                ErrorCode.INVALID_DECK,
                f"deal needs the table's {len(cards)} cards: {kit.packs_for(table.seats)}"
                f" pack(s) of 52 with {kit.jokers_per_pack} joker(s) each",
            )
        order = table.turn_order_from(table.starter)
        hands, turned_up, stock = (
            self._laid_out(layout, deck) if layout is not None else self._dealt(deck, order)
        )
        saved = table.snapshot()
        table.round += 1
        placed = Deal(
            round=table.round,
            starter=table.starter,
            dealer=table.dealer(kit),
            turn_order=tuple(order),
            hands=tuple(tuple(canonical(h)) for h in hands),
            turned_up=turned_up,
            stock=tuple(stock),
        )
        try:
            self.begin_hand(placed)
        except BaseException:
            self.table = saved
            raise
        table.hands = [list(h) for h in placed.hands]
        table.deck = list(stock)
        table.offer, table.offer_kind = (turned_up,), ThrowKind.SINGLE
        table.thrown, table.thrown_kind = (), None
        table.out_of_play, table.draw_waiting = [], None
        table.turns_taken, table.multi_throwers = 0, set()
        table.to_act, table.phase = table.starter, Phase.CALL_OR_THROW
        return [
            {
                "type": "round_started",
                "round": table.round,
                "dealer": placed.dealer,
                "starter": table.starter,
                "turn_order": order,
            },
            {
                "type": "dealt",
                "hands": [list(h) for h in placed.hands],
                "turned_up": turned_up,
                "deck_size": len(stock),
            },
        ]

    def _dealt(
        self, deck: Sequence[str], order: Sequence[int]
    ) -> tuple[list[list[str]], str, list[str]]:
        """``deck`` dealt by the profile's procedure: one card at a time from the starter."""
        size = self._kit.hand_size
        hands: list[list[str]] = [[] for _ in range(self._t.seats)]
        for i, card in enumerate(deck[: size * len(order)]):
            hands[order[i % len(order)]].append(card)
        return hands, deck[size * len(order)], list(deck[size * len(order) + 1 :])

    def _laid_out(
        self, layout: DealLayout, deck: Sequence[str]
    ) -> tuple[list[list[str]], str, list[str]]:
        """The request's own layout, once checked to hold the deck's cards in the table's shape."""
        table, size = self._t, self._kit.hand_size
        shaped = len(layout.hands) == table.seats and all(
            len(hand) == (size if seat in table.active else 0)
            for seat, hand in enumerate(layout.hands)
        )
        placed = [c for hand in layout.hands for c in hand] + [layout.turned_up, *layout.stock]
        if not shaped or Counter(placed) != Counter(deck):
            raise Refused(
                ErrorCode.INVALID_DECK,
                f"the deal's hands, turned_up and stock must hold the deck's cards: {size} to"
                " each seat in play, none to a seat that is out",
            )
        return [list(h) for h in layout.hands], layout.turned_up, list(layout.stock)

    # -- the backend: turns -------------------------------------------------------------------

    def act(self, seat: int, action: Action) -> list[Event]:
        table = self._t
        if not 0 <= seat < table.seats:
            raise Refused(ErrorCode.INVALID_SEAT, f"no seat {seat!r} at this table")
        if table.phase not in IN_TURN:
            raise Refused(ErrorCode.WRONG_PHASE, f"no turn is in progress (phase {table.phase})")
        if seat != table.to_act:
            raise Refused(
                ErrorCode.NOT_YOUR_TURN, f"it is seat {table.to_act}'s turn, not seat {seat}'s"
            )
        saved = table.snapshot()
        try:
            return self._play(seat, action)
        except BaseException:
            self.table = saved
            raise

    def _play(self, seat: int, action: Action) -> list[Event]:
        match action:
            case Call():
                self._require(Phase.CALL_OR_THROW, "call (calls come before the throw)")
                self._ask(seat, action)
                value = self.hand_value(tuple(self._t.hands[seat]))
                self.on_call(seat)
                return [{"type": "called", "seat": seat, "value": value}, *self._end_round(seat)]
            case Throw(cards):
                self._require(Phase.CALL_OR_THROW, "throw (one throw a turn)")
                self._check_throw(seat, cards)
                self._ask(seat, action)
                return self._throw(seat, cards)
            case Pick(Source.DECK):
                self._require(Phase.PICK, "pick")
                self._ask(seat, action)
                return self._pick(seat, None)
            case Pick(Source.OFFER, card):
                self._require(Phase.PICK, "pick")
                assert card is not None
                self._check_offer_pick(seat, card)
                self._ask(seat, action)
                return self._pick(seat, card)
            case Timeout():
                return self._timeout(seat)
        raise Refused(ErrorCode.BAD_REQUEST, f"unknown action {action!r}")

    def _require(self, phase: Phase, what: str) -> None:
        if self._t.phase is not phase:
            raise Refused(ErrorCode.WRONG_PHASE, f"cannot {what} in phase {self._t.phase}")

    def _ask(self, seat: int, action: Action) -> None:
        refusal = self.refusal(seat, action)
        if refusal is not None:
            raise Refused(refusal.code, refusal.message)

    def _check_throw(self, seat: int, cards: tuple[str, ...]) -> None:
        hand = self._t.hands[seat]
        missing = [c for c in cards if c not in hand]
        if missing:
            raise Refused(
                ErrorCode.CARD_NOT_IN_HAND, f"seat {seat} does not hold {', '.join(missing)}"
            )
        held = Counter(hand)
        if not cards or any(n > held[c] for c, n in Counter(cards).items()):
            raise Refused(
                ErrorCode.ILLEGAL_THROW,
                f"{' '.join(cards) or 'nothing'} is not a single, a set of one rank or a run",
            )

    def _throw(self, seat: int, cards: tuple[str, ...]) -> list[Event]:
        kind = ThrowKind(self.on_throw(seat, cards))
        table = self._t
        for card in cards:
            table.hands[seat].remove(card)
        table.thrown, table.thrown_kind = cards, kind
        if len(cards) >= 2:
            table.multi_throwers.add(seat)
        table.phase = Phase.PICK
        return [{"type": "thrown", "seat": seat, "cards": list(cards), "kind": kind.value}]

    def pickable(self) -> tuple[str, ...]:
        """The cards of the offer the pick rule lets be taken, as placed."""
        table = self._t
        if table.offer_kind is None:
            return ()
        return tuple(table.offer[i] for i in self.pickable_positions(table.offer, table.offer_kind))

    def offer_open_to(self, seat: int) -> bool:
        """Whether ``seat`` may pick from the offer at all (the multi-throw house rule)."""
        return not self._kit.only_after_multi_throw or seat in self._t.multi_throwers

    def _check_offer_pick(self, seat: int, card: str) -> None:
        if card not in self._t.offer:
            raise Refused(ErrorCode.CARD_NOT_ON_OFFER, f"{card} is not on offer")
        if not self.offer_open_to(seat):
            raise Refused(
                ErrorCode.PICK_NOT_ALLOWED,
                "thrown cards may be picked only after throwing two or more cards together"
                " this round",
            )
        allowed = self.pickable()
        if card not in allowed:
            raise Refused(
                ErrorCode.PICK_NOT_ALLOWED,
                f"{card} may not be picked from this throw; allowed: {', '.join(allowed)}",
            )

    def _pick(self, seat: int, card: str | None) -> list[Event]:
        table, kit = self._t, self._kit
        if card is None and not table.deck:
            return self._await_new_deck(seat)
        rest = list(table.offer)
        if card is None:
            card = table.deck.pop(0)
            self.on_pick(seat, card, Source.DECK)
            events: list[Event] = [{"type": "picked", "seat": seat, "from": "deck", "card": card}]
        else:
            self.on_pick(seat, card, Source.OFFER)
            rest.remove(card)  # one copy: with several packs the offer may repeat a card
            events = [{"type": "picked", "seat": seat, "from": "offer", "card": card}]
        table.hands[seat].append(card)
        table.out_of_play.extend(rest)
        if rest:
            events.append({"type": "out_of_play", "cards": canonical(rest)})
        table.offer, table.offer_kind = table.thrown, table.thrown_kind
        table.thrown, table.thrown_kind = (), None
        table.turns_taken += 1
        table.to_act = table.next_active(seat)
        if table.deck or (kit.deck_runs_out == "reshuffle" and kit.draw_finds_empty):
            table.phase = Phase.CALL_OR_THROW
        elif kit.deck_runs_out != "reshuffle":
            events += self._end_round(None)
        else:
            table.phase = Phase.AWAITING_RESHUFFLE
            events.append({"type": "reshuffle_needed", "cards": canonical(table.out_of_play)})
        return events

    def _await_new_deck(self, seat: int) -> list[Event]:
        """A draw finds the deck empty (reshuffle.moment when_draw_finds_deck_empty)."""
        table = self._t
        if self._kit.kept_aside == "pickable_and_throw" and table.offer_kind is not None:
            keep = set(self.pickable_positions(table.offer, table.offer_kind))
            table.out_of_play.extend(c for i, c in enumerate(table.offer) if i not in keep)
            table.offer = tuple(c for i, c in enumerate(table.offer) if i in keep)
        table.draw_waiting = seat
        table.phase = Phase.AWAITING_RESHUFFLE
        return [{"type": "reshuffle_needed", "cards": canonical(table.out_of_play)}]

    def _timeout(self, seat: int) -> list[Event]:
        kit, table = self._kit, self._t
        if kit.timer_seconds <= 0:
            raise Refused(ErrorCode.TIMER_OFF, "the turn timer is off at this table")

        def weight(card: str) -> tuple[int, int, int]:
            return (self.hand_value((card,)), _rank(card), _sort_key(card))

        events: list[Event] = [{"type": "timed_out", "seat": seat}]
        if table.phase is Phase.CALL_OR_THROW:
            events += self._throw(seat, (max(table.hands[seat], key=weight),))
        take: str | None = None
        if kit.timer_take_lowest and self.offer_open_to(seat):
            take = min(self.pickable(), key=weight, default=None)
        return events + self._pick(seat, take)

    def reshuffle(self, order: Sequence[str]) -> list[Event]:
        table = self._t
        if table.phase is not Phase.AWAITING_RESHUFFLE:
            raise Refused(ErrorCode.WRONG_PHASE, f"no reshuffle is due (phase {table.phase})")
        if Counter(order) != Counter(table.out_of_play):
            raise Refused(
                ErrorCode.INVALID_RESHUFFLE,
                "reshuffle order must hold exactly the cards out of play: "
                + " ".join(canonical(table.out_of_play)),
            )
        saved = table.snapshot()
        try:
            self.on_reshuffle(tuple(order))
            table.deck, table.out_of_play = list(order), []
            table.phase = Phase.CALL_OR_THROW
            events: list[Event] = [{"type": "reshuffled", "deck_size": len(table.deck)}]
            if table.draw_waiting is not None:
                seat, table.draw_waiting = table.draw_waiting, None
                table.phase = Phase.PICK
                events += self._pick(seat, None)
            return events
        except BaseException:
            self.table = saved
            raise

    # -- the end of a hand and of the game -------------------------------------------------

    def _end_round(self, caller: int | None) -> list[Event]:
        table, kit = self._t, self._kit
        values = [
            self.hand_value(tuple(table.hands[s])) if s in table.active else None
            for s in range(table.seats)
        ]
        score = self.score_round(caller, values)
        if len(score.deltas) != table.seats or len(score.scores) != table.seats:
            raise RuntimeError("score_round must give deltas and scores for every seat")
        if caller is None:
            outcome = "deck_ran_out"
        else:
            outcome = "won_call" if score.winner == caller else "beaten_call"
        out = sorted(score.eliminated)
        table.scores = list(score.scores)
        table.last_round = {
            "round": table.round,
            "outcome": outcome,
            "caller": caller,
            "winner": score.winner if caller is not None else None,
            "hand_values": values,
            "deltas": list(score.deltas),
            "scores": list(score.scores),
            "eliminated": out,
        }
        events: list[Event] = [{"type": "round_ended", **table.last_round}]
        next_starter = self._next_starter(caller, table.last_round["winner"], out)
        for seat in out:
            table.active.remove(seat)
            table.out_in_round[seat] = table.round
            table.hands[seat] = []
        if next_starter not in table.active:
            next_starter = table.next_active(next_starter)
        table.starter, table.to_act, table.phase = next_starter, None, Phase.ROUND_OVER
        over = (kit.game_end == "elimination" and len(table.active) <= 1) or (
            kit.game_end == "fixed_rounds" and kit.rounds is not None and table.round >= kit.rounds
        )
        if over:
            events += self._finish_game()
        return events

    def _next_starter(self, caller: int | None, winner: int | None, out: Sequence[int]) -> int:
        """Who starts the next hand, before skipping seats that just went out."""
        rule, table = self._kit.next_starter, self._t
        if winner is not None and winner not in out:
            if rule == "round_winner":
                return winner
            if rule == "seat_after_round_winner":
                return table.next_active(winner)
        if rule == "caller" and caller is not None and caller not in out:
            return caller
        return table.next_active(table.starter)

    def end_game(self) -> list[Event]:
        if self._kit.game_end != "host_ends":
            raise Refused(
                ErrorCode.GAME_NOT_ENDABLE,
                "this profile's game ends by its own rules, not by the host",
            )
        if self._t.phase not in BETWEEN_HANDS:
            raise Refused(ErrorCode.WRONG_PHASE, "the table can be ended only between hands")
        return self._finish_game()

    def _finish_game(self) -> list[Event]:
        table = self._t
        winners, standings = table.winners_and_standings(self._kit)
        table.result = {
            "winners": winners,
            "standings": standings,
            "scores": list(table.scores),
            "eliminated": table.eliminated,
            "settlement": self.settlement(tuple(table.scores)),
        }
        table.phase, table.to_act = Phase.GAME_OVER, None
        return [{"type": "game_ended", **table.result}]

    # -- views -----------------------------------------------------------------------------

    def _option_values(self) -> Mapping[str, Json]:
        assert self._opened is not None
        values: Mapping[str, Json] = self._opened.profile["option_values"]
        return values

    def state(self) -> dict[str, Any]:
        table = self._t
        return {
            "phase": table.phase.value,
            "round": table.round,
            "seats": table.seats,
            "active": list(table.active),
            "eliminated": table.eliminated,
            "dealer": table.dealer(self._kit),
            "starter": table.starter,
            "to_act": table.to_act,
            "hands": [canonical(h) for h in table.hands],
            "hand_values": [self.hand_value(tuple(h)) if h else 0 for h in table.hands],
            "offer": list(table.offer),
            "offer_kind": table.offer_kind.value if table.offer_kind else None,
            "pickable": list(self.pickable()),
            "thrown": list(table.thrown),
            "multi_throwers": sorted(table.multi_throwers),
            "deck": list(table.deck),
            "deck_size": len(table.deck),
            "out_of_play": canonical(table.out_of_play),
            "turns_taken": table.turns_taken,
            "scores": list(table.scores),
            "options": dict(self._option_values()),
            "last_round": table.last_round,
            "result": table.result,
        }

    def legal(self) -> dict[str, Any] | None:
        table = self._t
        seat = table.to_act
        if table.phase not in IN_TURN or seat is None:
            return None
        if table.phase is Phase.CALL_OR_THROW:
            throws = sorted(
                self.legal_throws(seat, table.hands[seat]),
                key=lambda t: (len(t), [_sort_key(c) for c in t]),
            )
            return {
                "seat": seat,
                "call": self.refusal(seat, Call()) is None,
                "throws": [list(t) for t in throws],
                "picks": [],
            }
        picks: list[dict[str, Any]] = [{"from": "deck"}]
        if self.offer_open_to(seat):
            picks += [{"from": "offer", "card": c} for c in dict.fromkeys(self.pickable())]
        return {"seat": seat, "call": False, "throws": [], "picks": picks}
