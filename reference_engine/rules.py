"""The rule parameters of a resolved profile, as typed values the rule families read."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from functools import cache
from typing import Any, get_type_hints

from jhyap_core.cards import Card
from jhyap_core.vocabulary import ErrorCode, ProfileError

from .kept import Kept, NotPlain, plain_key
from .parameters import CONSTRAINTS, Kind, Parameter, registry

RANK_KEYS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")


class DealerRule(StrEnum):
    SEAT_BEFORE_STARTER = "seat_before_starter"
    NONE = "none"


class NextStarter(StrEnum):
    NEXT_SEAT = "next_seat"
    ROUND_WINNER = "round_winner"
    SEAT_AFTER_ROUND_WINNER = "seat_after_round_winner"
    CALLER = "caller"
    FIRST_STARTER = "first_starter"  # deal.first_starter starts every hand


class JokersWild(StrEnum):
    """What a joker may stand for inside a set or a run."""

    NONE = "none"
    RUNS = "runs"
    SETS = "sets"
    SETS_AND_RUNS = "sets_and_runs"


class RunAce(StrEnum):
    LOW = "low"
    HIGH = "high"
    LOW_OR_HIGH = "low_or_high"


class RunOrder(StrEnum):
    """The order a run's cards must be placed in."""

    ANY = "any"
    ASCENDING = "ascending"


class JokersExtend(StrEnum):
    """Where jokers a run's gaps leave spare stand: above its highest card first, or below."""

    UP_FIRST = "up_first"
    DOWN_FIRST = "down_first"


class SingleThrow(StrEnum):
    """When a single card may be thrown."""

    ANY = "any"
    WHEN_NO_COMBINATION = "when_no_combination"
    # Without a set or run in the hand, only a card of the hand's highest value alone.
    HIGHEST_WHEN_NO_COMBINATION = "highest_when_no_combination"


class ThrowLaid(StrEnum):
    """The order a throw's cards lie in on the offer."""

    AS_PLACED = "as_placed"
    BY_RANK = "by_rank"
    RUNS_BY_RANK = "runs_by_rank"  # a run by rank, a set or single as placed


class Slapdown(StrEnum):
    """Whether a card drawn of the rank of one's own single may be thrown at once."""

    NONE = "none"
    SAME_RANK_AS_SINGLE = "same_rank_as_single"


class ShowdownTie(StrEnum):
    BEATS_CALLER = "beats_caller"
    CALLER_WINS = "caller_wins"


class BeatenOthers(StrEnum):
    """What the seats other than the caller score on a beaten call."""

    SCORE_NOTHING = "score_nothing"
    SCORE_OWN_HANDS = "score_own_hands"  # the round winner excepted
    ALL_BUT_CALLER_SCORE_OWN_HANDS = "all_but_caller_score_own_hands"
    # every seat at the lowest value (the round winner and those tied with it) excepted
    SCORE_OWN_HANDS_BUT_LOWEST = "score_own_hands_but_lowest"
    # every seat whose hand beats the call (as showdown.tie says) excepted
    SCORE_OWN_HANDS_BUT_BEATERS = "score_own_hands_but_beaters"


class MultiplesFor(StrEnum):
    """Whose total a drop or halving at a multiple applies to."""

    ANY_SCORE = "any_score"
    OWN_HAND = "own_hand"  # only a seat whose own hand added points


class WinnerAmongLowest(StrEnum):
    """Which of several equal lowest non-callers wins a beaten call."""

    FIRST_AFTER_CALLER = "first_after_caller"
    LOWEST_SEAT = "lowest_seat"


class DeckRunsOut(StrEnum):
    RESHUFFLE = "reshuffle"
    ROUND_ENDS_NO_SCORE = "round_ends_no_score"
    ROUND_ENDS_HANDS_SCORE = "round_ends_hands_score"
    OFFER_UNDER_DECK = "offer_under_deck"


class DeckRunsOutWhen(StrEnum):
    LAST_CARD_TAKEN = "last_card_taken"
    DRAW_FINDS_DECK_EMPTY = "draw_finds_deck_empty"


