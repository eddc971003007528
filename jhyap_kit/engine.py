"""TrackedEngine: the table procedure around an engine that knows only the card play.

A binding subclasses :class:`TrackedEngine`, declares what its engine implements
(``NAME``, ``VERSION``, ``RULES``) and implements a few hooks. The kit owns everything
else the protocol asks for: option resolution and ``set_option``, the deal (from the
request's layout, or ``deck`` dealt by the profile's procedure), whose turn it is, the
offer and what may be picked from it (the profile's pick rule and the multi-throw house
rule), the cards out of play, reshuffles, turn counts, multi-throwers, the events, the
phases, dealer and starter, game end, winners and standings, ``state`` and ``legal``: the
one table procedure of :mod:`jhyap_core.table`, the reference engine's own, over a card
play (:class:`HookPlay`) that asks the hooks.

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
``laid(cards, kind)`` (the default plays ``throws.laid``; by_rank orders a run without
jokers by rank),
``legal_throws(seat, hand)`` (the default asks ``refusal`` about every sub-multiset of the
hand), ``settlement(scores)`` (the default: none). Where a default would play a parameter
value otherwise than the reference (``laid`` and ``pickable_positions`` for runs with
jokers or that wrap, ``settlement`` for money), the table is refused naming the parameter
unless the binding overrides the hook (:func:`~jhyap_kit.support.default_misplay`).

Observation hooks, all optional: through them a binding reports what its engine decided,
and the kit answers with the engine's value instead of its own, so that the harness judges
it as the engine's (:data:`~jhyap_kit.support.OBSERVATIONS`; docs/kit.md, "Observation
hooks"). The kit *follows* the engine for ``observed_throw()`` (the order the throw just
made lies in, asked after ``on_throw``, in place of ``laid``), ``observed_starter()`` (who
starts the next hand, asked once a hand has ended), ``observed_game_over()`` (asked after
each hand is scored) and ``observed_winners()`` (asked as the game ends); it *reports*
``observed_hands()``, ``observed_scores()``, ``observed_deck()`` and ``observed_phase()``
in ``state`` (asked whenever it answers ``state``; the hands also in the ``dealt`` event).
``hello`` lists the state fields the kit still keeps itself (``supports.kit_kept_fields``).
The order of the hooks within each request: docs/kit.md.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar

from jhyap_core import table as core
from jhyap_core.cards import Card, names, parse_card, sorted_cards
from jhyap_core.json_types import Json
from jhyap_core.messages import (
    Action,
    Call,
    Deal,
    DealLayout,
    EngineInfo,
    Pick,
    Refusal,
    RoundScore,
    Slapdown,
    Throw,
    Timeout,
)
from jhyap_core.serving import Event
from jhyap_core.vocabulary import (
    PROTOCOL_VERSION,
    ErrorCode,
    JhyapError,
    Phase,
    StateField,
    ThrowKind,
)
from jhyap_core.vocabulary import PickSource as Source

from .options import Opened, change_option, open_table
from .support import KIT_RULES, OBSERVATIONS, RuleSupport, kit_kept_fields
from .table import KitRules, Table

__all__ = ["PROTOCOL_VERSION", "HookPlay", "TrackedEngine"]


def canonical(cards: Collection[str]) -> list[str]:
    """``cards`` in the protocol's canonical order (rank, ace first; suit c d h s; jokers last)."""
    return [c.name for c in sorted_cards(parse_card(c) for c in cards)]


def _rank(card: str) -> int:
    return parse_card(card).rank


