"""The table procedure of Jhyap, once, over any card play (docs/protocol.md).

:class:`Table` runs what every engine side plays the same way: the seats in play and the
turn order, the starter and the dealer, the deal, the offer and what of it may be picked,
picks, the reshuffle moments and the cards kept aside, the cards out of play, the end of a
hand and the next starter, the phases, the events, ``state`` and ``legal``. It reads its
own parameters of a resolved profile's ``rules`` (:class:`TableRules`) and asks a
:class:`CardPlay` everything that is card play: whether a call or a throw is refused and
why, what a throw is and the order it is laid in, hand values, which cards of an offer may
be picked, the legal throws, a hand's scores, the timeout's cards, when the game is over
and its result. When a game ends and how its result ranks the seats is procedure too,
from the scores and the seats out: :class:`GameEnd`, which a card play asks.

Every method that changes the table first checks the whole request and raises a
JhyapError before touching anything, so a refused request leaves the table as it was.
Those methods are also ``@atomic``: should one fail anyway (a JhyapError raised late by the
card play, or a bug), the state it had begun to change is put back as it was.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Concatenate, Final, ParamSpec, Protocol, TypeVar

from .cards import SORT_KEY, Card, full_deck, names, sorted_cards
from .messages import Deal, Refusal, RoundScore
from .vocabulary import (
    BETWEEN_HANDS,
    IN_TURN,
    ErrorCode,
    JhyapError,
    Phase,
    ProfileError,
    RoundOutcome,
    RuleViolation,
    ThrowKind,
)

Event = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Throw:
    """Cards as placed, in order (the last one is placed on top), and what they are.

    >>> from jhyap_core.cards import names, parse_cards
    >>> offer = Throw(tuple(parse_cards(["5h", "3h", "4h"])), ThrowKind.RUN)
    >>> names(offer.cards), offer.kind
    (['5h', '3h', '4h'], <ThrowKind.RUN: 'run'>)
    """

    cards: tuple[Card, ...]
    kind: ThrowKind


@dataclass(frozen=True, slots=True)
class LegalActions:
    """What the seat to act may do; any order of a listed throw's cards is legal too.

    >>> from jhyap_core.cards import parse_card
    >>> legal = LegalActions(1, False, (), pick_deck=True, pick_offer=(parse_card("Ac"),))
    >>> legal.to_json()["picks"]
    [{'from': 'deck'}, {'from': 'offer', 'card': 'Ac'}]
    """

    seat: int
    call: bool
    throws: tuple[tuple[Card, ...], ...]
    pick_deck: bool
    pick_offer: tuple[Card, ...]
    # throws.slapdown: the seat that has just drawn and the card it may throw at once,
    # before this seat acts; None when no slapdown is open.
    slapdown: tuple[int, Card] | None = None

    def to_json(self) -> dict[str, Any]:
        picks: list[dict[str, Any]] = [{"from": "deck"}] if self.pick_deck else []
        picks += [{"from": "offer", "card": str(c)} for c in self.pick_offer]
        legal: dict[str, Any] = {
            "seat": self.seat,
            "call": self.call,
            "throws": [names(t) for t in self.throws],
            "picks": picks,
        }
        if self.slapdown is not None:
            legal["slapdown"] = {"seat": self.slapdown[0], "card": str(self.slapdown[1])}
        return legal


@dataclass(frozen=True, slots=True)
class GameEnd:
    """When a game ends and how its result ranks the seats (``rules.game_end``, and
    ``scoring.kind``: under transfer scoring the highest total is best, else the lowest).

    >>> end = GameEnd("fixed_rounds", rounds=3, out_above=None, reaching_is_out=False,
    ...               higher_wins=False)
    >>> end.over(2, [10, 4, 4], [0, 1, 2]), end.over(3, [10, 4, 4], [0, 1, 2])
    (False, True)
    >>> end.winners([10, 4, 4], [0, 1, 2]), end.standings([10, 4, 4], {})
    ([1, 2], [1, 2, 0])
    """

    kind: str
    rounds: int | None
    out_above: int | None
    reaching_is_out: bool
    higher_wins: bool

    @classmethod
    def read(cls, rules: Mapping[str, Any]) -> GameEnd:
        """The game end of a resolved profile's ``rules``; ValueError when its kind lacks
        the number it needs."""
        end = rules["game_end"]
        made = cls(
            kind=str(end["kind"]),
            rounds=end.get("rounds"),
            out_above=end.get("out_above"),
            reaching_is_out=bool(end.get("reaching_is_out", False)),
            higher_wins=rules["scoring"]["kind"] == "transfer",
        )
        if made.kind == "fixed_rounds" and not made.rounds:
            raise ValueError("game_end.rounds: fixed_rounds needs a number of rounds")
        if made.kind == "first_past_target" and made.out_above is None:
            raise ValueError("game_end.out_above: first_past_target needs a target")
        return made

    def past_target(self, scores: Sequence[int], active: Sequence[int]) -> bool:
        """Whether a seat in play has passed the target (or reached it, where that counts)."""
        limit = self.out_above
        assert limit is not None
        if self.reaching_is_out:
            return any(scores[s] >= limit for s in active)
        return any(scores[s] > limit for s in active)

    def over(self, round_number: int, scores: Sequence[int], active: Sequence[int]) -> bool:
        """Whether the game ends after hand ``round_number`` (a host_ends table never does)."""
        if self.kind == "one_hand":
            return True
        if self.kind == "first_past_target":
            return self.past_target(scores, active)
        if self.kind == "elimination":
            return len(active) <= 1
        if self.kind == "fixed_rounds":
            return self.rounds is not None and round_number >= self.rounds
        return False

    def winners(self, scores: Sequence[int], active: Sequence[int]) -> list[int]:
        """The seats that win (docs/protocol.md, "Game result"): always the first seats of
        the standings. The last seat in after an elimination; after fixed rounds every seat
        still in with the best total; the same after a game that ends when a total passes
        its target; none at an open table, whose result is its settlement."""
        if self.kind == "elimination":
            return sorted(active)
        if self.kind in ("fixed_rounds", "first_past_target"):
            pick = max if self.higher_wins else min
            best = pick(scores[s] for s in active)
            return [s for s in sorted(active) if scores[s] == best]
        return []

    def standings(self, scores: Sequence[int], out_in_round: Mapping[int, int]) -> list[int]:
        """Seats from best to worst (docs/protocol.md, "Game result").

        Seats still in come first, by score (the best first); then the seats that are out,
        the later round first, then by score the same way. Equal places go to the lower
        seat number.
        """
        sign = -1 if self.higher_wins else 1
        return sorted(
            range(len(scores)), key=lambda s: (-out_in_round.get(s, 1 << 30), sign * scores[s], s)
        )

    def ranking(
        self,
        scores: Sequence[int],
        active: Sequence[int],
        out_in_round: Mapping[int, int],
        last_round: Mapping[str, Any] | None,
    ) -> tuple[list[int], list[int]]:
        """The result's winners and standings: a one-hand game's by its hand, else by score."""
        if self.kind == "one_hand" and last_round is not None:
            return hand_winners(last_round), hand_standings(last_round)
        return self.winners(scores, active), self.standings(scores, out_in_round)


def next_active(seats: int, active: Collection[int], seat: int) -> int:
    """The first seat in play after ``seat``, in seat order around a table of ``seats``."""
    for step in range(1, seats + 1):
        candidate = (seat + step) % seats
        if candidate in active:
            return candidate
    raise AssertionError("no seat in play")


def turn_order_from(seats: int, active: Iterable[int], first: int) -> list[int]:
    """The seats in play in turn order, from ``first`` (or the next one after it)."""
    return sorted(active, key=lambda s: (s - first) % seats)


_Card = TypeVar("_Card")  # a card as a deal is given it (Card, or its name)


def dealt_from(
    order: Sequence[_Card], turn: Sequence[int], size: int, turn_up: bool = True
) -> tuple[dict[int, list[_Card]], _Card | None, list[_Card]]:
    """A deal from ``order`` (top first): ``size`` cards to each seat of ``turn``, one at a
    time in that order; then the turned-up card (None when ``turn_up`` is false:
    ``deal.first_offer`` none) and the stock (top first)."""
    hands: dict[int, list[_Card]] = {seat: [] for seat in turn}
    cut = size * len(turn)
    for i, card in enumerate(order[:cut]):
        hands[turn[i % len(turn)]].append(card)
    if not turn_up:
        return hands, None, list(order[cut:])
    return hands, order[cut], list(order[cut + 1 :])


def next_starter(
    rule: str,
    seats: int,
    active: Collection[int],
    starter: int,
    caller: int | None,
    winner: int | None,
    out: Collection[int],
    first_starter: int = 0,
) -> int:
    """Who starts the next hand under ``next_starter`` ``rule``, before skipping the seats
    ``out`` (those the hand put out, still in ``active``); ``first_starter`` is
    ``deal.first_starter``, the seat that starts every hand under ``first_starter``."""
    if rule == "first_starter":
        return first_starter % seats
    if winner is not None and winner not in out:
        if rule == "round_winner":
            return winner
        if rule == "seat_after_round_winner":
            return next_active(seats, active, winner)
    if rule == "caller" and caller is not None and caller not in out:
        return caller
    return next_active(seats, active, starter)


def hand_winners(last_round: Mapping[str, Any]) -> list[int]:
    """A one-hand game's winners: the hand's winner, or, when the hand ended with no call
    (the deck ran out), every seat with the lowest hand value."""
    if last_round.get("winner") is not None:
        return [int(last_round["winner"])]
    values = {s: v for s, v in enumerate(last_round["hand_values"]) if v is not None}
    lowest = min(values.values())
    return [s for s, v in sorted(values.items()) if v == lowest]


def hand_standings(last_round: Mapping[str, Any]) -> list[int]:
    """A one-hand game's standings: its winners, then by hand value, the lower seat first
    on equal values."""
    first = hand_winners(last_round)
    values = last_round["hand_values"]
    rest = sorted(
        (s for s in range(len(values)) if s not in first),
        key=lambda s: (values[s] is None, values[s] or 0, s),
    )
    return [*first, *rest]


@dataclass(frozen=True, slots=True)
class TableRules:
    """The parameters of a resolved profile's ``rules`` that the table procedure plays."""

    seats_min: int
    seats_max: int
    hand_size: int
    packs_by_seats: tuple[tuple[int, int], ...]
    jokers_per_pack: int
    ranks_left_out: tuple[int, ...]
    has_dealer: bool
    first_starter: int
    turns_up_first_offer: bool  # deal.first_offer turned_up_card (else none)
    next_starter: str
    only_after_multi_throw: bool
    multi_throw_scope: str
    reshuffle_moment: str
    kept_aside: str
    deck_runs_out: str
    deck_runs_out_when: str
    end: GameEnd
    timer_seconds: int
    timer_take_lowest: bool
    slapdown: str = "none"

    @classmethod
    def read(cls, rules: Any) -> TableRules:
        """The procedure's parameters of ``rules``; ProfileError when one is missing or of
        the wrong type."""
        try:
            return cls._read(rules)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ProfileError(
                f"profile rules are incomplete or malformed: {exc!r}", ErrorCode.INVALID_PROFILE
            ) from None

    @classmethod
    def _read(cls, r: Mapping[str, Any]) -> TableRules:
        timer = r.get("turn_timer")
        deck = r["deck"]
        made = cls(
            seats_min=_int(r["seats"]["min"]),
            seats_max=_int(r["seats"]["max"]),
            hand_size=_int(r["hand_size"]),
            packs_by_seats=tuple(
                (_int(step["from_seats"]), _int(step["packs"]))
                for step in deck.get("packs_by_seats") or ()
            ),
            jokers_per_pack=_int(deck["jokers"]),
            ranks_left_out=tuple(
                sorted(
                    "A23456789TJQK".index(str(rank)) + 1
                    for rank in deck.get("ranks_left_out") or ()
                )
            ),
            has_dealer=r["deal"]["dealer"] != "none",
            first_starter=_int(r["deal"]["first_starter"]),
            turns_up_first_offer=r["deal"]["first_offer"] != "none",
            next_starter=str(r["next_starter"]),
            only_after_multi_throw=bool(r["pick"]["only_after_multi_throw"]),
            multi_throw_scope=str(r["pick"].get("multi_throw_scope", "hand")),
            reshuffle_moment=str(r["reshuffle"]["moment"]),
            kept_aside=str(r["reshuffle"]["kept_aside"]),
            deck_runs_out=str(r.get("deck_runs_out", "reshuffle")),
            deck_runs_out_when=str(r.get("deck_runs_out_when", "last_card_taken")),
            end=GameEnd.read(r),
            timer_seconds=_int(timer["seconds"]) if timer else 0,
            timer_take_lowest=timer is not None
            and timer["on_expiry"] == "throw_highest_single_then_take_lowest",
            slapdown=str(r["throws"].get("slapdown", "none")),
        )
        if not 2 <= made.seats_min <= made.seats_max or made.hand_size < 1:
            raise ValueError("the seat range is empty or below two, or the hand size below one")
        # Two cards beyond the hands under either first_offer: with none the stock then holds
        # two, so the first draw never empties the deck while no card is out of play.
        for seats in range(made.seats_min, made.seats_max + 1):
            if seats * made.hand_size + 2 > len(made.deck_for(seats)):
                raise ValueError(f"hand_size: {seats} hands and a turned-up card need more cards")
        return made

    @property
    def game_end(self) -> str:
        """``game_end.kind``."""
        return self.end.kind

    @property
    def ends_hand_at_empty_draw(self) -> bool:
        """Whether a draw that finds the deck empty ends the hand (the ``round_ends_*``
        values; otherwise it waits for a new deck). Under offer_under_deck only a short deck
        dealt, at the first pick of a hand with no turned-up card, is found empty."""
        return self.deck_runs_out in ("round_ends_no_score", "round_ends_hands_score")

    @property
    def ends_hand_at_last_card(self) -> bool:
        """Whether the pick that takes the deck's last card ends the hand: where the deck is
        not remade, under deck_runs_out_when last_card_taken, and always under
        offer_under_deck, which reads no deck_runs_out_when (its deck empties only when
        dealt short)."""
        return self.deck_runs_out != "reshuffle" and (
            self.deck_runs_out_when == "last_card_taken" or self.deck_runs_out == "offer_under_deck"
        )

    @property
    def pack_cards(self) -> int:
        """The cards of one pack before its jokers: 52 less the ranks left out."""
        return 52 - 4 * len(self.ranks_left_out)

    def packs_for(self, seats: int) -> int:
        packs = 1
        for from_seats, step_packs in self.packs_by_seats:
            if seats >= from_seats:
                packs = step_packs
        return packs

    def deck_for(self, seats: int) -> tuple[Card, ...]:
        """Every card of a table of ``seats``: its packs and their jokers."""
        return full_deck(self.packs_for(seats), self.jokers_per_pack, self.ranks_left_out)


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{value!r} is not an integer")
    return value