class PickFromOffer(StrEnum):
    ANY = "any"
    RUN_ENDS = "run_ends"
    LAST_PLACED = "last_placed"
    FIRST_OR_LAST_PLACED = "first_or_last_placed"


class MultiThrowScope(StrEnum):
    """How long a throw of two or more cards opens the offer to its thrower."""

    TURN = "turn"
    HAND = "hand"
    GAME = "game"


class FirstRoundCall(StrEnum):
    ALLOWED = "allowed"
    AFTER_EVERY_PLAYER_HAD_A_TURN = "after_every_player_had_a_turn"


class ScoringKind(StrEnum):
    TRANSFER = "transfer"
    PENALTY = "penalty"
    NONE = "none"  # no points kept: a one-hand game's result is its winner and hand values


class BeatenCall(StrEnum):
    HANDS_EXCEPT_WINNER = "hands_except_winner"
    ALL_HANDS = "all_hands"
    CALLER_HAND_PLUS_PENALTY = "caller_hand_plus_penalty"
    CALLER_HAND_TIMES = "caller_hand_times"  # the caller's hand times scoring.beaten_factor
    PENALTY_ONLY = "penalty_only"  # the fixed penalty alone, without the caller's hand


class ReshuffleMoment(StrEnum):
    WHEN_DECK_EMPTIED = "when_deck_emptied"
    WHEN_DRAW_FINDS_DECK_EMPTY = "when_draw_finds_deck_empty"
    AT_THROW_AFTER_DECK_EMPTIED = "at_throw_after_deck_emptied"


class KeptAside(StrEnum):
    CURRENT_OFFER = "current_offer"
    OFFER_AND_THROW = "offer_and_throw"
    OFFER_AND_CARD_UNDER = "offer_and_card_under"
    PICKABLE_AND_THROW = "pickable_and_throw"


class TimerExpiry(StrEnum):
    THROW_HIGHEST_SINGLE_THEN_DRAW = "throw_highest_single_then_draw"
    THROW_HIGHEST_SINGLE_THEN_TAKE_LOWEST = "throw_highest_single_then_take_lowest"


class Settlement(StrEnum):
    LARGEST_DEBTOR_PAYS_LARGEST_CREDITOR = "largest_debtor_pays_largest_creditor"
    DEBTORS_PAY_CREDITORS_IN_SEAT_ORDER = "debtors_pay_creditors_in_seat_order"


class GameEndKind(StrEnum):
    HOST_ENDS = "host_ends"
    FIXED_ROUNDS = "fixed_rounds"
    ELIMINATION = "elimination"
    FIRST_PAST_TARGET = "first_past_target"
    ONE_HAND = "one_hand"


class Direction(StrEnum):
    LEFT = "left"
    RIGHT = "right"


class DealOrder(StrEnum):
    ONE_AT_A_TIME_FROM_STARTER = "one_at_a_time_from_starter"


class FirstOffer(StrEnum):
    TURNED_UP_CARD = "turned_up_card"
    NONE = "none"


class NewDeck(StrEnum):
    OUT_OF_PLAY = "out_of_play"


class CallTiming(StrEnum):
    START_OF_TURN = "start_of_turn"


class WonCall(StrEnum):
    EACH_OTHER_HAND = "each_other_hand"


# Rules already built, by the image of their data: a start builds the rules of its profile
# twice (as written and with its options), the costliest part of opening a table. Rules
# are frozen, so one value serves every table of the same rules.
_BUILT: Kept[Rules] = Kept(256)
_CARD = re.compile(r"[A2-9TJQK][cdhs]")
_MONEY = re.compile(r"[0-9]{1,12}(\.[0-9]{1,2})?")


@dataclass(frozen=True, slots=True)
class _Absent:
    """A parameter the rules leave out: ``key`` is the first key absent on its path."""

    key: str