class HookPlay:
    """The table procedure's card play, asked of a :class:`TrackedEngine`'s hooks."""

    def __init__(self, engine: TrackedEngine, kit: KitRules) -> None:
        self.engine = engine
        self.kit = kit

    def begin_hand(self, deal: Deal) -> None:
        self.engine.begin_hand(deal)

    def call_refusal(self, table: core.Table, seat: int) -> Refusal | None:
        return self.engine.refusal(seat, Call())

    def throw_refusal(self, table: core.Table, seat: int, cards: Sequence[Card]) -> Refusal | None:
        return self.engine.refusal(seat, Throw(tuple(names(cards))))

    def pick_refusal(self, table: core.Table, seat: int, card: Card | None) -> Refusal | None:
        if card is None:
            return self.engine.refusal(seat, Pick(Source.DECK))
        return self.engine.refusal(seat, Pick(Source.OFFER, card.name))

    def lay(self, seat: int, cards: Sequence[Card]) -> core.Throw:
        placed = tuple(names(cards))
        engine = self.engine
        kind = ThrowKind(engine.on_throw(seat, placed))
        if "observed_throw" in engine.observed_hooks():
            laid = tuple(engine.observed_throw())  # the engine's order, whatever it is
        else:
            laid = engine.laid(placed, kind)
        return core.Throw(tuple(parse_card(c) for c in laid), kind)

    def on_call(self, seat: int) -> None:
        self.engine.on_call(seat)

    def on_pick(self, seat: int, card: Card, from_deck: bool) -> None:
        self.engine.on_pick(seat, card.name, Source.DECK if from_deck else Source.OFFER)

    def on_reshuffle(self, stock: Sequence[Card]) -> None:
        self.engine.on_reshuffle(tuple(names(stock)))

    def hand_value(self, cards: Sequence[Card]) -> int:
        return self.engine.hand_value(tuple(names(cards))) if cards else 0

    def pickable_positions(self, offer: core.Throw) -> tuple[int, ...]:
        return self.engine.pickable_positions(tuple(names(offer.cards)), offer.kind)

    def legal_throws(self, table: core.Table, seat: int) -> list[tuple[Card, ...]]:
        found = self.engine.legal_throws(seat, names(table.hands[seat]))
        throws = [tuple(parse_card(c) for c in t) for t in found]
        return sorted(throws, key=lambda t: (len(t), [c.sort_key for c in t]))

    def score_round(
        self, table: core.Table, caller: int | None, values: Mapping[int, int]
    ) -> RoundScore:
        score = self.engine.score_round(caller, [values.get(s) for s in range(table.seats)])
        if caller is None:
            return RoundScore(None, score.deltas, score.scores, score.eliminated)
        return score

    def _weight(self, card: Card) -> tuple[int, int, int]:
        return (self.engine.hand_value((card.name,)), card.rank, card.sort_key)

    def highest_single(self, hand: Sequence[Card]) -> Card:
        return max(hand, key=self._weight)

    def lowest_pickable(self, cards: Sequence[Card]) -> Card:
        return min(cards, key=self._weight)

    def game_over(self, table: core.Table) -> bool:
        if "observed_game_over" in self.engine.observed_hooks():
            return bool(self.engine.observed_game_over())
        return self.kit.table.end.over(table.round, table.scores, table.active)

    def game_result(self, table: core.Table) -> dict[str, Any]:
        winners, standings = self.kit.table.end.ranking(
            table.scores, table.active, table.out_in_round, table.last_round
        )
        if "observed_winners" in self.engine.observed_hooks():
            winners = [int(s) for s in self.engine.observed_winners()]
        return {
            "winners": winners,
            "standings": standings,
            "scores": list(table.scores),
            "eliminated": table.eliminated,
            "settlement": self.engine.settlement(tuple(table.scores)),
        }


# The hooks whose defaults play only part of a parameter's values (support.default_misplay).
_DEFAULTED_HOOKS = ("laid", "pickable_positions", "settlement")