class CardPlay(Protocol):
    """What the table procedure asks about the card play; only ``begin_hand`` and the
    ``on_*`` methods may change the card play's own state (never the table's)."""

    def begin_hand(self, deal: Deal) -> None:
        """A hand starts from the cards as placed."""

    def call_refusal(self, table: Table, seat: int) -> Refusal | None:
        """Why ``seat``'s call is refused now, or None."""

    def throw_refusal(self, table: Table, seat: int, cards: Sequence[Card]) -> Refusal | None:
        """Why ``seat`` may not throw ``cards`` (held, each at most as often as held), or None."""

    def pick_refusal(self, table: Table, seat: int, card: Card | None) -> Refusal | None:
        """Why the card play refuses a pick the procedure allows (``card`` None: the deck)."""

    def lay(self, seat: int, cards: Sequence[Card]) -> Throw:
        """``seat`` throws ``cards`` (accepted): what the throw is, in the order it is laid."""

    def on_call(self, seat: int) -> None:
        """``seat`` calls."""

    def on_pick(self, seat: int, card: Card, from_deck: bool) -> None:
        """``seat`` takes ``card``."""

    def on_reshuffle(self, stock: Sequence[Card]) -> None:
        """The cards out of play become the deck, ``stock[0]`` on top."""

    def hand_value(self, cards: Sequence[Card]) -> int:
        """The value of ``cards``."""

    def pickable_positions(self, offer: Throw) -> tuple[int, ...]:
        """The positions of ``offer`` (as placed) that the pick rule lets be taken."""

    def legal_throws(self, table: Table, seat: int) -> list[tuple[Card, ...]]:
        """Every throw ``seat`` may make now, each in canonical order, each once."""

    def score_round(
        self, table: Table, caller: int | None, values: Mapping[int, int]
    ) -> RoundScore:
        """Score the hand just ended (``caller`` None: the deck ran out); ``values`` per
        seat in play. ``scores`` are the totals after the profile's cuts."""

    def highest_single(self, hand: Sequence[Card]) -> Card:
        """The card a timeout throws from ``hand``."""

    def lowest_pickable(self, cards: Sequence[Card]) -> Card:
        """The card a timeout takes of the pickable ``cards``."""

    def game_over(self, table: Table) -> bool:
        """Whether the hand just scored ends the game."""

    def game_result(self, table: Table) -> dict[str, Any]:
        """The game's result: winners, standings, scores, eliminated, settlement."""


