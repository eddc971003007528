"""The rule parameters of a resolved profile, as typed values the rule families read."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from typing import Any

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


class SingleThrow(StrEnum):
    """When a single card may be thrown."""

    ANY = "any"
    WHEN_NO_COMBINATION = "when_no_combination"


class ThrowLaid(StrEnum):
    """The order a throw's cards lie in on the offer."""

    AS_PLACED = "as_placed"
    BY_RANK = "by_rank"


class ShowdownTie(StrEnum):
    BEATS_CALLER = "beats_caller"
    CALLER_WINS = "caller_wins"


class BeatenOthers(StrEnum):
    """What the seats other than the caller score on a beaten call."""

    SCORE_NOTHING = "score_nothing"
    SCORE_OWN_HANDS = "score_own_hands"  # the round winner excepted
    ALL_BUT_CALLER_SCORE_OWN_HANDS = "all_but_caller_score_own_hands"


class WinnerAmongLowest(StrEnum):
    """Which of several equal lowest non-callers wins a beaten call."""

    FIRST_AFTER_CALLER = "first_after_caller"
    LOWEST_SEAT = "lowest_seat"


class DeckRunsOut(StrEnum):
    RESHUFFLE = "reshuffle"
    ROUND_ENDS_NO_SCORE = "round_ends_no_score"
    ROUND_ENDS_HANDS_SCORE = "round_ends_hands_score"


class PickFromOffer(StrEnum):
    ANY = "any"
    RUN_ENDS = "run_ends"
    LAST_PLACED = "last_placed"
    FIRST_OR_LAST_PLACED = "first_or_last_placed"


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


class ReshuffleMoment(StrEnum):
    WHEN_DECK_EMPTIED = "when_deck_emptied"
    WHEN_DRAW_FINDS_DECK_EMPTY = "when_draw_finds_deck_empty"
    AT_THROW_AFTER_DECK_EMPTIED = "at_throw_after_deck_emptied"


class KeptAside(StrEnum):
    CURRENT_OFFER = "current_offer"
    OFFER_AND_THROW = "offer_and_throw"
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


# Rules already built, by the image of their data: a start builds the rules of its profile
# twice (as written and with its options), the costliest part of opening a table. Rules
# are frozen, so one value serves every table of the same rules.
_BUILT: Kept[Rules] = Kept(256)
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


