"""A resolved profile's rule parameters, read straight from its ``rules`` mapping."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

RANKS = "A23456789TJQK"
SUITS = "cdhs"
JOKER = "X"


@dataclass(frozen=True)
class Table:
    """Every rule parameter, by its schema path, with the schema's defaults applied."""

    seats_min: int
    seats_max: int
    jokers: int
    jokers_wild: str
    packs_by_seats: tuple[tuple[int, int], ...]
    hand_size: int
    values: Mapping[str, int]  # by rank symbol (X included), or a whole name (Kh) of its own
    direction: str
    dealer: str
    first_starter: int
    first_offer: str  # turned_up_card, or none: no card turned up, the first throw the offer
    next_starter: str
    deck_runs_out: str
    deck_runs_out_when: str  # read only where deck_runs_out ends the hand
    set_min: int
    set_max: int
    run_min: int
    run_ace: str
    order_matters: bool
    set_jokers_alone: bool
    run_max: int | None
    run_min_naturals: int
    run_wrap: bool
    run_jokers_extend: str  # throws.run.jokers_extend: spare jokers above (up_first) or below
    run_order: str  # throws.run.order: any, or ascending (a run placed lowest first)
    single: str
    single_joker: bool  # throws.single_joker: false, no joker alone while another throw is legal
    laid: str
    slapdown: str  # throws.slapdown: none, or same_rank_as_single
    limit_by_seats: tuple[tuple[int, int], ...]
    from_offer: str
    only_after_multi_throw: bool
    multi_throw_scope: str  # how long a throw of two or more cards opens the offer
    moment: str
    kept_aside: str
    call_limit: int
    call_inclusive: bool
    first_round: str
    min_own_turns: int  # completed turns of one's own before a call
    tie: str
    among_lowest: str
    kind: str
    beaten_call: str
    beaten_penalty: int
    beaten_factor: int  # a beaten caller's hand times this under caller_hand_times
    beaten_others: str
    cuts: tuple[tuple[int, int], ...]
    halve_at: int | None
    drop_at: int | None
    multiplier: int  # every point a hand adds is multiplied by it
    end: str
    rounds: int | None
    out_above: int | None
    reaching_is_out: bool
    rate: Decimal | None
    settlement: str | None
    timer_seconds: int
    on_expiry: str | None
    ranks_left_out: tuple[str, ...] = ()
    # A hand holding jokers and nothing else: each joker's value (card_values.only_jokers).
    jokers_only_each: int | None = None
    # Whose totals a drop or halving at a multiple reaches: any seat scored, or only a seat
    # whose own hand added points (scoring.multiples_for).
    multiples_for: str = "any_score"

    @classmethod
    def of(cls, rules: Mapping[str, Any]) -> Table:
        deck, throws, scoring, end = (
            rules["deck"],
            rules["throws"],
            rules["scoring"],
            rules["game_end"],
        )
        money, timer = rules["money"], rules["turn_timer"]
        return cls(
            seats_min=rules["seats"]["min"],
            seats_max=rules["seats"]["max"],
            jokers=deck["jokers"],
            jokers_wild=deck.get("jokers_wild", "none"),
            packs_by_seats=tuple(
                (s["from_seats"], s["packs"]) for s in deck.get("packs_by_seats") or []
            ),
            hand_size=rules["hand_size"],
            values={
                **{"X": 0},
                **{
                    k: v
                    for k, v in rules["card_values"].items()
                    if k not in ("cards", "only_jokers")
                },
                # A card worth its own value is looked up by its whole name (Kh).
                **{e["card"]: e["value"] for e in rules["card_values"].get("cards") or []},
            },
            direction=rules["direction"],
            dealer=rules["deal"]["dealer"],
            first_starter=rules["deal"]["first_starter"],
            first_offer=rules["deal"]["first_offer"],
            next_starter=rules["next_starter"],
            deck_runs_out=rules.get("deck_runs_out", "reshuffle"),
            deck_runs_out_when=rules.get("deck_runs_out_when", "last_card_taken"),
            set_min=throws["set"]["min"],
            set_max=throws["set"]["max"],
            run_min=throws["run"]["min"],
            run_ace=throws["run"]["ace"],
            order_matters=throws["order_matters"],
            set_jokers_alone=throws["set"].get("jokers_alone", True),
            run_max=throws["run"].get("max"),
            run_min_naturals=throws["run"].get("min_naturals", 1),
            run_wrap=throws["run"].get("wrap", False),
            run_order=throws["run"].get("order", "any"),
            run_jokers_extend=throws["run"].get("jokers_extend", "up_first"),
            single=throws.get("single", "any"),
            single_joker=throws.get("single_joker", True),
            laid=throws.get("laid", "as_placed"),
            slapdown=throws.get("slapdown", "none"),
            limit_by_seats=tuple(
                (s["from_seats"], s["limit"]) for s in rules["call"].get("limit_by_seats") or []
            ),
            from_offer=rules["pick"]["from_offer"],
            only_after_multi_throw=rules["pick"]["only_after_multi_throw"],
            multi_throw_scope=rules["pick"].get("multi_throw_scope", "hand"),
            moment=rules["reshuffle"]["moment"],
            kept_aside=rules["reshuffle"]["kept_aside"],
            call_limit=rules["call"]["limit"],
            call_inclusive=rules["call"]["inclusive"],
            first_round=rules["call"]["first_round"],
            min_own_turns=rules["call"].get("min_own_turns", 0),
            tie=rules["showdown"]["tie"],
            among_lowest=rules["showdown"]["winner_among_lowest"],
            kind=scoring["kind"],
            beaten_call=scoring["beaten_call"],
            beaten_penalty=scoring["beaten_penalty"],
            beaten_factor=scoring.get("beaten_factor", 2),
            beaten_others=scoring.get("beaten_others", "score_nothing"),
            cuts=tuple((c["at"], c["to"]) for c in scoring.get("cuts") or []),
            halve_at=scoring.get("halve_at_multiples_of"),
            drop_at=scoring.get("drop_at_multiples_of"),
            multiplier=scoring.get("points_multiplier", 1),
            end=end["kind"],
            rounds=end["rounds"],
            out_above=end["out_above"],
            reaching_is_out=end.get("reaching_is_out", False),
            rate=Decimal(money["dollars_per_point"]) if money else None,
            settlement=money["settlement"] if money else None,
            timer_seconds=timer["seconds"] if timer else 0,
            on_expiry=timer["on_expiry"] if timer else None,
            ranks_left_out=tuple(deck.get("ranks_left_out") or ()),
            jokers_only_each=rules["card_values"].get("only_jokers"),
            multiples_for=scoring.get("multiples_for", "any_score"),
        )

    # -- the deck ----------------------------------------------------------------

    def packs(self, seats: int) -> int:
        """'From a number of seats up, play with more packs; one pack below the first step.'"""
        packs = 1
        for from_seats, count in sorted(self.packs_by_seats):
            if seats >= from_seats:
                packs = count
        return packs

    def deck(self, seats: int) -> list[str]:
        """Every card of the table: 52 per pack less the ranks left out, plus the pack's
        jokers."""
        kept = [r for r in RANKS if r not in self.ranks_left_out]
        one = [r + s for r in kept for s in SUITS] + [JOKER] * self.jokers
        return one * self.packs(seats)

    def limit(self, seats: int) -> int:
        """'From a number of seats at the table up, calls use another limit.'"""
        limit = self.call_limit
        for from_seats, step in sorted(self.limit_by_seats):
            if seats >= from_seats:
                limit = step
        return limit

    def value(self, card: str) -> int:
        own = self.values.get(card)
        return own if own is not None else self.values[card[0]]

    def hand_value(self, cards: list[str] | tuple[str, ...]) -> int:
        # Jokers alone (at least one, no other card) count the table's own value each.
        if self.jokers_only_each is not None and cards and set(cards) == {"X"}:
            return len(cards) * self.jokers_only_each
        return sum(self.value(c) for c in cards)


def rank(card: str) -> int:
    """1 (ace) to 13 (king); 0 for a joker."""
    return 0 if card == JOKER else RANKS.index(card[0]) + 1


def canonical(cards: list[str] | tuple[str, ...]) -> list[str]:
    """By rank, ace first, then suit c d h s; jokers last."""
    return sorted(cards, key=lambda c: (14, 0) if c == JOKER else (rank(c), SUITS.index(c[1])))


def resolved_rules(document: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """The rules with each option's value set at the path it names (docs/protocol.md, "The
    resolved profile"): the value itself, or map[value]; a list of paths takes a list."""
    import copy

    rules: dict[str, Any] = copy.deepcopy(dict(document["rules"]))
    for option in document.get("options") or []:
        value = values.get(option["name"], option["default"])
        mapped = option["map"][str(value).lower()] if option.get("map") else value
        paths = [option["sets"]] if isinstance(option["sets"], str) else option["sets"]
        for path, item in zip(
            paths, [mapped] if isinstance(option["sets"], str) else mapped, strict=True
        ):
            node = rules
            *head, last = path.split(".")
            for key in head:
                node = node[key]
            node[last] = copy.deepcopy(item)
    return rules