def _check_known(r: Mapping[str, Any]) -> None:
    """unsupported_profile for the first rule parameter this engine does not know: every
    parameter of the registry is played, none other (never as if it were absent:
    docs/protocol.md, "Declining a profile")."""
    known = registry()
    unknown: list[str] = []
    pending: list[tuple[str, Mapping[str, Any]]] = [("", r)]
    while pending:
        prefix, node = pending.pop()
        for key in node:
            path = f"{prefix}{key}"
            if not known.known(path):
                unknown.append(path)
            elif path in known.sections and isinstance(node[key], Mapping):
                pending.append((path + ".", node[key]))
    if unknown:
        raise ProfileError(
            f"rules.{sorted(unknown)[0]}: a rule parameter this engine does not know",
            ErrorCode.UNSUPPORTED_PROFILE,
        )


def _at(r: Mapping[str, Any], path: str) -> Any:
    """The value at ``path`` under rules: None under a section set to null or left out
    (money, turn_timer), else _Absent naming the first key absent on the way."""
    node: Any = r
    for key in path.split("."):
        if node is None:
            return None
        if not isinstance(node, Mapping) or key not in node:
            if node is r and key in registry().nullable_sections:
                return None
            return _Absent(key)
        node = node[key]
    return node


def _value(r: Mapping[str, Any], path: str) -> Any:
    """The value at ``path`` under rules, the schema's default where the profile leaves it
    out (None under a section set to null)."""
    value = _at(r, path)
    return registry()[path].default if isinstance(value, _Absent) else value


def _check_type(parameter: Parameter, value: Any) -> None:
    """ProfileError for a value of the wrong type or outside the parameter's bounds."""
    where = f"rules.{parameter.path}"
    if parameter.kind is Kind.BOOLEAN and not isinstance(value, bool):
        raise ProfileError(f"{where}: must be true or false, not {value!r}")
    if parameter.kind is Kind.DECIMAL and not (isinstance(value, str) and _MONEY.fullmatch(value)):
        raise ProfileError(f'{where}: must be an amount such as "0.05", not {value!r}')
    if parameter.kind is not Kind.INTEGER:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise ProfileError(f"{where}: must be an integer, not {value!r}")
    if parameter.minimum is not None and value < parameter.minimum:
        raise ProfileError(f"{where}: must be at least {parameter.minimum}, not {value}")
    if parameter.maximum is not None and value > parameter.maximum:
        raise ProfileError(f"{where}: must be at most {parameter.maximum}, not {value}")


def _check_values(r: Mapping[str, Any]) -> None:
    """ProfileError for a rule parameter of the wrong type or out of its range, or a
    choice of a single value today naming another (refused rather than misplayed); a
    required one absent is a KeyError (the caller names the key)."""
    nullable = registry().nullable_sections
    for parameter in registry():
        value = _at(r, parameter.path)
        if isinstance(value, _Absent):
            if parameter.required:
                raise KeyError(value.key)
            continue
        if value is None and (
            parameter.nullable
            or (parameter.section in nullable and r.get(parameter.section) is None)
        ):
            continue  # no limit, or a section set to null (money, turn_timer)
        only = parameter.values[0] if len(parameter.values) == 1 else None
        if only is not None and value != only:
            raise ProfileError(
                f"rules.{parameter.path}: {value!r} is not supported (only {only!r})"
            )
        _check_type(parameter, value)
    for step in _value(r, "call.limit_by_seats") or ():
        for key, least in (("from_seats", 2), ("limit", 0)):
            value = step.get(key) if isinstance(step, Mapping) else None
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ProfileError(
                    f"rules.call.limit_by_seats.{key}: must be an integer of at least {least},"
                    f" not {value!r}"
                )