class TrackedEngine:
    """A protocol backend that runs the table procedure and asks its hooks about the card
    play.

    A tiny binding: an engine that throws single cards only, each card worth one point.

    >>> from pathlib import Path
    >>> import yaml
    >>> from jhyap_kit import ANY, KIT_RULES, ErrorCode, Pick, Refusal, Source, Throw
    >>> class Singles(TrackedEngine):
    ...     RULES = {**KIT_RULES, **dict.fromkeys(
    ...         ["card_values", "throws", "call", "showdown", "scoring", "money"], ANY)}
    ...     def begin_hand(self, deal): pass
    ...     def refusal(self, seat, action):
    ...         if isinstance(action, Throw) and len(action.cards) > 1:
    ...             return Refusal(ErrorCode.ILLEGAL_THROW, "singles only")
    ...         return None
    ...     def on_throw(self, seat, cards): return ThrowKind.SINGLE
    ...     def hand_value(self, cards): return len(cards)
    >>> specs = Path(__file__).resolve().parents[1] / "specs"
    >>> engine = Singles()
    >>> engine.start(yaml.safe_load((specs / "dhumbal.yaml").read_text()), {}, seats=2)
    >>> deck = [f"{rank}{suit}" for rank in "A23456789TJQK" for suit in "cdhs"]
    >>> engine.deal(deck, None)[1]["hands"]
    [['Ac', 'Ah', '2c', '2h', '3c'], ['Ad', 'As', '2d', '2s', '3d']]
    >>> engine.act(0, Throw(("Ac", "2c", "3c")))
    Traceback (most recent call last):
    jhyap_core.vocabulary.RuleViolation: singles only
    >>> engine.act(0, Throw(("Ac",)))
    [{'type': 'thrown', 'seat': 0, 'cards': ['Ac'], 'kind': 'single'}]
    >>> engine.act(0, Pick(Source.OFFER, "3h"))
    [{'type': 'picked', 'seat': 0, 'from': 'offer', 'card': '3h'}]
    >>> engine.state()["hands"][0], engine.legal()["throws"][:2]
    (['Ah', '2c', '2h', '3c', '3h'], [['Ad'], ['As']])
    """

    NAME: ClassVar[str] = "kit-engine"
    VERSION: ClassVar[str] = "0.0.0"
    LANGUAGE: ClassVar[str] = "python"
    RULES: ClassVar[RuleSupport] = KIT_RULES
    # The options the engine lets a host set; None: every option of the profile. Any other
    # is answered unsupported_option (docs/readings.md, "Points that are not readings").
    OPTIONS: ClassVar[Collection[str] | None] = None

    def __init__(self) -> None:
        self.core: core.Table | None = None
        self.rules: Mapping[str, Json] = {}  # the resolved rules of this (or the next) hand
        self.kit_rules: KitRules | None = None
        self._opened: Opened | None = None

    @property
    def table(self) -> Table | None:
        """The table in card names, as it is now, for hooks to read (None before start)."""
        return Table.of(self.core) if self.core is not None else None

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
            ranks = self._run_ranks(offer)
            return tuple(sorted({ranks.index(min(ranks)), ranks.index(max(ranks))}))
        return tuple(range(count))

    def _run_ranks(self, cards: Sequence[str]) -> list[int]:
        """The ranks of a run without jokers, an ace above the king where it stands there."""
        ranks = [_rank(c) for c in cards]
        if self._kit.run_ace != "low" and 1 in ranks and 13 in ranks:
            ranks = [14 if r == 1 else r for r in ranks]
        return ranks

    def laid(self, cards: tuple[str, ...], kind: ThrowKind) -> tuple[str, ...]:
        """``cards`` (as placed) in the order they lie on the offer, the last on top.

        The default plays ``throws.laid``: as placed; or by rank, a run without jokers by
        the ranks of its cards, a set or single in canonical order (as placed under
        runs_by_rank; an engine with wild jokers in runs overrides this)."""
        laid = self._kit.laid
        if laid == "as_placed":
            return cards
        if kind is ThrowKind.RUN and all(_rank(c) != 0 for c in cards):
            ranks = self._run_ranks(cards)
            return tuple(c for _, c in sorted(zip(ranks, cards, strict=True)))
        return cards if laid == "runs_by_rank" else tuple(canonical(cards))

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

    # -- observation hooks: what the engine decided (optional) --------------------------
    # The kit asks one only when the binding overrides it (observed_hooks); docs/kit.md.

    def observed_hands(self) -> Sequence[Sequence[str]]:
        """Every seat's hand as the engine holds it now (any order; a seat out holds none).

        Asked whenever the kit answers ``state`` and after a deal: ``state.hands`` (in
        canonical order), ``state.hand_values`` (``hand_value`` of them) and the ``dealt``
        event's hands are the engine's."""
        raise NotImplementedError

    def observed_starter(self) -> int:
        """The seat the engine has start the next hand; asked once a hand has ended.

        The kit follows it: ``state.starter``, the dealer, the next ``round_started`` and
        its turn order are the engine's."""
        raise NotImplementedError

    def observed_phase(self) -> Phase | str:
        """The engine's phase now (whether its hand or its game has ended); asked whenever
        the kit answers ``state``, which reports it as ``state.phase``."""
        raise NotImplementedError

    def observed_game_over(self) -> bool:
        """Whether the engine's game is over; asked after each hand is scored. The kit
        follows it: the ``game_ended`` event and the phase."""
        raise NotImplementedError

    def observed_winners(self) -> Sequence[int]:
        """The seats the engine has win; asked as the game ends. The kit follows it:
        ``game_ended.winners`` and ``state.result.winners``."""
        raise NotImplementedError

    def observed_scores(self) -> Sequence[int]:
        """Each seat's total as the engine keeps it; asked whenever the kit answers
        ``state``, which reports it as ``state.scores``."""
        raise NotImplementedError

    def observed_throw(self) -> Sequence[str]:
        """The cards of the throw just made, in the order the engine lays them (the last on
        top); asked after ``on_throw``, in place of ``laid``. The kit follows it: the
        ``thrown`` event, ``state.thrown`` and then ``state.offer``."""
        raise NotImplementedError

    def observed_deck(self) -> Sequence[str]:
        """The engine's deck now, top card first (after a reshuffle, the deck it made);
        asked whenever the kit answers ``state``: ``state.deck`` and ``state.deck_size``."""
        raise NotImplementedError

    # -- what the kit reports ------------------------------------------------------------

    @classmethod
    def info(cls) -> EngineInfo:
        kept = kit_kept_fields(cls.overridden_hooks() | cls.observed_hooks())
        return EngineInfo(cls.NAME, cls.VERSION, cls.LANGUAGE, kit_kept_fields=kept)

    @classmethod
    def overridden_hooks(cls) -> frozenset[str]:
        """The hooks with a default that the binding overrides: where it does not, a
        parameter value the default would misplay is refused (``support.default_misplay``).
        ``observed_throw`` stands for ``laid``: the engine lays the throw."""
        found = {name for name in _DEFAULTED_HOOKS if cls._overrides(name)}
        if cls._overrides("observed_throw"):
            found.add("laid")
        return frozenset(found)

    @classmethod
    def observed_hooks(cls) -> frozenset[str]:
        """The observation hooks the binding implements (:data:`~.support.OBSERVATIONS`)."""
        return frozenset(name for name in OBSERVATIONS if cls._overrides(name))

    @classmethod
    def _overrides(cls, name: str) -> bool:
        return getattr(cls, name) is not getattr(TrackedEngine, name)

    @property
    def _kit(self) -> KitRules:
        assert self.kit_rules is not None
        return self.kit_rules

    @property
    def _t(self) -> core.Table:
        assert self.core is not None
        return self.core

    # -- the backend: start and options ----------------------------------------------------

    def start(self, profile: Mapping[str, Json], options: Mapping[str, Json], seats: int) -> None:
        opened = open_table(
            profile, options, seats, self.RULES, self.OPTIONS, self.overridden_hooks()
        )
        kit = opened.kit_rules
        table = core.Table(opened.profile, kit.table, HookPlay(self, kit), seats)
        self._opened, self.rules, self.kit_rules = opened, opened.rules, kit
        self.core = table
        self.begin_game(self.rules, seats)

    def set_option(self, name: str, value: Json) -> list[Event]:
        assert self._opened is not None
        table = self._t
        opened = change_option(
            self._opened,
            table.phase,
            table.round,
            name,
            value,
            self.RULES,
            self.OPTIONS,
            self.overridden_hooks(),
        )
        self._opened, self.rules, self.kit_rules = opened, opened.rules, opened.kit_rules
        table.configure(opened.profile, opened.kit_rules.table, HookPlay(self, opened.kit_rules))
        shown = opened.profile["option_values"][name]
        return [{"type": "option_changed", "name": name, "value": shown}]

    # -- the backend: the procedure ---------------------------------------------------------

    def deal(self, deck: Sequence[str], layout: DealLayout | None) -> list[Event]:
        cards = [parse_card(c) for c in deck]
        placed = None
        if layout is not None:
            placed = (
                [[parse_card(c) for c in hand] for hand in layout.hands],
                parse_card(layout.turned_up) if layout.turned_up is not None else None,
                [parse_card(c) for c in layout.stock],
            )
        events = self._t.deal(cards, placed)
        if "observed_hands" in self.observed_hooks():
            hands = self._observed_hands()
            for event in events:
                if event["type"] == "dealt":
                    event["hands"] = hands
        return events

    def act(self, seat: int, action: Action) -> list[Event]:
        return self._follow(self._act(seat, action))

    def _act(self, seat: int, action: Action) -> list[Event]:
        table = self._t
        match action:
            case Call():
                return table.call(seat)
            case Throw(cards):
                return table.throw(seat, [parse_card(c) for c in cards])
            case Pick(Source.DECK):
                return table.pick(seat, None)
            case Pick(Source.OFFER, card):
                assert card is not None
                return table.pick(seat, parse_card(card))
            case Timeout():
                return table.timeout(seat)
            case Slapdown(card):
                # The kit plays no slapdown (throws.slapdown is no parameter it declares):
                # the table refuses it, slapdown_not_allowed, as it opens none.
                return table.slapdown(seat, parse_card(card))
        table.check_turn(seat)
        raise JhyapError(f"unknown action {action!r}", ErrorCode.BAD_REQUEST)

    def reshuffle(self, order: Sequence[str]) -> list[Event]:
        return self._follow(self._t.reshuffle([parse_card(c) for c in order]))

    def _follow(self, events: list[Event]) -> list[Event]:
        """After an accepted request that ended a hand, the next starter becomes the
        engine's (``observed_starter``), where the binding reports it."""
        ended = any(event["type"] == "round_ended" for event in events)
        if ended and "observed_starter" in self.observed_hooks():
            table = self._t
            starter = self.observed_starter()
            if isinstance(starter, bool) or not isinstance(starter, int):
                raise TypeError(f"observed_starter() must answer a seat, not {starter!r}")
            if not 0 <= starter < table.seats:
                raise ValueError(f"observed_starter() answered {starter}: no seat of this table")
            table.starter = starter
        return events

    def _observed_hands(self) -> list[list[str]]:
        hands = [canonical(hand) for hand in self.observed_hands()]
        if len(hands) != self._t.seats:
            raise ValueError(
                f"observed_hands() gave {len(hands)} hands for a table of {self._t.seats} seats"
            )
        return hands

    def end_game(self) -> list[Event]:
        return self._t.end_game()

    # -- views -----------------------------------------------------------------------------

    def pickable(self) -> tuple[str, ...]:
        """The cards of the offer the pick rule lets be taken, as placed."""
        return tuple(names(self._t.pickable()))

    def offer_open_to(self, seat: int) -> bool:
        """Whether ``seat`` may pick from the offer at all (the multi-throw house rule)."""
        return self._t.offer_open_to(seat)

    def state(self) -> dict[str, Any]:
        state = self._t.state()
        observed = self.observed_hooks()
        if not observed:
            return state
        # The engine's own values in place of the kit's, for the harness to judge.
        if "observed_hands" in observed:
            hands = self._observed_hands()
            state[StateField.HANDS] = hands
            state[StateField.HAND_VALUES] = [self.hand_value(h) if h else 0 for h in hands]
        if "observed_scores" in observed:
            state[StateField.SCORES] = list(self.observed_scores())
        if "observed_deck" in observed:
            deck = list(self.observed_deck())
            state[StateField.DECK], state[StateField.DECK_SIZE] = deck, len(deck)
        if "observed_phase" in observed:
            state[StateField.PHASE] = str(self.observed_phase())
        return state

    def legal(self) -> dict[str, Any] | None:
        return self._t.legal()