_P = ParamSpec("_P")
_R = TypeVar("_R")
_T = TypeVar("_T", bound="Table")
# pick.multi_throw_scope, as a refused pick from the offer words it.
_MULTI_THROW_WHEN: Final = {"turn": "this turn", "hand": "this round", "game": "in this game"}

# The table's attributes that a request changes in place, by how a snapshot copies them.
# Every other attribute is immutable or replaced whole (a dict such as ``last_round`` is
# built anew, never edited), so a snapshot shares it; tests/test_hardening.py checks that
# no other attribute ever holds a list, dict or set that is edited.
FLAT_LISTS = ("scores", "active", "deck", "out_of_play", "set_aside")  # of seats or cards
NESTED_LISTS = ("hands",)  # lists of lists of cards
DICTS_AND_SETS = ("out_in_round", "multi_throwers")  # of seats
REPLACED_ONLY = frozenset(
    {"document", "profile", "rules", "last_round", "result", "table_rules", "play"}
)


def _snapshot(table: Table) -> dict[str, Any]:
    """The table's attributes, with a copy of each container a request edits in place."""
    saved = vars(table).copy()
    for name in FLAT_LISTS:
        saved[name] = saved[name][:]
    for name in NESTED_LISTS:
        saved[name] = [inner[:] for inner in saved[name]]
    for name in DICTS_AND_SETS:
        saved[name] = saved[name].copy()
    return saved