@dataclass(frozen=True, slots=True)
class Rules:
    """Every rule parameter the engine reads, taken from a resolved profile."""

    seats_min: int
    seats_max: int
    hand_size: int
    card_values: tuple[int, ...]  # index rank - 1
    dealer: DealerRule
    first_starter: int
    next_starter: NextStarter
    set_min: int
    set_max: int
    run_min: int
    order_matters: bool
    pick_from_offer: PickFromOffer
    only_after_multi_throw: bool
    call_limit: int
    call_inclusive: bool
    first_round: FirstRoundCall
    scoring: ScoringKind
    beaten_call: BeatenCall
    beaten_penalty: int
    reshuffle_moment: ReshuffleMoment
    kept_aside: KeptAside
    game_end: GameEndKind
    rounds: int | None
    out_above: int | None
    dollars_per_point: Decimal | None
    settlement: Settlement
    timer_seconds: int
    timer_expiry: TimerExpiry
    # Family dimensions; their defaults are the behaviour of the first three profiles.
    joker_value: int = 0
    jokers_per_pack: int = 0
    jokers_wild: JokersWild = JokersWild.NONE
    pack_steps: tuple[PackStep, ...] = ()
    run_ace: RunAce = RunAce.LOW
    tie: ShowdownTie = ShowdownTie.BEATS_CALLER
    beaten_others: BeatenOthers = BeatenOthers.SCORE_NOTHING
    score_cuts: tuple[ScoreCut, ...] = ()
    halve_at_multiples_of: int | None = None
    drop_at_multiples_of: int | None = None
    points_multiplier: int = 1
    min_own_turns: int = 0
    winner_among_lowest: WinnerAmongLowest = WinnerAmongLowest.FIRST_AFTER_CALLER
    reaching_is_out: bool = False
    deck_runs_out: DeckRunsOut = DeckRunsOut.RESHUFFLE
    run_max: int | None = None
    run_min_naturals: int = 1
    run_wrap: bool = False
    set_jokers_alone: bool = True
    single: SingleThrow = SingleThrow.ANY
    laid: ThrowLaid = ThrowLaid.AS_PLACED
    limit_steps: tuple[LimitStep, ...] = ()
    ranks_left_out: tuple[int, ...] = ()  # 1 ace to 13 king, gone from every pack
    # Derived: each rank's value, the joker's at index 0 (hands are valued on every state).
    rank_values: tuple[int, ...] = field(init=False, compare=False, repr=False)
    # Derived: the most packs any table size plays with (read for every throw classified).
    max_packs: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rank_values", (self.joker_value, *self.card_values))
        packs = max((step.packs for step in self.pack_steps), default=1)
        object.__setattr__(self, "max_packs", packs)

    def card_value(self, rank: int) -> int:
        return self.rank_values[rank]

    def packs_for(self, seats: int) -> int:
        """How many packs a table of ``seats`` plays with."""
        return packs_at(((st.from_seats, st.packs) for st in self.pack_steps), seats)

    def call_limit_for(self, seats: int) -> int:
        """The call limit at a table of ``seats`` seats: call.limit below the first step."""
        limit = self.call_limit
        for step in self.limit_steps:
            if seats >= step.from_seats:
                limit = step.limit
        return limit

    @property
    def pack_cards(self) -> int:
        """Cards in one pack before its jokers."""
        return 52 - 4 * len(self.ranks_left_out)

    def deck_size(self, seats: int) -> int:
        return self.packs_for(seats) * (self.pack_cards + self.jokers_per_pack)

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
        left_out = _ranks_left_out(r["deck"])
        money = r.get("money")
        timer = r.get("turn_timer")

        def value(path: str) -> Any:
            return _value(r, path)

        rules = cls(
            seats_min=value("seats.min"),
            seats_max=value("seats.max"),
            hand_size=value("hand_size"),
            card_values=tuple(value(f"card_values.{k}") for k in RANK_KEYS),
            dealer=DealerRule(value("deal.dealer")),
            first_starter=value("deal.first_starter"),
            next_starter=NextStarter(value("next_starter")),
            set_min=value("throws.set.min"),
            set_max=value("throws.set.max"),
            run_min=value("throws.run.min"),
            order_matters=value("throws.order_matters"),
            pick_from_offer=PickFromOffer(value("pick.from_offer")),
            only_after_multi_throw=value("pick.only_after_multi_throw"),
            call_limit=value("call.limit"),
            call_inclusive=value("call.inclusive"),
            first_round=FirstRoundCall(value("call.first_round")),
            scoring=ScoringKind(value("scoring.kind")),
            beaten_call=BeatenCall(value("scoring.beaten_call")),
            beaten_penalty=value("scoring.beaten_penalty"),
            reshuffle_moment=ReshuffleMoment(value("reshuffle.moment")),
            kept_aside=KeptAside(value("reshuffle.kept_aside")),
            game_end=GameEndKind(value("game_end.kind")),
            rounds=value("game_end.rounds"),
            out_above=value("game_end.out_above"),
            dollars_per_point=Decimal(str(money["dollars_per_point"])) if money else None,
            settlement=Settlement(
                money["settlement"] if money else Settlement.LARGEST_DEBTOR_PAYS_LARGEST_CREDITOR
            ),
            timer_seconds=int(timer["seconds"]) if timer else 0,
            timer_expiry=TimerExpiry(
                timer["on_expiry"] if timer else TimerExpiry.THROW_HIGHEST_SINGLE_THEN_DRAW
            ),
            joker_value=value("card_values.X"),
            jokers_per_pack=value("deck.jokers"),
            jokers_wild=JokersWild(value("deck.jokers_wild")),
            pack_steps=tuple(
                PackStep(int(step["from_seats"]), int(step["packs"]))
                for step in value("deck.packs_by_seats") or ()
            ),
            run_ace=RunAce(value("throws.run.ace")),
            tie=ShowdownTie(value("showdown.tie")),
            beaten_others=BeatenOthers(value("scoring.beaten_others")),
            score_cuts=tuple(
                ScoreCut(int(cut["at"]), int(cut["to"])) for cut in value("scoring.cuts") or ()
            ),
            halve_at_multiples_of=value("scoring.halve_at_multiples_of"),
            drop_at_multiples_of=value("scoring.drop_at_multiples_of"),
            points_multiplier=value("scoring.points_multiplier"),
            min_own_turns=value("call.min_own_turns"),
            winner_among_lowest=WinnerAmongLowest(value("showdown.winner_among_lowest")),
            reaching_is_out=value("game_end.reaching_is_out"),
            deck_runs_out=DeckRunsOut(value("deck_runs_out")),
            run_max=value("throws.run.max"),
            run_min_naturals=value("throws.run.min_naturals"),
            run_wrap=value("throws.run.wrap"),
            set_jokers_alone=value("throws.set.jokers_alone"),
            single=SingleThrow(value("throws.single")),
            laid=ThrowLaid(value("throws.laid")),
            limit_steps=tuple(
                sorted(
                    (
                        LimitStep(int(step["from_seats"]), int(step["limit"]))
                        for step in value("call.limit_by_seats") or ()
                    ),
                    key=lambda step: step.from_seats,
                )
            ),
            ranks_left_out=left_out,
        )
        if not 2 <= rules.seats_min <= rules.seats_max:
            raise ProfileError("rules.seats: the seat range is empty or below two")
        for seats in range(rules.seats_min, rules.seats_max + 1):
            needed = seats * rules.hand_size + 2
            if needed > rules.deck_size(seats):
                raise ProfileError(
                    f"rules.hand_size: {seats} seats x {rules.hand_size} cards, the turned-up card "
                    f"and one card to draw need {needed} cards, more than the "
                    f"{rules.deck_size(seats)}-card deck"
                )
        if rules.game_end is GameEndKind.FIXED_ROUNDS and not rules.rounds:
            raise ProfileError("rules.game_end.rounds: fixed_rounds needs a number of rounds")
        past_target = (GameEndKind.ELIMINATION, GameEndKind.FIRST_PAST_TARGET)
        if rules.game_end in past_target and rules.out_above is None:
            raise ProfileError(f"rules.game_end.out_above: {rules.game_end} needs a threshold")
        if rules.game_end is GameEndKind.HOST_ENDS and rules.dollars_per_point is None:
            raise ProfileError("rules.money: a host-ended table needs dollars per point")
        return rules