def _ranks_left_out(deck: Mapping[str, Any]) -> tuple[int, ...]:
    """The ranks (1 ace to 13 king) gone from each pack; ProfileError unless deck.cards
    counts the cards they leave."""
    names = deck.get("ranks_left_out") or []
    if not isinstance(names, list) or any(n not in RANK_KEYS for n in names):
        raise ProfileError(
            f"rules.deck.ranks_left_out: a list of ranks (A 2-9 T J Q K), not {names!r}"
        )
    ranks = tuple(sorted({RANK_KEYS.index(n) + 1 for n in names}))
    if len(ranks) != len(names) or len(ranks) > 12:
        raise ProfileError("rules.deck.ranks_left_out: each rank once, and one rank at least kept")
    cards = 52 - 4 * len(ranks)
    if deck["cards"] != cards:
        raise ProfileError(
            f"rules.deck.cards: {deck['cards']!r}, but a pack without"
            f" {' '.join(names) or 'any rank left out'} holds {cards} cards"
        )
    return ranks


@dataclass(frozen=True, slots=True)
class ScoreCut:
    """A total of exactly ``at`` after a round becomes ``to``."""

    at: int
    to: int


@dataclass(frozen=True, slots=True)
class PackStep:
    """From ``from_seats`` seats up, play with ``packs`` packs."""

    from_seats: int
    packs: int


def packs_at(steps: Iterable[tuple[int, int]], seats: int) -> int:
    """Packs at ``seats`` seats, given (from_seats, packs) steps in rising order; else one."""
    packs = 1
    for from_seats, step_packs in steps:
        if seats >= from_seats:
            packs = step_packs
    return packs


@dataclass(frozen=True, slots=True)
class LimitStep:
    """From ``from_seats`` seats up, a hand may call at ``limit``."""

    from_seats: int
    limit: int


def _parameter(path: str) -> dict[str, Any]:
    """The metadata of a record's field read from the rule parameter at ``path`` (under
    rules) by :meth:`Rules.from_profile`, converted to its annotated StrEnum if any."""
    return {"path": path}


def _derived(path: str) -> dict[str, Any]:
    """The metadata of a record's field made by hand from the parameter at ``path``
    (steps, cuts, ranks, the money and timer sections a profile may set to null)."""
    return {"path": path, "derived": True}


@dataclass(frozen=True, slots=True)
class PlayerRules:
    """How many seats a table takes."""

    seats_min: int = field(metadata=_parameter("seats.min"))
    seats_max: int = field(metadata=_parameter("seats.max"))


@dataclass(frozen=True, slots=True)
class CardRules:
    """The pack, its jokers and what each card is worth."""

    cards: int = field(metadata=_parameter("deck.cards"))
    jokers_per_pack: int = field(metadata=_parameter("deck.jokers"))
    jokers_wild: JokersWild = field(metadata=_parameter("deck.jokers_wild"))
    joker_value: int = field(metadata=_parameter("card_values.X"))
    # Each joker's value in a hand of jokers only (below 0 at some tables), None for none.
    only_jokers: int | None = field(metadata=_parameter("card_values.only_jokers"))
    values: tuple[int, ...] = field(metadata=_derived("card_values"))  # index rank - 1, ace to king
    pack_steps: tuple[PackStep, ...] = field(metadata=_derived("deck.packs_by_seats"))
    ranks_left_out: tuple[int, ...] = field(
        metadata=_derived("deck.ranks_left_out")
    )  # 1 ace to 13 king
    # Single cards worth other than their rank, (name, value) in the profile's order.
    own_values: tuple[tuple[str, int], ...] = field(
        default=(), metadata=_derived("card_values.cards")
    )
    # Derived: each rank's value, the joker's at index 0 (hands are valued on every state).
    rank_values: tuple[int, ...] = field(init=False, compare=False, repr=False)
    # Derived: the most packs any table size plays with (read for every throw classified).
    max_packs: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rank_values", (self.joker_value, *self.values))
        packs = max((step.packs for step in self.pack_steps), default=1)
        object.__setattr__(self, "max_packs", packs)

    def value(self, rank: int) -> int:
        """The points of a card of ``rank`` (0 the joker, 1 ace to 13 king), a card with a
        value of its own aside (:meth:`card_value`)."""
        return self.rank_values[rank]

    @property
    def highest_value(self) -> int:
        """The most points any card but the joker is worth."""
        return max([*self.values, *(value for _, value in self.own_values)])

    def card_value(self, card: Card) -> int:
        """The points of ``card``: its own value when the profile gives it one, else its
        rank's."""
        for name, value in self.own_values:  # a few cards at most, most tables none
            if name == card.name:
                return value
        return self.rank_values[card.rank]

    def hand_value(self, cards: Iterable[Card]) -> int:
        """The points of ``cards``: a hand of jokers only is worth ``only_jokers`` for each
        where the profile gives it, whatever a joker is worth beside other cards."""
        values = self.rank_values
        if self.only_jokers is not None:
            cards = list(cards)
            if cards and all(c.rank == 0 for c in cards):
                return self.only_jokers * len(cards)
        if not self.own_values:
            return sum([values[c.rank] for c in cards])
        return sum([self.card_value(c) for c in cards])

    def packs_for(self, seats: int) -> int:
        """How many packs a table of ``seats`` plays with."""
        return packs_at(((st.from_seats, st.packs) for st in self.pack_steps), seats)

    @property
    def pack_cards(self) -> int:
        """Cards in one pack before its jokers."""
        return 52 - 4 * len(self.ranks_left_out)

    def deck_size(self, seats: int) -> int:
        return self.packs_for(seats) * (self.pack_cards + self.jokers_per_pack)


