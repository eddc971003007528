"""The kit's record of a table, and the few profile parameters the kit itself plays by.

:class:`Table` is everything the protocol's ``state`` reports that an engine need not track
(the offer, what may be picked, cards out of play, turn counts, multi-throwers, the phase,
dealer and starter); :class:`KitRules` reads the parameters of the procedure the kit runs
(the deal, turn passing, the offer, reshuffles, the next starter, game end). The rules of
card play (what a throw is, when a call is allowed, the values and the scores) stay the
engine's.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from jhyap_core.cards import full_deck
from jhyap_core.messages import Refused
from jhyap_core.vocabulary import ErrorCode, Phase, ThrowKind


@dataclass(frozen=True, slots=True)
class KitRules:
    """The parameters of a resolved profile's ``rules`` that the kit reads."""

    seats_min: int
    seats_max: int
    hand_size: int
    packs_by_seats: tuple[tuple[int, int], ...]
    jokers_per_pack: int
    has_dealer: bool
    first_starter: int
    next_starter: str
    pick_from_offer: str
    run_ace: str
    only_after_multi_throw: bool
    draw_finds_empty: bool  # reshuffle.moment when_draw_finds_deck_empty
    kept_aside: str
    deck_runs_out: str
    game_end: str
    rounds: int | None
    penalty_scoring: bool
    timer_seconds: int
    timer_take_lowest: bool

    @classmethod
    def read(cls, rules: Any) -> KitRules:
        """The kit's parameters of ``rules``; Refused(invalid_profile) when one is missing
        or of the wrong type."""
        try:
            return cls._read(rules)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise Refused(
                ErrorCode.INVALID_PROFILE, f"profile rules are incomplete or malformed: {exc!r}"
            ) from None

    @classmethod
    def _read(cls, r: Mapping[str, Any]) -> KitRules:
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
            has_dealer=r["deal"]["dealer"] != "none",
            first_starter=_int(r["deal"]["first_starter"]),
            next_starter=str(r["next_starter"]),
            pick_from_offer=str(r["pick"]["from_offer"]),
            run_ace=str(r["throws"]["run"]["ace"]),
            only_after_multi_throw=_bool(r["pick"]["only_after_multi_throw"]),
            draw_finds_empty=r["reshuffle"]["moment"] == "when_draw_finds_deck_empty",
            kept_aside=str(r["reshuffle"]["kept_aside"]),
            deck_runs_out=str(r.get("deck_runs_out", "reshuffle")),
            game_end=str(r["game_end"]["kind"]),
            rounds=r["game_end"].get("rounds"),
            penalty_scoring=r["scoring"]["kind"] == "penalty",
            timer_seconds=_int(timer["seconds"]) if timer else 0,
            timer_take_lowest=timer is not None
            and timer["on_expiry"] == "throw_highest_single_then_take_lowest",
        )
        if not 2 <= made.seats_min <= made.seats_max or made.hand_size < 1:
            raise ValueError("the seat range is empty or below two, or the hand size below one")
        if made.game_end == "fixed_rounds" and not made.rounds:
            raise ValueError("game_end.rounds: fixed_rounds needs a number of rounds")
        for seats in range(made.seats_min, made.seats_max + 1):
            if seats * made.hand_size + 2 > len(made.deck_for(seats)):
                raise ValueError(f"hand_size: {seats} hands and a turned-up card need more cards")
        return made

    def packs_for(self, seats: int) -> int:
        packs = 1
        for from_seats, step_packs in self.packs_by_seats:
            if seats >= from_seats:
                packs = step_packs
        return packs

    def deck_for(self, seats: int) -> tuple[str, ...]:
        """Every card of a table of ``seats``: its packs and their jokers."""
        return tuple(c.name for c in full_deck(self.packs_for(seats), self.jokers_per_pack))


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{value!r} is not an integer")
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{value!r} is not true or false")
    return value


@dataclass(slots=True)
class Table:
    """The kit's record of one table; hooks may read it, only the kit writes it."""

    seats: int
    starter: int
    phase: Phase = Phase.AWAITING_DEAL
    round: int = 0
    scores: list[int] = field(default_factory=list)
    active: list[int] = field(default_factory=list)
    out_in_round: dict[int, int] = field(default_factory=dict)  # seat -> round, in order out
    to_act: int | None = None
    hands: list[list[str]] = field(default_factory=list)  # as held; reported sorted
    deck: list[str] = field(default_factory=list)  # top card first
    offer: tuple[str, ...] = ()
    offer_kind: ThrowKind | None = None
    thrown: tuple[str, ...] = ()
    thrown_kind: ThrowKind | None = None
    out_of_play: list[str] = field(default_factory=list)
    draw_waiting: int | None = None  # the seat whose draw waits for a new deck
    turns_taken: int = 0
    multi_throwers: set[int] = field(default_factory=set)
    last_round: dict[str, Any] | None = None
    result: dict[str, Any] | None = None

    @property
    def eliminated(self) -> list[int]:
        return list(self.out_in_round)

    def next_active(self, seat: int) -> int:
        for step in range(1, self.seats + 1):
            candidate = (seat + step) % self.seats
            if candidate in self.active:
                return candidate
        raise AssertionError("no seat in play")

    def turn_order_from(self, first: int) -> list[int]:
        return sorted(self.active, key=lambda s: (s - first) % self.seats)

    def dealer(self, rules: KitRules) -> int | None:
        """The last seat in play in turn order from the starter, where the profile has one."""
        if not rules.has_dealer:
            return None
        return self.turn_order_from(self.starter)[-1]

    def winners_and_standings(self, rules: KitRules) -> tuple[list[int], list[int]]:
        """The game result's ``winners`` and ``standings`` (docs/protocol.md, "Game result"):
        seats still in by score, then those out, the later round first; lower seats first."""
        sign = 1 if rules.penalty_scoring else -1  # penalty: fewer points are better
        winners: list[int] = []
        if rules.game_end == "elimination":
            winners = sorted(self.active)
        elif rules.game_end == "fixed_rounds":
            best = min(sign * self.scores[s] for s in self.active)
            winners = [s for s in sorted(self.active) if sign * self.scores[s] == best]
        standings = sorted(
            range(self.seats),
            key=lambda s: (-self.out_in_round.get(s, 1 << 30), sign * self.scores[s], s),
        )
        return winners, standings

    def snapshot(self) -> Table:
        return copy.deepcopy(self)
