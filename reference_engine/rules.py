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


# Choices with a single value today: the engine checks them so that a profile
# naming a value it does not know is refused rather than misplayed.
_SINGLE_VALUED = {
    "deal.order": "one_at_a_time_from_starter",
    "deal.first_offer": "turned_up_card",
    "reshuffle.new_deck": "out_of_play",
    "call.timing": "start_of_turn",
    "scoring.won_call": "each_other_hand",
}


# Numbers and flags the engine computes with, by path under rules: an integer's least
# value (None: a flag). A wrong type is refused at start rather than failing mid-game.
_TYPED: dict[str, int | None] = {
    "seats.min": 2,
    "seats.max": 2,
    "hand_size": 1,
    **{f"card_values.{rank}": 0 for rank in RANK_KEYS},
    "deal.first_starter": 0,
    "throws.set.min": 1,
    "throws.set.max": 1,
    "throws.run.min": 2,
    "throws.order_matters": None,
    "pick.only_after_multi_throw": None,
    "call.limit": 0,
    "call.inclusive": None,
    "scoring.beaten_penalty": 0,
    "game_end.rounds": 1,
    "game_end.out_above": 0,
    "turn_timer.seconds": 0,
}
_OPTIONAL = ("game_end.rounds", "game_end.out_above", "turn_timer", "money")
_MONEY = re.compile(r"[0-9]{1,12}(\.[0-9]{1,2})?")


# Every rule parameter this engine plays, by section (None: a parameter, not a section).
# A profile naming another is refused with unsupported_profile, never played as if the
# parameter were absent (docs/protocol.md, "Declining a profile").
_KNOWN: dict[str, frozenset[str] | None] = {
    "seats": frozenset({"min", "max"}),
    "deck": frozenset({"cards", "ranks_left_out", "jokers", "jokers_wild", "packs_by_seats"}),
    "hand_size": None,
    "card_values": frozenset({*RANK_KEYS, "X"}),
    "direction": None,
    "deal": frozenset({"dealer", "first_starter", "order", "first_offer"}),
    "next_starter": None,
    "deck_runs_out": None,
    "throws": frozenset({"set", "run", "order_matters", "single", "laid"}),
    "pick": frozenset({"from_offer", "only_after_multi_throw"}),
    "reshuffle": frozenset({"moment", "new_deck", "kept_aside"}),
    "call": frozenset({"limit", "inclusive", "timing", "first_round", "limit_by_seats"}),
    "showdown": frozenset({"tie", "winner_among_lowest"}),
    "scoring": frozenset(
        {"kind", "won_call", "beaten_call", "beaten_penalty", "beaten_others", "cuts"}
        | {"halve_at_multiples_of", "drop_at_multiples_of"}
    ),
    "game_end": frozenset({"kind", "rounds", "out_above", "reaching_is_out"}),
    "money": frozenset({"dollars_per_point", "settlement"}),
    "turn_timer": frozenset({"seconds", "on_expiry"}),
}
_KNOWN_THROWS = {
    "set": frozenset({"min", "max", "jokers_alone"}),
    "run": frozenset({"min", "ace", "max", "min_naturals", "wrap"}),
}


def _check_known(r: Mapping[str, Any]) -> None:
    """unsupported_profile for the first rule parameter this engine does not know."""
    unknown = [str(key) for key in r if key not in _KNOWN]
    for section, keys in _KNOWN.items():
        node = r.get(section)
        if keys is not None and isinstance(node, Mapping):
            unknown += [f"{section}.{key}" for key in node if key not in keys]
    throws = r.get("throws")
    for kind, keys in _KNOWN_THROWS.items():
        node = throws.get(kind) if isinstance(throws, Mapping) else None
        if isinstance(node, Mapping):
            unknown += [f"throws.{kind}.{key}" for key in node if key not in keys]
    if unknown:
        raise ProfileError(
            f"rules.{sorted(unknown)[0]}: a rule parameter this engine does not know",
            ErrorCode.UNSUPPORTED_PROFILE,
        )


# Optional parameters of the throw and call families, with the least value an integer takes.
_OPTIONAL_TYPED: dict[str, int | None] = {
    "throws.run.max": 2,
    "throws.run.min_naturals": 1,
    "throws.run.wrap": None,
    "throws.set.jokers_alone": None,
}


# Rules already built, by the image of their data: a start builds the rules of its profile
# twice (as written and with its options), the costliest part of opening a table. Rules
# are frozen, so one value serves every table of the same rules.
_BUILT: Kept[Rules] = Kept(256)


def _optional(r: Mapping[str, Any], path: str) -> Any:
    """The value at ``path`` under rules, or None when a key on the way is absent."""
    node: Any = r
    for key in path.split("."):
        if not isinstance(node, Mapping) or key not in node:
            return None
        node = node[key]
    return node