@dataclass(frozen=True, slots=True)
class DealRules:
    """The deal: hand size, dealer, who starts the first hand, the first offer."""

    hand_size: int = field(metadata=_parameter("hand_size"))
    dealer: DealerRule = field(metadata=_parameter("deal.dealer"))
    first_starter: int = field(metadata=_parameter("deal.first_starter"))
    order: DealOrder = field(metadata=_parameter("deal.order"))
    first_offer: FirstOffer = field(metadata=_parameter("deal.first_offer"))


@dataclass(frozen=True, slots=True)
class TurnRules:
    """Which way play passes, and who starts each later hand."""

    direction: Direction = field(metadata=_parameter("direction"))
    next_starter: NextStarter = field(metadata=_parameter("next_starter"))


@dataclass(frozen=True, slots=True)
class ThrowRules:
    """Which groups of cards may be thrown, and how they lie on the offer."""

    set_min: int = field(metadata=_parameter("throws.set.min"))
    set_max: int = field(metadata=_parameter("throws.set.max"))
    set_jokers_alone: bool = field(metadata=_parameter("throws.set.jokers_alone"))
    run_min: int = field(metadata=_parameter("throws.run.min"))
    run_max: int | None = field(metadata=_parameter("throws.run.max"))
    run_min_naturals: int = field(metadata=_parameter("throws.run.min_naturals"))
    run_wrap: bool = field(metadata=_parameter("throws.run.wrap"))
    run_ace: RunAce = field(metadata=_parameter("throws.run.ace"))
    run_order: RunOrder = field(metadata=_parameter("throws.run.order"))
    run_jokers_extend: JokersExtend = field(metadata=_parameter("throws.run.jokers_extend"))
    order_matters: bool = field(metadata=_parameter("throws.order_matters"))
    single: SingleThrow = field(metadata=_parameter("throws.single"))
    single_joker: bool = field(metadata=_parameter("throws.single_joker"))
    laid: ThrowLaid = field(metadata=_parameter("throws.laid"))
    # Played by the table procedure (jhyap_core/table.py, TableRules.slapdown).
    slapdown: Slapdown = field(metadata=_parameter("throws.slapdown"))


@dataclass(frozen=True, slots=True)
class PickRules:
    """Which cards of the offer may be taken, and by whom."""

    from_offer: PickFromOffer = field(metadata=_parameter("pick.from_offer"))
    only_after_multi_throw: bool = field(metadata=_parameter("pick.only_after_multi_throw"))
    multi_throw_scope: MultiThrowScope = field(metadata=_parameter("pick.multi_throw_scope"))


