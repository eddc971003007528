"""The rule parameters of a resolved profile, as typed values the rule families read."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from typing import Any

from .errors import ProfileError

RANK_KEYS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")


class DealerRule(StrEnum):
    SEAT_BEFORE_STARTER = "seat_before_starter"
    NONE = "none"


class NextStarter(StrEnum):
    NEXT_SEAT = "next_seat"
    ROUND_WINNER = "round_winner"


class PickFromOffer(StrEnum):
    ANY = "any"
    RUN_ENDS = "run_ends"
    LAST_PLACED = "last_placed"


class FirstRoundCall(StrEnum):
    ALLOWED = "allowed"
    AFTER_EVERY_PLAYER_HAD_A_TURN = "after_every_player_had_a_turn"


class ScoringKind(StrEnum):
    TRANSFER = "transfer"
    PENALTY = "penalty"


class BeatenCall(StrEnum):
    HANDS_EXCEPT_WINNER = "hands_except_winner"
    ALL_HANDS = "all_hands"
    CALLER_HAND_PLUS_PENALTY = "caller_hand_plus_penalty"


class ReshuffleMoment(StrEnum):
    WHEN_DECK_EMPTIED = "when_deck_emptied"
    WHEN_DRAW_FINDS_DECK_EMPTY = "when_draw_finds_deck_empty"


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


# Choices with a single value today: the engine checks them so that a profile
# naming a value it does not know is refused rather than misplayed.
_SINGLE_VALUED = {
    "deal.order": "one_at_a_time_from_starter",
    "deal.first_offer": "turned_up_card",
    "throws.run.ace": "low",
    "reshuffle.new_deck": "out_of_play",
    "call.timing": "start_of_turn",
    "showdown.tie": "beats_caller",
    "showdown.winner_among_lowest": "first_after_caller",
    "scoring.won_call": "each_other_hand",
}


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

    def card_value(self, rank: int) -> int:
        return self.card_values[rank - 1]

    @classmethod
    def from_profile(cls, profile: Mapping[str, Any]) -> Rules:
        """Typed rules of a resolved profile; ProfileError on anything unplayable."""
        try:
            return cls._build(profile["rules"])
        except ProfileError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise ProfileError(f"profile rules are incomplete or malformed: {exc!r}") from None

    @classmethod
    def _build(cls, r: Mapping[str, Any]) -> Rules:
        for path, expected in _SINGLE_VALUED.items():
            node: Any = r
            for key in path.split("."):
                node = node[key]
            if node != expected:
                raise ProfileError(f"rules.{path}: {node!r} is not supported (only {expected!r})")
        if r["deck"]["cards"] != 52 or r["deck"]["jokers"] != 0:
            raise ProfileError("rules.deck: only the 52-card deck without jokers is supported")
        money = r.get("money")
        timer = r.get("turn_timer")
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
        )
        at_turn_end = rules.reshuffle_moment is ReshuffleMoment.WHEN_DECK_EMPTIED
        if at_turn_end != (rules.kept_aside is KeptAside.CURRENT_OFFER):
            raise ProfileError(
                "rules.reshuffle: kept_aside current_offer goes with moment when_deck_emptied, "
                "and only with it"
            )
        if not 2 <= rules.seats_min <= rules.seats_max or rules.seats_max * rules.hand_size >= 52:
            raise ProfileError("rules.seats: seat range does not fit one 52-card deck")
        if rules.game_end is GameEndKind.FIXED_ROUNDS and not rules.rounds:
            raise ProfileError("rules.game_end.rounds: fixed_rounds needs a number of rounds")
        if rules.game_end is GameEndKind.ELIMINATION and rules.out_above is None:
            raise ProfileError("rules.game_end.out_above: elimination needs a threshold")
        if rules.game_end is GameEndKind.HOST_ENDS and rules.dollars_per_point is None:
            raise ProfileError("rules.money: a host-ended table needs dollars per point")
        return rules