def _check_types(r: Mapping[str, Any]) -> None:
    """ProfileError for a rule parameter of the wrong type or below its range."""
    for path, least in _OPTIONAL_TYPED.items():
        value = _optional(r, path)
        if value is None:
            continue
        if least is None:
            if not isinstance(value, bool):
                raise ProfileError(f"rules.{path}: must be true or false, not {value!r}")
        elif isinstance(value, bool) or not isinstance(value, int):
            raise ProfileError(f"rules.{path}: must be an integer, not {value!r}")
        elif value < least:
            raise ProfileError(f"rules.{path}: must be at least {least}, not {value}")
    for step in _optional(r, "call.limit_by_seats") or ():
        for key, least in (("from_seats", 2), ("limit", 0)):
            value = step.get(key) if isinstance(step, Mapping) else None
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ProfileError(
                    f"rules.call.limit_by_seats.{key}: must be an integer of at least {least},"
                    f" not {value!r}"
                )
    for path, least in _TYPED.items():
        node: Any = r
        for key in path.split("."):
            if node is None and path.startswith(_OPTIONAL):
                break  # an optional section (turn_timer, money) that is absent
            node = node[key]
        else:
            if node is None and path in _OPTIONAL:
                continue
            if least is None:
                if not isinstance(node, bool):
                    raise ProfileError(f"rules.{path}: must be true or false, not {node!r}")
            elif isinstance(node, bool) or not isinstance(node, int):
                raise ProfileError(f"rules.{path}: must be an integer, not {node!r}")
            elif node < least:
                raise ProfileError(f"rules.{path}: must be at least {least}, not {node}")
    drop = r["scoring"].get("drop_at_multiples_of")
    if drop is not None and (isinstance(drop, bool) or not isinstance(drop, int) or drop < 1):
        raise ProfileError(
            f"rules.scoring.drop_at_multiples_of: must be a positive integer or null, not {drop!r}"
        )
    money = r.get("money")
    if money is not None:
        amount = money["dollars_per_point"]
        if not isinstance(amount, str) or not _MONEY.fullmatch(amount):
            raise ProfileError(
                f'rules.money.dollars_per_point: must be an amount such as "0.05", not {amount!r}'
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
        _check_types(r)
        for path, expected in _SINGLE_VALUED.items():
            node: Any = r
            for key in path.split("."):
                node = node[key]
            if node != expected:
                raise ProfileError(f"rules.{path}: {node!r} is not supported (only {expected!r})")
        left_out = _ranks_left_out(r["deck"])
        money = r.get("money")
        timer = r.get("turn_timer")
        deck = r["deck"]
        scoring = r["scoring"]
        game_end = r["game_end"]
        rules = cls(
            seats_min=int(r["seats"]["min"]),
            seats_max=int(r["seats"]["max"]),
            hand_size=int(r["hand_size"]),
            card_values=tuple(int(r["card_values"][k]) for k in RANK_KEYS),
            dealer=DealerRule(r["deal"]["dealer"]),
            first_starter=int(r["deal"]["first_starter"]),
            next_starter=NextStarter(r["next_starter"]),
            set_min=int(r["throws"]["set"]["min"]),
            set_max=int(r["throws"]["set"]["max"]),
            run_min=int(r["throws"]["run"]["min"]),
            order_matters=bool(r["throws"]["order_matters"]),
            pick_from_offer=PickFromOffer(r["pick"]["from_offer"]),
            only_after_multi_throw=bool(r["pick"]["only_after_multi_throw"]),
            call_limit=int(r["call"]["limit"]),
            call_inclusive=bool(r["call"]["inclusive"]),
            first_round=FirstRoundCall(r["call"]["first_round"]),
            scoring=ScoringKind(r["scoring"]["kind"]),
            beaten_call=BeatenCall(r["scoring"]["beaten_call"]),
            beaten_penalty=int(r["scoring"]["beaten_penalty"]),
            reshuffle_moment=ReshuffleMoment(r["reshuffle"]["moment"]),
            kept_aside=KeptAside(r["reshuffle"]["kept_aside"]),
            game_end=GameEndKind(r["game_end"]["kind"]),
            rounds=r["game_end"].get("rounds"),
            out_above=r["game_end"].get("out_above"),
            dollars_per_point=Decimal(str(money["dollars_per_point"])) if money else None,
            settlement=Settlement(
                money["settlement"] if money else Settlement.LARGEST_DEBTOR_PAYS_LARGEST_CREDITOR
            ),
            timer_seconds=int(timer["seconds"]) if timer else 0,
            timer_expiry=TimerExpiry(
                timer["on_expiry"] if timer else TimerExpiry.THROW_HIGHEST_SINGLE_THEN_DRAW
            ),
            joker_value=int(r["card_values"].get("X", 0)),
            jokers_per_pack=int(deck["jokers"]),
            jokers_wild=JokersWild(deck.get("jokers_wild", "none")),
            pack_steps=tuple(
                PackStep(int(step["from_seats"]), int(step["packs"]))
                for step in deck.get("packs_by_seats") or ()
            ),
            run_ace=RunAce(r["throws"]["run"]["ace"]),
            tie=ShowdownTie(r["showdown"]["tie"]),
            beaten_others=BeatenOthers(scoring.get("beaten_others", "score_nothing")),
            score_cuts=tuple(
                ScoreCut(int(cut["at"]), int(cut["to"])) for cut in scoring.get("cuts") or ()
            ),
            halve_at_multiples_of=scoring.get("halve_at_multiples_of"),
            drop_at_multiples_of=scoring.get("drop_at_multiples_of"),
            winner_among_lowest=WinnerAmongLowest(r["showdown"]["winner_among_lowest"]),
            reaching_is_out=bool(game_end.get("reaching_is_out", False)),
            deck_runs_out=DeckRunsOut(r.get("deck_runs_out", "reshuffle")),
            run_max=_optional(r, "throws.run.max"),
            run_min_naturals=int(_optional(r, "throws.run.min_naturals") or 1),
            run_wrap=bool(_optional(r, "throws.run.wrap") or False),
            set_jokers_alone=_optional(r, "throws.set.jokers_alone") is not False,
            single=SingleThrow(r["throws"].get("single", "any")),
            laid=ThrowLaid(r["throws"].get("laid", "as_placed")),
            limit_steps=tuple(
                sorted(
                    (
                        LimitStep(int(step["from_seats"]), int(step["limit"]))
                        for step in r["call"].get("limit_by_seats") or ()
                    ),
                    key=lambda step: step.from_seats,
                )
            ),
            ranks_left_out=left_out,
        )
        at_turn_end = rules.reshuffle_moment is ReshuffleMoment.WHEN_DECK_EMPTIED
        if at_turn_end and rules.kept_aside is KeptAside.OFFER_AND_THROW:
            raise ProfileError(
                "reshuffle.kept_aside offer_and_throw needs a reshuffle.moment after the "
                "emptying pick, not when_deck_emptied"
            )
        if rules.kept_aside is KeptAside.CURRENT_OFFER and not at_turn_end:
            raise ProfileError(
                # The words jhyap validate uses (conformance/spec/combinations.py).
                "reshuffle.kept_aside current_offer goes with reshuffle.moment when_deck_emptied, "
                "and only with it"
            )
        if not 2 <= rules.seats_min <= rules.seats_max:
            raise ProfileError("rules.seats: the seat range is empty or below two")
        if not 0 <= rules.jokers_per_pack <= 4:
            raise ProfileError("rules.deck.jokers: a pack holds 0 to 4 jokers")
        for seats in range(rules.seats_min, rules.seats_max + 1):
            needed = seats * rules.hand_size + 2
            if needed > rules.deck_size(seats):
                raise ProfileError(
                    f"rules.hand_size: {seats} seats x {rules.hand_size} cards, the turned-up card "
                    f"and one card to draw need {needed} cards, more than the "
                    f"{rules.deck_size(seats)}-card deck"
                )
        if rules.run_max is not None and rules.run_max < rules.run_min:
            raise ProfileError("rules.throws.run.max: below throws.run.min, no run is legal")
        if rules.game_end is GameEndKind.FIXED_ROUNDS and not rules.rounds:
            raise ProfileError("rules.game_end.rounds: fixed_rounds needs a number of rounds")
        past_target = (GameEndKind.ELIMINATION, GameEndKind.FIRST_PAST_TARGET)
        if rules.game_end in past_target and rules.out_above is None:
            raise ProfileError(f"rules.game_end.out_above: {rules.game_end} needs a threshold")
        if rules.game_end is GameEndKind.HOST_ENDS and rules.dollars_per_point is None:
            raise ProfileError("rules.money: a host-ended table needs dollars per point")
        if rules.scoring is ScoringKind.NONE and (
            rules.game_end is not GameEndKind.ONE_HAND
            or rules.dollars_per_point is not None
            or rules.score_cuts
            or rules.halve_at_multiples_of
            or rules.drop_at_multiples_of
        ):
            raise ProfileError(
                "rules.scoring.kind: none keeps no totals; it goes with game_end.kind one_hand "
                "only, without money, cuts, halving or drops"
            )
        return rules