@dataclass(frozen=True, slots=True)
class ReshuffleRules:
    """What happens when the deck runs out."""

    deck_runs_out: DeckRunsOut = field(metadata=_parameter("deck_runs_out"))
    deck_runs_out_when: DeckRunsOutWhen = field(metadata=_parameter("deck_runs_out_when"))
    moment: ReshuffleMoment = field(metadata=_parameter("reshuffle.moment"))
    new_deck: NewDeck = field(metadata=_parameter("reshuffle.new_deck"))
    kept_aside: KeptAside = field(metadata=_parameter("reshuffle.kept_aside"))


@dataclass(frozen=True, slots=True)
class CallRules:
    """When a hand may call."""

    limit: int = field(metadata=_parameter("call.limit"))
    limit_steps: tuple[LimitStep, ...] = field(
        metadata=_derived("call.limit_by_seats")
    )  # by from_seats
    inclusive: bool = field(metadata=_parameter("call.inclusive"))
    timing: CallTiming = field(metadata=_parameter("call.timing"))
    first_round: FirstRoundCall = field(metadata=_parameter("call.first_round"))
    min_own_turns: int = field(metadata=_parameter("call.min_own_turns"))

    def limit_for(self, seats: int) -> int:
        """The call limit at a table of ``seats`` seats: call.limit below the first step."""
        limit = self.limit
        for step in self.limit_steps:
            if seats >= step.from_seats:
                limit = step.limit
        return limit


@dataclass(frozen=True, slots=True)
class ShowdownRules:
    """Who wins a showdown after a call."""

    tie: ShowdownTie = field(metadata=_parameter("showdown.tie"))
    winner_among_lowest: WinnerAmongLowest = field(
        metadata=_parameter("showdown.winner_among_lowest")
    )


@dataclass(frozen=True, slots=True)
class ScoringRules:
    """What each seat scores for a hand, and the cuts of a total."""

    kind: ScoringKind = field(metadata=_parameter("scoring.kind"))
    won_call: WonCall = field(metadata=_parameter("scoring.won_call"))
    beaten_call: BeatenCall = field(metadata=_parameter("scoring.beaten_call"))
    beaten_penalty: int = field(metadata=_parameter("scoring.beaten_penalty"))
    beaten_factor: int = field(metadata=_parameter("scoring.beaten_factor"))
    beaten_others: BeatenOthers = field(metadata=_parameter("scoring.beaten_others"))
    cuts: tuple[ScoreCut, ...] = field(metadata=_derived("scoring.cuts"))
    halve_at_multiples_of: int | None = field(metadata=_parameter("scoring.halve_at_multiples_of"))
    drop_at_multiples_of: int | None = field(metadata=_parameter("scoring.drop_at_multiples_of"))
    points_multiplier: int = field(metadata=_parameter("scoring.points_multiplier"))
    multiples_for: MultiplesFor = field(metadata=_parameter("scoring.multiples_for"))


@dataclass(frozen=True, slots=True)
class GameEndRules:
    """When the game ends."""

    kind: GameEndKind = field(metadata=_parameter("game_end.kind"))
    rounds: int | None = field(metadata=_parameter("game_end.rounds"))
    out_above: int | None = field(metadata=_parameter("game_end.out_above"))
    reaching_is_out: bool = field(metadata=_parameter("game_end.reaching_is_out"))


@dataclass(frozen=True, slots=True)
class MoneyRules:
    """The settlement in money (``dollars_per_point`` None: no money is played)."""

    dollars_per_point: Decimal | None = field(metadata=_derived("money.dollars_per_point"))
    settlement: Settlement = field(metadata=_derived("money.settlement"))


@dataclass(frozen=True, slots=True)
class TimerRules:
    """The turn timer (``seconds`` 0: none)."""

    seconds: int = field(metadata=_derived("turn_timer.seconds"))
    on_expiry: TimerExpiry = field(metadata=_derived("turn_timer.on_expiry"))