def atomic(
    method: Callable[Concatenate[_T, _P], _R],
) -> Callable[Concatenate[_T, _P], _R]:
    """Run ``method`` so that, if it raises, the table is left exactly as it was."""

    @functools.wraps(method)
    def run(table: _T, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        saved = _snapshot(table)
        try:
            return method(table, *args, **kwargs)
        except BaseException:
            vars(table).clear()
            vars(table).update(saved)
            raise

    return run


# An enum's value is a property, slow on the state's path: looked up in a dict instead.
_PHASE_NAMES = {phase: phase.value for phase in Phase}
_KIND_NAMES = {kind: kind.value for kind in ThrowKind}


def _refuse(refusal: Refusal | None) -> None:
    if refusal is not None:
        raise RuleViolation(refusal.message, refusal.code)


class Table:
    """One table: seats, scores across hands, and the hand in progress."""

    def __init__(
        self, profile: Mapping[str, Any], table_rules: TableRules, play: CardPlay, seats: int
    ) -> None:
        if (
            isinstance(seats, bool)
            or not isinstance(seats, int)
            or not (table_rules.seats_min <= seats <= table_rules.seats_max)
        ):
            raise JhyapError(
                f"seats must be {table_rules.seats_min} to {table_rules.seats_max}, not {seats!r}",
                ErrorCode.INVALID_SEATS,
            )
        self.profile = profile
        self.table_rules = table_rules
        self.play = play
        self.seats = seats
        self.phase = Phase.AWAITING_DEAL
        self.round = 0
        self.scores = [0] * seats
        self.active: list[int] = list(range(seats))
        self.out_in_round: dict[int, int] = {}  # seat -> round it went out, in that order
        self.starter = table_rules.first_starter % seats
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
        # Seats the offer is open to under pick.only_after_multi_throw: those that threw two
        # or more cards together this hand (multi_throw_scope hand), this game (game), or
        # this turn, until its pick (turn).
        self.multi_throwers: set[int] = set()
        # throws.slapdown: the seat that has just drawn a card of its single's rank from the
        # deck, and that card, until the next seat acts; None when no slapdown is open.
        self.slapdown_open: tuple[int, Card] | None = None
        self.last_round: dict[str, Any] | None = None
        self.result: dict[str, Any] | None = None

    # -- seats -------------------------------------------------------------

    def next_active(self, seat: int) -> int:
        return next_active(self.seats, self.active, seat)

    def turn_order_from(self, first: int) -> list[int]:
        return turn_order_from(self.seats, self.active, first)

    @property
    def eliminated(self) -> list[int]:
        """Seats that are out, in the order they went out."""
        return list(self.out_in_round)

    @property
    def dealer(self) -> int | None:
        """The last seat in play in turn order from the starter."""
        if not self.table_rules.has_dealer:
            return None
        for step in range(1, self.seats + 1):
            seat = (self.starter - step) % self.seats
            if seat in self.active:
                return seat
        raise IndexError("no seat in play")

    def hand_value(self, seat: int) -> int:
        return self.play.hand_value(self.hands[seat])

    @property
    def full_deck(self) -> tuple[Card, ...]:
        """Every card this table plays with: its packs and their jokers."""
        return self.table_rules.deck_for(self.seats)

    def configure(
        self, profile: Mapping[str, Any], table_rules: TableRules, play: CardPlay
    ) -> None:
        """Play the next hands under ``profile`` (resolved anew), its parameters and ``play``."""
        self.profile, self.table_rules, self.play = profile, table_rules, play

    def pickable(self) -> tuple[Card, ...]:
        """The cards of the offer the pick rule lets be taken, as placed, each occurrence."""
        offer = self.offer
        if offer is None:
            return ()
        return tuple(offer.cards[i] for i in self.play.pickable_positions(offer))

    def offer_open_to(self, seat: int) -> bool:
        """Whether ``seat`` may pick from the offer at all (the multi-throw house rule)."""
        return not self.table_rules.only_after_multi_throw or seat in self.multi_throwers

    # -- between hands ------------------------------------------------------

    @atomic
    def deal(
        self,
        order: Sequence[Card],
        layout: tuple[list[list[Card]], Card | None, list[Card]] | None = None,
    ) -> list[Event]:
        """Deal a hand from ``order``, every card of the table's deck, the first dealt first;
        or, with ``layout`` (hands, turned-up card, stock top first), as laid out there.
        Under ``deal.first_offer`` none no card is turned up (the layout's is None) and the
        hand starts with no offer."""
        if self.phase not in BETWEEN_HANDS:
            raise RuleViolation(f"cannot deal in phase {self.phase}", ErrorCode.WRONG_PHASE)
        rules = self.table_rules
        deck = self.full_deck
        if len(order) != len(deck) or Counter(order) != Counter(deck):
            if len(deck) == 52:
                raise JhyapError(
                    "deal needs each of the 52 cards exactly once", ErrorCode.INVALID_DECK
                )
            raise JhyapError(
                f"deal needs the table's {len(deck)} cards: {rules.packs_for(self.seats)}"
                f" pack(s) of {rules.pack_cards} with {rules.jokers_per_pack}"
                " joker(s) each",
                ErrorCode.INVALID_DECK,
            )
        seats = self.turn_order_from(self.starter)
        size = rules.hand_size
        if layout is None:
            dealt, turned_up, stock = dealt_from(order, seats, size, rules.turns_up_first_offer)
            hands: list[list[Card]] = [dealt.get(seat, []) for seat in range(self.seats)]
        else:
            hands, turned_up, stock = layout
            shaped = len(hands) == self.seats and all(
                len(hand) == (size if seat in self.active else 0) for seat, hand in enumerate(hands)
            )
            placed = [c for hand in hands for c in hand] + [turned_up, *stock]
            if (
                not shaped
                or (turned_up is None) == rules.turns_up_first_offer
                or Counter(placed) != Counter([*order, None] if turned_up is None else order)
            ):
                turned = "turned_up" if rules.turns_up_first_offer else "turned_up (null)"
                raise JhyapError(
                    f"the deal's hands, {turned} and stock must hold the deck's cards: {size}"
                    " to each seat in play, none to a seat that is out",
                    ErrorCode.INVALID_DECK,
                )
        self.play.begin_hand(
            Deal(
                round=self.round + 1,
                starter=self.starter,
                dealer=self.dealer,
                turn_order=tuple(seats),
                hands=tuple(tuple(names(sorted_cards(h))) for h in hands),
                turned_up=turned_up.name if turned_up is not None else None,
                stock=tuple(names(stock)),
            )
        )
        self.hands = hands
        self.deck = stock[::-1]
        # With no card turned up the first player has nothing to pick from: their throw is
        # the first offer.
        self.offer = Throw((turned_up,), ThrowKind.SINGLE) if turned_up is not None else None
        self.thrown = None
        self.out_of_play = []
        self.draw_waiting = None
        self.timeout_waiting = None
        self.slapdown_open = None
        self.set_aside = []
        self.turns_taken = 0
        if rules.multi_throw_scope != "game":
            # A seat's throws of two or more cards count for the hand (or the turn) only.
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
                "turned_up": str(turned_up) if turned_up is not None else None,
                "deck_size": len(self.deck),
            },
        ]

    @atomic
    def end_game(self) -> list[Event]:
        """The host ends an open table between hands."""
        if self.table_rules.game_end != "host_ends":
            raise RuleViolation(
                "this profile's game ends by its own rules, not by the host",
                ErrorCode.GAME_NOT_ENDABLE,
            )
        if self.phase not in BETWEEN_HANDS:
            raise RuleViolation("the table can be ended only between hands", ErrorCode.WRONG_PHASE)
        return self._finish_game()

    # -- turns --------------------------------------------------------------

    def check_turn(self, seat: int) -> None:
        """The seat, the phase and the turn of an ``act``, in the order of checks."""
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.seats:
            raise JhyapError(f"no seat {seat!r} at this table", ErrorCode.INVALID_SEAT)
        if self.phase not in IN_TURN:
            raise RuleViolation(
                f"no turn is in progress (phase {self.phase})", ErrorCode.WRONG_PHASE
            )
        if seat != self.to_act:
            raise RuleViolation(
                f"it is seat {self.to_act}'s turn, not seat {seat}'s", ErrorCode.NOT_YOUR_TURN
            )

    @atomic
    def call(self, seat: int) -> list[Event]:
        self.check_turn(seat)
        return self._call(seat)

    @atomic
    def throw(self, seat: int, cards: Sequence[Card]) -> list[Event]:
        self.check_turn(seat)
        return self._throw(seat, cards)

    @atomic
    def pick(self, seat: int, card: Card | None) -> list[Event]:
        """``seat`` takes the deck's top card (``card`` None) or ``card`` from the offer."""
        self.check_turn(seat)
        self._require_phase(Phase.PICK, "pick")
        if card is not None:
            self._check_offer_pick(seat, card)
        _refuse(self.play.pick_refusal(self, seat, card))
        return self._pick(seat, card)

    @atomic
    def timeout(self, seat: int) -> list[Event]:
        self.check_turn(seat)
        return self._timeout(seat)

    @atomic
    def slapdown(self, seat: int, card: Card) -> list[Event]:
        """``seat``, which has just drawn ``card``, throws it onto its single at once."""
        return self._slapdown(seat, card)

    def _require_phase(self, phase: Phase, what: str) -> None:
        if self.phase is not phase:
            raise RuleViolation(f"cannot {what} in phase {self.phase}", ErrorCode.WRONG_PHASE)

    def _call(self, seat: int) -> list[Event]:
        self._require_phase(Phase.CALL_OR_THROW, "call (calls come before the throw)")
        if self.hands[seat]:
            # A hand a slapdown emptied must call (throws.slapdown): no refusal applies.
            _refuse(self.play.call_refusal(self, seat))
        self.slapdown_open = None
        value = self.hand_value(seat)
        self.play.on_call(seat)
        return [{"type": "called", "seat": seat, "value": value}, *self._end_round(seat)]

    def _throw(self, seat: int, cards: Sequence[Card], forced: bool = False) -> list[Event]:
        self._require_phase(Phase.CALL_OR_THROW, "throw (one throw a turn)")
        self.slapdown_open = None
        hand = self.hands[seat]
        missing = [c for c in cards if c not in hand]
        if missing:
            raise RuleViolation(
                f"seat {seat} does not hold {', '.join(names(missing))}", ErrorCode.CARD_NOT_IN_HAND
            )
        held = Counter(hand)
        if not cards or any(n > held[c] for c, n in Counter(cards).items()):
            raise RuleViolation(
                f"{' '.join(names(cards)) or 'nothing'} is not a single, "
                "a set of one rank or a run in one suit",
                ErrorCode.ILLEGAL_THROW,
            )
        if not forced:
            _refuse(self.play.throw_refusal(self, seat, cards))
        thrown = self.play.lay(seat, cards)
        for card in cards:
            hand.remove(card)
        self.thrown = thrown
        kind = thrown.kind
        if len(cards) >= 2:
            self.multi_throwers.add(seat)
        self.phase = Phase.PICK
        events: list[Event] = [
            {"type": "thrown", "seat": seat, "cards": names(thrown.cards), "kind": kind.value}
        ]
        if (
            not self.deck
            and self.table_rules.deck_runs_out == "reshuffle"
            and self.table_rules.reshuffle_moment == "at_throw_after_deck_emptied"
        ):
            # The deck is remade now, before the pick, whichever way the seat then picks.
            self._keep_aside_from_offer()
            self.phase = Phase.AWAITING_RESHUFFLE
            events.append(
                {"type": "reshuffle_needed", "cards": names(sorted_cards(self.out_of_play))}
            )
        return events

    def _check_offer_pick(self, seat: int, card: Card) -> None:
        if self.offer is None:
            # deal.first_offer none: the hand's first pick has no throw before it to take from.
            raise RuleViolation(
                f"{card} is not on offer: no card is on offer before the hand's first throw",
                ErrorCode.CARD_NOT_ON_OFFER,
            )
        if card not in self.offer.cards:
            raise RuleViolation(f"{card} is not on offer", ErrorCode.CARD_NOT_ON_OFFER)
        if not self.offer_open_to(seat):
            when = _MULTI_THROW_WHEN.get(self.table_rules.multi_throw_scope, "this round")
            raise RuleViolation(
                f"thrown cards may be picked only after throwing two or more cards together {when}",
                ErrorCode.PICK_NOT_ALLOWED,
            )
        allowed = self.pickable()
        if card not in allowed:
            raise RuleViolation(
                f"{card} may not be picked from this throw; allowed: {', '.join(names(allowed))}",
                ErrorCode.PICK_NOT_ALLOWED,
            )

    def _pick(self, seat: int, card: Card | None) -> list[Event]:
        assert self.thrown is not None
        if card is None and not self.deck:
            if self.table_rules.ends_hand_at_empty_draw:
                return self._end_round(None)  # deck_runs_out_when draw_finds_deck_empty
            return self._await_new_deck(seat)
        thrown = self.thrown
        from_deck = card is None
        # No offer (deal.first_offer none, the hand's first pick): nothing goes out of play.
        rest = list(self.offer.cards) if self.offer else []
        if card is None:
            card = self.deck.pop()
            self.play.on_pick(seat, card, True)
            events: list[Event] = [
                {"type": "picked", "seat": seat, "from": "deck", "card": str(card)}
            ]
        else:
            self.play.on_pick(seat, card, False)
            rest.remove(card)  # one copy: with several packs the offer may repeat a card
            events = [{"type": "picked", "seat": seat, "from": "offer", "card": str(card)}]
        self.hands[seat].append(card)
        held = self._held_back(rest)
        if held:
            assert self.offer is not None
            # The previous throw's takeable cards stay out of the new deck made at once; they
            # wait on offer, beside the throw just made, until the reshuffle.
            rest = [c for i, c in enumerate(self.offer.cards) if i not in held]
            kept = tuple(c for i, c in enumerate(self.offer.cards) if i in held)
            self.offer = Throw(kept, self.offer.kind)
        if rest and self.table_rules.deck_runs_out == "offer_under_deck":
            # The cards leaving play go under the deck at once, the first placed nearest
            # the top (the deck is kept top last), so the deck never runs out.
            self.deck[0:0] = rest[::-1]
            events.append({"type": "under_deck", "cards": names(rest)})
        else:
            self.out_of_play.extend(rest)
            if rest:
                events.append({"type": "out_of_play", "cards": names(sorted_cards(rest))})
        if not held:
            self.offer, self.thrown = self.thrown, None
        self.turns_taken += 1
        self.to_act = self.next_active(seat)
        rules = self.table_rules
        if rules.multi_throw_scope == "turn":
            # This turn's throw opened the offer for this turn's pick only.
            self.multi_throwers = set()
        if self.deck:
            self.phase = Phase.CALL_OR_THROW
        elif rules.ends_hand_at_last_card:
            events += self._end_round(None)
        elif rules.deck_runs_out != "reshuffle" or rules.reshuffle_moment != "when_deck_emptied":
            self.phase = Phase.CALL_OR_THROW
        else:
            self.phase = Phase.AWAITING_RESHUFFLE
            events.append(
                {"type": "reshuffle_needed", "cards": names(sorted_cards(self.out_of_play))}
            )
        if (
            from_deck
            and rules.slapdown == "same_rank_as_single"
            and self.phase is Phase.CALL_OR_THROW
            and self.offer is thrown
            and thrown.kind is ThrowKind.SINGLE
            and card.rank == thrown.cards[0].rank
        ):
            # The card drawn has the rank of the single this seat just threw: it may follow
            # the single at once, until the next seat acts.
            self.slapdown_open = (seat, card)
        return events

    def _slapdown(self, seat: int, card: Card) -> list[Event]:
        """Throw the card just drawn onto one's own single (throws.slapdown): it lies on
        top and is the offer now, a single; the single it covers goes out of play."""
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.seats:
            raise JhyapError(f"no seat {seat!r} at this table", ErrorCode.INVALID_SEAT)
        if self.phase not in IN_TURN:
            raise RuleViolation(
                f"no turn is in progress (phase {self.phase})", ErrorCode.WRONG_PHASE
            )
        opened = self.slapdown_open
        if opened != (seat, card):
            if self.table_rules.slapdown == "none":
                why = "this table does not play slapdown (throws.slapdown none)"
            elif opened is None:
                why = "no slapdown is open: none follows a draw of the rank of one's own single"
            else:
                why = f"only seat {opened[0]} may slap down, and only {opened[1]}, just drawn"
            raise RuleViolation(why, ErrorCode.SLAPDOWN_NOT_ALLOWED)
        assert self.offer is not None
        covered = list(self.offer.cards)
        self.hands[seat].remove(card)
        self.out_of_play.extend(covered)
        self.offer = Throw((card,), ThrowKind.SINGLE)
        self.slapdown_open = None
        return [
            {"type": "slapped_down", "seat": seat, "card": str(card)},
            {"type": "out_of_play", "cards": names(sorted_cards(covered))},
        ]

    def _held_back(self, rest: Sequence[Card]) -> set[int]:
        """Positions of the offer kept out of a deck remade as this pick empties it.

        Only under reshuffle.moment when_deck_emptied with kept_aside pickable_and_throw or
        offer_and_card_under, after a draw of the deck's last card: the previous throw's
        takeable cards, or its top (last placed) card, which lies under the throw just made.
        None when the new deck would then have no card at all.
        """
        rules = self.table_rules
        if (
            self.deck
            or rules.deck_runs_out != "reshuffle"
            or rules.reshuffle_moment != "when_deck_emptied"
            or rules.kept_aside not in ("pickable_and_throw", "offer_and_card_under")
            or self.offer is None
            or len(rest) != len(self.offer.cards)
        ):
            return set()
        if rules.kept_aside == "offer_and_card_under":
            held = {len(self.offer.cards) - 1}
        else:
            held = set(self.play.pickable_positions(self.offer))
        if not self.out_of_play and len(held) == len(self.offer.cards):
            return set()
        return held

    def _keep_aside_from_offer(self) -> None:
        """With kept_aside pickable_and_throw, the offer's cards that cannot be taken join
        the new deck; by position, since with two packs or two jokers a name can be both.
        No offer (deal.first_offer none, before the hand's first pick): nothing to keep."""
        if self.offer is not None and self.table_rules.kept_aside == "pickable_and_throw":
            keep = set(self.play.pickable_positions(self.offer))
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
        if self.table_rules.timer_seconds <= 0:
            raise RuleViolation("the turn timer is off at this table", ErrorCode.TIMER_OFF)
        events: list[Event] = [{"type": "timed_out", "seat": seat}]
        if self.phase is Phase.CALL_OR_THROW and not self.hands[seat]:
            return events + self._call(seat)  # a hand a slapdown emptied must call
        if self.phase is Phase.CALL_OR_THROW:
            highest = self.play.highest_single(self.hands[seat])
            # The timer's single is forced: the card play's refusals are not asked.
            events += self._throw(seat, (highest,), forced=True)
            after: Phase = self.phase  # the throw may have called for a new deck
            if after is Phase.AWAITING_RESHUFFLE:
                # The deck is remade at this throw; the timeout's pick follows the reshuffle.
                self.timeout_waiting = seat
                return events
        return events + self._timeout_pick(seat)

    def _timeout_pick(self, seat: int) -> list[Event]:
        """A timeout's pick: the lowest takeable card (take_lowest) or the deck's top."""
        take: Card | None = None
        open_offer = self.offer is not None and self.offer_open_to(seat)
        if self.table_rules.timer_take_lowest and open_offer:
            pickable = self.pickable()
            if pickable:
                take = self.play.lowest_pickable(pickable)
        return self._pick(seat, take)

    @atomic
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
        self.play.on_reshuffle(order)
        self.slapdown_open = None
        self.deck = list(reversed(order))
        self.out_of_play = []
        self.phase = Phase.CALL_OR_THROW
        events: list[Event] = [{"type": "reshuffled", "deck_size": len(self.deck)}]
        if self.draw_waiting is not None:
            seat, self.draw_waiting = self.draw_waiting, None
            self.phase = Phase.PICK
            events += self._pick(seat, None)
        elif self.thrown is not None and self.to_act is not None:
            if self.table_rules.reshuffle_moment == "when_deck_emptied":
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
        score = self.play.score_round(self, caller, values)
        if len(score.deltas) != self.seats or len(score.scores) != self.seats:
            raise RuntimeError("score_round must give deltas and scores for every seat")
        if caller is None:
            outcome, winner = RoundOutcome.DECK_RAN_OUT.value, None
        else:
            winner = score.winner
            won = winner == caller
            outcome = (RoundOutcome.WON_CALL if won else RoundOutcome.BEATEN_CALL).value
        self.scores[:] = score.scores
        out = sorted(score.eliminated)
        self.last_round = {
            "round": self.round,
            "outcome": outcome,
            "caller": caller,
            "winner": winner,
            "hand_values": [values.get(s) for s in range(self.seats)],
            "deltas": list(score.deltas),
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
        if self.play.game_over(self):
            events += self._finish_game()
        return events

    def _next_starter(self, caller: int | None, winner: int | None, out: Sequence[int]) -> int:
        """Who starts the next hand, before skipping seats that just went out."""
        rules = self.table_rules
        return next_starter(
            rules.next_starter,
            self.seats,
            self.active,
            self.starter,
            caller,
            winner,
            out,
            rules.first_starter,
        )

    def _finish_game(self) -> list[Event]:
        self.result = self.play.game_result(self)
        self.phase = Phase.GAME_OVER
        self.to_act = None
        return [{"type": "game_ended", **self.result}]

    # -- views -------------------------------------------------------------

    def legal_actions(self) -> LegalActions | None:
        """The actions of the seat to act, or None outside a turn."""
        if self.phase not in IN_TURN or self.to_act is None:
            return None
        seat = self.to_act
        if self.phase is Phase.CALL_OR_THROW:
            if not self.hands[seat]:  # a hand a slapdown emptied must call
                return LegalActions(seat, True, (), False, (), self.slapdown_open)
            can_call = self.play.call_refusal(self, seat) is None
            return LegalActions(
                seat,
                can_call,
                tuple(self.play.legal_throws(self, seat)),
                False,
                (),
                self.slapdown_open,
            )
        offer_cards: tuple[Card, ...] = ()
        if self.offer_open_to(seat):
            # Legal lists actions: two jokers that may be taken are one action, listed once.
            offer_cards = tuple(dict.fromkeys(self.pickable()))
        return LegalActions(seat, False, (), True, offer_cards)

    def legal(self) -> dict[str, Any] | None:
        """``legal_actions`` as protocol JSON."""
        legal = self.legal_actions()
        return legal.to_json() if legal else None

    def state(self) -> dict[str, Any]:
        """The whole state as protocol JSON (see docs/protocol.md, "state")."""
        # Asked for after every request and every refusal checked: the sorts are written
        # out here, not called per hand (a third of a checked game's time).
        offer = self.offer
        key = SORT_KEY
        value = self.play.hand_value
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
            "hand_values": [value(h) for h in self.hands],
            "offer": [c.name for c in offer.cards] if offer else [],
            "offer_kind": _KIND_NAMES[offer.kind] if offer else None,
            "pickable": names(self.pickable()),
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