@dataclass(frozen=True, slots=True)
class Rules:
    """Every rule parameter the engine reads, taken from a resolved profile: one frozen
    record per rule family (:class:`~reference_engine.parameters.Family`), named by it
    (``rules.throws.set_min``, ``rules.calling.limit``, ``rules.scoring.beaten_call``)."""

    players: PlayerRules
    cards: CardRules
    deal: DealRules
    turn: TurnRules
    throws: ThrowRules
    picking: PickRules
    reshuffle: ReshuffleRules
    calling: CallRules
    showdown: ShowdownRules
    scoring: ScoringRules
    game_end: GameEndRules
    money: MoneyRules
    timer: TimerRules

    def with_values(self, changes: Mapping[str, Any]) -> Rules:
        """These rules with some fields of their records changed, each named
        ``family.field`` (``{"throws.set_min": 3}``): the rule mutants' misreadings."""
        by_record: dict[str, dict[str, Any]] = {}
        for name, value in changes.items():
            record, attr = name.split(".")
            by_record.setdefault(record, {})[attr] = value
        return dataclasses.replace(
            self,
            **{
                record: dataclasses.replace(getattr(self, record), **fields)
                for record, fields in by_record.items()
            },
        )

    @classmethod
    def from_profile(cls, profile: Mapping[str, Any]) -> Rules:
        """Typed rules of a resolved profile; ProfileError on anything unplayable."""
        if not isinstance(profile.get("rules"), Mapping):
            raise ProfileError("the profile has no rules object")
        r = profile["rules"]
        try:
            key = plain_key(r)
        except (NotPlain, RecursionError):
            key = None
        if key is not None and (known := _BUILT.get(key)) is not None:
            return known
        try:
            built = cls._build(r)
        except ProfileError:
            raise
        except KeyError as exc:
            raise ProfileError(f"the profile's rules lack the key {exc.args[0]!r}") from None
        except (TypeError, ValueError) as exc:
            raise ProfileError(f"the profile's rules are malformed: {exc}") from None
        if key is not None:
            _BUILT.put(key, built)
        return built

    @classmethod
    def _build(cls, r: Mapping[str, Any]) -> Rules:
        _check_known(r)
        _check_values(r)
        for constraint in CONSTRAINTS:
            # The contradictions the engine cannot play, in jhyap validate's words.
            if constraint.engine and constraint.broken(r):
                raise ProfileError(f"rules.{constraint.at}: {constraint.message}")
        money = r.get("money")
        timer = r.get("turn_timer")

        def value(path: str) -> Any:
            return _value(r, path)

        # Only what is derived is written here; every other field is read from the
        # parameter its metadata names (records()).
        derived: dict[str, dict[str, Any]] = {
            "cards": {
                "values": tuple(value(f"card_values.{k}") for k in RANK_KEYS),
                "pack_steps": tuple(
                    PackStep(int(step["from_seats"]), int(step["packs"]))
                    for step in value("deck.packs_by_seats") or ()
                ),
                "ranks_left_out": _ranks_left_out(r["deck"]),
                "own_values": _own_values(value("card_values.cards")),
            },
            "calling": {
                "limit_steps": tuple(
                    sorted(
                        (
                            LimitStep(int(step["from_seats"]), int(step["limit"]))
                            for step in value("call.limit_by_seats") or ()
                        ),
                        key=lambda step: step.from_seats,
                    )
                )
            },
            "scoring": {
                "cuts": tuple(
                    ScoreCut(int(cut["at"]), int(cut["to"])) for cut in value("scoring.cuts") or ()
                )
            },
            "money": {
                "dollars_per_point": Decimal(str(money["dollars_per_point"])) if money else None,
                "settlement": Settlement(
                    money["settlement"]
                    if money
                    else Settlement.LARGEST_DEBTOR_PAYS_LARGEST_CREDITOR
                ),
            },
            "timer": {
                "seconds": int(timer["seconds"]) if timer else 0,
                "on_expiry": TimerExpiry(
                    timer["on_expiry"] if timer else TimerExpiry.THROW_HIGHEST_SINGLE_THEN_DRAW
                ),
            },
        }
        made: dict[str, Any] = {}
        for name, (record, reads) in _read_plan().items():
            fields = dict(derived.get(name, {}))
            for attr, (path, enum) in reads.items():
                read = value(path)
                fields[attr] = enum(read) if enum is not None else read
            made[name] = record(**fields)
        rules = cls(**made)
        _check_playable(rules)
        return rules


def _own_values(entries: Any) -> tuple[tuple[str, int], ...]:
    """``card_values.cards`` as (card name, value) pairs; ProfileError unless each entry
    names a card (rank and suit) once, with a whole value of at least 0."""
    where = "rules.card_values.cards"
    if not isinstance(entries, list):
        raise ProfileError(f"{where}: a list of {{card, value}}, not {entries!r}")
    pairs: list[tuple[str, int]] = []
    for entry in entries:
        card = entry.get("card") if isinstance(entry, Mapping) else None
        value = entry.get("value") if isinstance(entry, Mapping) else None
        if not (isinstance(card, str) and _CARD.fullmatch(card)):
            raise ProfileError(f"{where}: a card such as Kh, not {card!r}")
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ProfileError(f"{where}: {card}'s value must be an integer of at least 0")
        if any(card == named for named, _ in pairs):
            raise ProfileError(f"{where}: {card} is given twice")
        pairs.append((card, value))
    return tuple(pairs)


def _check_playable(rules: Rules) -> None:
    """ProfileError for rules each valid alone that no table can play."""
    players, cards, end = rules.players, rules.cards, rules.game_end
    if not 2 <= players.seats_min <= players.seats_max:
        raise ProfileError("rules.seats: the seat range is empty or below two")
    hand_size = rules.deal.hand_size
    for seats in range(players.seats_min, players.seats_max + 1):
        needed = seats * hand_size + 2
        if needed > cards.deck_size(seats):
            raise ProfileError(
                f"rules.hand_size: {seats} seats x {hand_size} cards, the turned-up card "
                f"and one card to draw need {needed} cards, more than the "
                f"{cards.deck_size(seats)}-card deck"
            )
    if end.kind is GameEndKind.FIXED_ROUNDS and not end.rounds:
        raise ProfileError("rules.game_end.rounds: fixed_rounds needs a number of rounds")
    past_target = (GameEndKind.ELIMINATION, GameEndKind.FIRST_PAST_TARGET)
    if end.kind in past_target and end.out_above is None:
        raise ProfileError(f"rules.game_end.out_above: {end.kind} needs a threshold")
    if end.kind is GameEndKind.HOST_ENDS and rules.money.dollars_per_point is None:
        raise ProfileError("rules.money: a host-ended table needs dollars per point")


@cache
def records() -> dict[str, type[Any]]:
    """Each family's record class, by its field name in :class:`Rules` (the family's name)."""
    hints = get_type_hints(Rules)
    return {f.name: hints[f.name] for f in dataclasses.fields(Rules)}


def read_fields(record: type[Any]) -> dict[str, tuple[str, type[StrEnum] | None]]:
    """The fields of ``record`` read from a parameter, each with its path and the StrEnum
    its value is converted to (None: kept as the profile gives it)."""
    hints = get_type_hints(record)
    found: dict[str, tuple[str, type[StrEnum] | None]] = {}
    for f in dataclasses.fields(record):
        if "path" not in f.metadata or f.metadata.get("derived"):
            continue
        hint = hints[f.name]
        enum = hint if isinstance(hint, type) and issubclass(hint, StrEnum) else None
        found[f.name] = (f.metadata["path"], enum)
    return found


@cache
def _read_plan() -> dict[str, tuple[type[Any], dict[str, tuple[str, type[StrEnum] | None]]]]:
    """Each family's record class with the fields it reads (read once)."""
    return {name: (record, read_fields(record)) for name, record in records().items()}


def parameter_fields() -> dict[str, str]:
    """Each parameter path (or section, for card_values) a record field reads or is
    derived from, to the field as ``family.field``."""
    return {
        f.metadata["path"]: f"{name}.{f.name}"
        for name, record in records().items()
        for f in dataclasses.fields(record)
        if "path" in f.metadata
    }
