"""The reference engine with one rule parameter mishandled, in process, for the property tests.

Each mutant mishandles one parameter of schema/profile.schema.json under some value, the
way a port might misread it. ``MUTANTS`` maps its name to the parameter and to the property
check of tests/engine/test_rule_model.py that must catch it;
tests/engine/test_rule_mutants_killed.py applies each in turn (``applied``) and asserts that
check fails.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from jhyap_core import cards
from jhyap_core import table as core_table
from jhyap_core.table import Table, TableRules
from jhyap_core.vocabulary import Phase
from reference_engine import calling, game_end, scoring
from reference_engine.game import Game
from reference_engine.rules import (
    BeatenCall,
    BeatenOthers,
    DealerRule,
    DeckRunsOut,
    DeckRunsOutWhen,
    FirstOffer,
    GameEndKind,
    JokersExtend,
    JokersWild,
    KeptAside,
    MultiThrowScope,
    NextStarter,
    PickFromOffer,
    ReshuffleMoment,
    Rules,
    RunAce,
    RunOrder,
    ScoringKind,
    Settlement,
    ShowdownTie,
    SingleThrow,
    Slapdown,
    ThrowLaid,
    TimerExpiry,
    WinnerAmongLowest,
)
from tests.strategies import Focus, values

Patch = Callable[[Callable[[object, str, object], None]], None]


@dataclass(frozen=True)
class Mutant:
    parameter: str
    killed_by: str
    patch: Patch
    # The parameter's values under which the mutant misplays, for the check to draw them
    # every time (tests/strategies.py); None where it misplays under any drawn profile,
    # or where the values are not one parameter's (seats.max above seats.min, say).
    focus: Focus | None = None


_from_profile = Rules.from_profile


def table_of(rules: Rules) -> TableRules:
    """The table procedure's parameters as the typed ``rules`` hold them: how a rule
    mutant's misreading reaches the procedure, which reads them itself (TableRules.read;
    tests/engine/test_table_rules_agree.py checks the two agree)."""
    return TableRules(
        seats_min=rules.players.seats_min,
        seats_max=rules.players.seats_max,
        hand_size=rules.deal.hand_size,
        packs_by_seats=tuple((step.from_seats, step.packs) for step in rules.cards.pack_steps),
        jokers_per_pack=rules.cards.jokers_per_pack,
        ranks_left_out=rules.cards.ranks_left_out,
        has_dealer=rules.deal.dealer is not DealerRule.NONE,
        first_starter=rules.deal.first_starter,
        turns_up_first_offer=rules.deal.first_offer is not FirstOffer.NONE,
        next_starter=rules.turn.next_starter.value,
        only_after_multi_throw=rules.picking.only_after_multi_throw,
        multi_throw_scope=rules.picking.multi_throw_scope.value,
        reshuffle_moment=rules.reshuffle.moment.value,
        kept_aside=rules.reshuffle.kept_aside.value,
        deck_runs_out=rules.reshuffle.deck_runs_out.value,
        deck_runs_out_when=rules.reshuffle.deck_runs_out_when.value,
        end=game_end.ending(rules),
        timer_seconds=rules.timer.seconds,
        timer_take_lowest=rules.timer.on_expiry
        is TimerExpiry.THROW_HIGHEST_SINGLE_THEN_TAKE_LOWEST,
        slapdown=rules.throws.slapdown.value,
    )


def _rules(change: Callable[[Rules], dict[str, Any]]) -> Patch:
    """A mutant that misreads the typed rules: ``change`` gives the fields it gets wrong,
    each as ``family.field``; the table procedure reads the same misreading."""

    def patch(set_: Callable[[object, str, object], None]) -> None:
        def from_profile(profile: Mapping[str, Any]) -> Rules:
            rules = _from_profile(profile)
            return rules.with_values(change(rules))

        def read(rules: Mapping[str, Any]) -> TableRules:
            return table_of(from_profile({"rules": rules}))

        set_(Rules, "from_profile", staticmethod(from_profile))
        set_(TableRules, "read", staticmethod(read))

    return patch


def _when(cond: bool, name: str, value: Any) -> dict[str, Any]:
    """``{name: value}`` (a field as ``family.field``) when ``cond``, else no change."""
    return {name: value} if cond else {}


def _function(module: object, name: str, wrap: Callable[[Any], Any]) -> Patch:
    def patch(set_: Callable[[object, str, object], None]) -> None:
        set_(module, name, wrap(getattr(module, name)))

    return patch


# -- seats, deck, deal -----------------------------------------------------------------


def _deck_short(original: Any) -> Any:
    def full_deck(
        packs: int = 1, jokers_per_pack: int = 0, ranks_left_out: Any = ()
    ) -> tuple[cards.Card, ...]:
        # One card short: no ace of clubs, or the first card left of a smaller pack.
        return tuple(original(packs, jokers_per_pack, ranks_left_out))[1:]

    return full_deck


def _ranks_all_kept(original: Any) -> Any:
    def full_deck(
        packs: int = 1, jokers_per_pack: int = 0, ranks_left_out: Any = ()
    ) -> tuple[cards.Card, ...]:
        return tuple(original(packs, jokers_per_pack))  # the ranks left out stay in

    return full_deck


def _jokers_first_pack_only(original: Any) -> Any:
    def full_deck(
        packs: int = 1, jokers_per_pack: int = 0, ranks_left_out: Any = ()
    ) -> tuple[cards.Card, ...]:
        gone = ranks_left_out
        if packs > 1:
            return tuple(original(1, jokers_per_pack, gone)) + tuple(original(packs - 1, 0, gone))
        return tuple(original(packs, jokers_per_pack, gone))

    return full_deck


def _packs_from_above(original: Any) -> Any:
    def packs_for(self: Rules, seats: int) -> int:
        return int(original(self, seats - 1) if seats > 2 else original(self, seats))

    return packs_for


def _direction(original: Any) -> Any:
    def next_active(self: Game, seat: int) -> int:
        if self.profile["rules"]["direction"] != "right":
            return int(original(self, seat))
        for step in range(1, self.seats + 1):
            if (seat - step) % self.seats in self.active:
                return (seat - step) % self.seats
        raise AssertionError

    return next_active


def _dealer_is_starter(original: Any) -> Any:
    def dealer(self: Game) -> int | None:
        found = original.fget(self)
        return self.starter if found is not None else None

    return property(dealer)


def _deal_in_blocks(original: Any) -> Any:
    def deal(self: Game, order: Sequence[cards.Card]) -> Any:
        n, size = len(self.active), self.rules.deal.hand_size
        head = list(order[: size * n])
        dealt = [head[(i % n) * size + i // n] for i in range(size * n)]
        return original(self, dealt + list(order[size * n :]))

    return deal


def _turned_up_last(original: Any) -> Any:
    def deal(self: Game, order: Sequence[cards.Card]) -> Any:
        cut = self.rules.deal.hand_size * len(self.active)
        rest = list(order[cut:])
        return original(self, list(order[:cut]) + rest[-1:] + rest[:-1])

    return deal


def _new_deck_reversed(original: Any) -> Any:
    def reshuffle(self: Game, order: Sequence[cards.Card]) -> Any:
        return original(self, list(reversed(order)))

    return reshuffle


def _offer_sorted(original: Any) -> Any:
    def throw(self: Game, seat: int, thrown: Sequence[cards.Card], forced: bool = False) -> Any:
        events = original(self, seat, thrown, forced)
        if not self.rules.throws.order_matters and self.thrown is not None:
            self.thrown = core_table.Throw(
                tuple(cards.sorted_cards(self.thrown.cards)), self.thrown.kind
            )
        return events

    return throw


def _slapdown_after_any_throw(original: Any) -> Any:
    """throws.slapdown misread: any card drawn from the deck may be slapped down."""

    def pick(self: Table, seat: int, card: cards.Card | None) -> Any:
        draws = card is None and bool(self.deck)
        events = original(self, seat, card)
        on = self.table_rules.slapdown != "none"
        if draws and on and self.phase is Phase.CALL_OR_THROW and self.slapdown_open is None:
            self.slapdown_open = (seat, self.hands[seat][-1])
        return events

    return pick


def _call_after_throwing(original: Any) -> Any:
    def call(self: Game, seat: int) -> Any:
        if self.phase is Phase.PICK and self.thrown is not None:
            self.hands[seat].extend(self.thrown.cards)
            self.thrown = None
            self.phase = Phase.CALL_OR_THROW
        return original(self, seat)

    return call


# -- scoring, game end -----------------------------------------------------------------


def _won_call_counts_caller(original: Any) -> Any:
    def showdown(values: Any, order: Any, caller: int, rules: Rules) -> scoring.Showdown:
        result: scoring.Showdown = original(values, order, caller, rules)
        if result.outcome is scoring.Outcome.WON_CALL and rules.scoring.kind is ScoringKind.PENALTY:
            deltas = dict(result.deltas)
            deltas[caller] += values[caller]  # the caller scores its own hand too
            return dataclasses.replace(result, deltas=deltas)
        return result

    return showdown


def _tie_by_seat_number(original: Any) -> Any:
    def showdown(values: Any, order: Sequence[int], caller: int, rules: Rules) -> Any:
        return original(values, sorted(order), caller, rules)

    return showdown


def _cut_ignored(original: Any) -> Any:
    def cut_score(total: int, rules: Rules) -> int:
        return int(original(total, rules.with_values({"scoring.cuts": ()})))

    return cut_score


def _halving_ignored(original: Any) -> Any:
    def cut_score(total: int, rules: Rules) -> int:
        return int(original(total, rules.with_values({"scoring.halve_at_multiples_of": None})))

    return cut_score


def _winners_by_max(original: Any) -> Any:  # issue 21's bug
    def winners(scores: Sequence[int], active: Sequence[int], rules: Rules) -> list[int]:
        if rules.game_end.kind is GameEndKind.FIXED_ROUNDS:
            best = max(scores)
            return [s for s, v in enumerate(scores) if v == best]
        return list(original(scores, active, rules))

    return winners


def _out_at_threshold(original: Any) -> Any:
    def eliminated(scores: Sequence[int], active: Sequence[int], rules: Rules) -> list[int]:
        return list(original(scores, active, rules.with_values({"game_end.reaching_is_out": True})))

    return eliminated


def _reaching_ignored(original: Any) -> Any:
    def eliminated(scores: Sequence[int], active: Sequence[int], rules: Rules) -> list[int]:
        return list(
            original(scores, active, rules.with_values({"game_end.reaching_is_out": False}))
        )

    return eliminated


def _rate_doubled(original: Any) -> Any:
    def settlement(scores: Sequence[int], rate: Decimal, method: Settlement) -> Any:
        return original(scores, rate * 2, method)

    return settlement


def _fixed_rounds_never_end(original: Any) -> Any:
    def over(round_number: int, scores: Sequence[int], active: Sequence[int], rules: Rules) -> bool:
        if rules.game_end.kind is GameEndKind.FIXED_ROUNDS:
            return False
        return bool(original(round_number, scores, active, rules))

    return over


def _past_target_plays_on(original: Any) -> Any:
    """first_past_target read as elimination: the game goes on past the target."""

    def over(round_number: int, scores: Sequence[int], active: Sequence[int], rules: Rules) -> bool:
        if rules.game_end.kind is GameEndKind.FIRST_PAST_TARGET:
            return False
        return bool(original(round_number, scores, active, rules))

    return over


def _drop_ignored(original: Any) -> Any:
    def cut_score(total: int, rules: Rules) -> int:
        return int(original(total, rules.with_values({"scoring.drop_at_multiples_of": None})))

    return cut_score


def _timer_seconds_ignored(original: Any) -> Any:
    def timeout(self: Table, seat: int) -> Any:
        if self.table_rules.timer_seconds <= 0:
            self.table_rules = dataclasses.replace(self.table_rules, timer_seconds=1)
        return original(self, seat)

    return timeout


_BEATEN_OTHERS = values("scoring.beaten_others")  # score_nothing first
# Hands of five cards or more, for the throws of several cards (runs, sets) that a mutant
# of their rules misplays to come up in the first turns.
_LONG_HANDS = (5, 6, 7, 8)

MUTANTS: dict[str, Mutant] = {
    "seats_min_one_more": Mutant(
        "seats.min",
        "drawn_profiles_are_valid",
        _rules(lambda r: {"players.seats_min": r.players.seats_min + 1}),
    ),
    "seats_max_one_less": Mutant(
        "seats.max",
        "drawn_profiles_are_valid",
        _rules(
            lambda r: _when(
                r.players.seats_max > r.players.seats_min,
                "players.seats_max",
                r.players.seats_max - 1,
            )
        ),
        Focus.on("seats.max", 3, 4, 5, 6, 7),
    ),
    "pack_of_51": Mutant(
        "deck.cards", "games_follow_the_model", _function(core_table, "full_deck", _deck_short)
    ),
    "ranks_left_out_kept": Mutant(
        "deck.ranks_left_out",
        "games_follow_the_model",
        _function(core_table, "full_deck", _ranks_all_kept),
        Focus.on("deck.ranks_left_out", ["K"], ["Q", "K"], ["7"]),
    ),
    "jokers_in_the_first_pack_only": Mutant(
        "deck.jokers",
        "games_follow_the_model",
        _function(core_table, "full_deck", _jokers_first_pack_only),
        Focus.on("deck.jokers", 1, 2, 3, 4),
    ),
    "jokers_wild_runs_read_as_sets": Mutant(
        "deck.jokers_wild",
        "games_follow_the_model",
        _rules(
            lambda r: _when(
                r.cards.jokers_wild is JokersWild.RUNS,
                "cards.jokers_wild",
                JokersWild.SETS_AND_RUNS,
            )
        ),
        Focus.on("deck.jokers_wild", "runs"),
    ),
    "packs_from_one_seat_more": Mutant(
        "deck.packs_by_seats",
        "games_follow_the_model",
        _function(TableRules, "packs_for", _packs_from_above),
    ),
    "hand_one_card_short": Mutant(
        "hand_size",
        "games_follow_the_model",
        _rules(lambda r: _when(r.deal.hand_size > 1, "deal.hand_size", r.deal.hand_size - 1)),
        Focus.on("hand_size", 2, 3, 4, 5, 6, 7, 8),
    ),
    "king_valued_as_queen": Mutant(
        "card_values",
        "games_follow_the_model",
        _rules(lambda r: {"cards.values": (*r.cards.values[:12], r.cards.values[11])}),
    ),
    "joker_worth_nothing": Mutant(
        "card_values.X", "games_follow_the_model", _rules(lambda r: {"cards.joker_value": 0})
    ),
    "right_means_anticlockwise_seats": Mutant(
        "direction",
        "games_follow_the_model",
        _function(Table, "next_active", _direction),
        Focus.on("direction", "right"),
    ),
    "dealer_is_the_starter": Mutant(
        "deal.dealer",
        "games_follow_the_model",
        _function(Table, "dealer", _dealer_is_starter),
        Focus.on("deal.dealer", "seat_before_starter"),
    ),
    "first_starter_ignored": Mutant(
        "deal.first_starter",
        "games_follow_the_model",
        _rules(lambda r: {"deal.first_starter": 0}),
        Focus.on("deal.first_starter", 1, 2, 3, 4),
    ),
    "deal_in_blocks": Mutant(
        "deal.order", "games_follow_the_model", _function(Table, "deal", _deal_in_blocks)
    ),
    "turned_up_from_the_bottom": Mutant(
        "deal.first_offer",
        "games_follow_the_model",
        _function(Table, "deal", _turned_up_last),
        Focus.on("deal.first_offer", "turned_up_card"),
    ),
    "no_first_offer_read_as_turned_up": Mutant(
        "deal.first_offer",
        "games_follow_the_model",
        _rules(
            lambda r: _when(
                r.deal.first_offer is FirstOffer.NONE,
                "deal.first_offer",
                FirstOffer.TURNED_UP_CARD,
            )
        ),
        Focus.on("deal.first_offer", "none"),
    ),
    "seat_after_winner_read_as_winner": Mutant(
        "next_starter",
        "games_follow_the_model",
        _rules(
            lambda r: _when(
                r.turn.next_starter is NextStarter.SEAT_AFTER_ROUND_WINNER,
                "turn.next_starter",
                NextStarter.ROUND_WINNER,
            )
        ),
        Focus.on("next_starter", "seat_after_round_winner"),
    ),
    "first_starter_read_as_round_winner": Mutant(
        "next_starter",
        "games_follow_the_model",
        _rules(
            lambda r: _when(
                r.turn.next_starter is NextStarter.FIRST_STARTER,
                "turn.next_starter",
                NextStarter.ROUND_WINNER,
            )
        ),
        Focus.on("next_starter", "first_starter"),
    ),
    "deck_out_hands_score_nothing": Mutant(
        "deck_runs_out",
        "games_follow_the_model",
        _rules(
            lambda r: _when(
                r.reshuffle.deck_runs_out is DeckRunsOut.ROUND_ENDS_HANDS_SCORE,
                "reshuffle.deck_runs_out",
                DeckRunsOut.ROUND_ENDS_NO_SCORE,
            )
        ),
        Focus.on("deck_runs_out", "round_ends_hands_score"),
    ),
    "empty_draw_read_as_last_card_taken": Mutant(
        "deck_runs_out_when",
        "games_follow_the_model",
        _rules(
            lambda r: _when(
                r.reshuffle.deck_runs_out_when is DeckRunsOutWhen.DRAW_FINDS_DECK_EMPTY,
                "reshuffle.deck_runs_out_when",
                DeckRunsOutWhen.LAST_CARD_TAKEN,
            )
        ),
        Focus.on("deck_runs_out_when", "draw_finds_deck_empty"),
    ),
    "card_under_not_kept_aside": Mutant(
        "reshuffle.kept_aside",
        "games_follow_the_model",
        _rules(
            lambda r: _when(
                r.reshuffle.kept_aside is KeptAside.OFFER_AND_CARD_UNDER,
                "reshuffle.kept_aside",
                KeptAside.CURRENT_OFFER,
            )
        ),
        Focus.on("reshuffle.kept_aside", "offer_and_card_under"),
    ),
    "offer_under_deck_read_as_reshuffle": Mutant(
        "deck_runs_out",
        "games_follow_the_model",
        _rules(
            lambda r: _when(
                r.reshuffle.deck_runs_out is DeckRunsOut.OFFER_UNDER_DECK,
                "reshuffle.deck_runs_out",
                DeckRunsOut.RESHUFFLE,
            )
        ),
        Focus.on("deck_runs_out", "offer_under_deck"),
    ),
    "set_min_one_more": Mutant(
        "throws.set.min",
        "games_follow_the_model",
        _rules(
            lambda r: _when(
                r.throws.set_min < r.throws.set_max, "throws.set_min", r.throws.set_min + 1
            )
        ),
    ),
    "set_max_unbounded": Mutant(
        "throws.set.max",
        "games_follow_the_model",
        _rules(lambda r: {"throws.set_max": 99}),
        Focus.on("hand_size", *_LONG_HANDS),
    ),
    "run_min_one_less": Mutant(
        "throws.run.min",
        "games_follow_the_model",
        _rules(lambda r: _when(r.throws.run_min > 2, "throws.run_min", r.throws.run_min - 1)),
        Focus.on("throws.run.min", 3, 4, 5),
    ),
    "ace_either_end_read_as_low": Mutant(
        "throws.run.ace",
        "games_follow_the_model",
        _rules(
            lambda r: _when(r.throws.run_ace is RunAce.LOW_OR_HIGH, "throws.run_ace", RunAce.LOW)
        ),
        Focus.on("throws.run.ace", "low_or_high")
        .also("throws.run.min", 2, 3)
        .also("hand_size", *_LONG_HANDS),
    ),
    "run_max_ignored": Mutant(
        "throws.run.max",
        "games_follow_the_model",
        _rules(lambda r: {"throws.run_max": None}),
        Focus.on("throws.run.max", 2, 3, 4, 5, 6, 7).also("hand_size", *_LONG_HANDS),
    ),
    "min_naturals_read_as_one": Mutant(
        "throws.run.min_naturals",
        "games_follow_the_model",
        _rules(lambda r: {"throws.run_min_naturals": 1}),
        Focus.on("throws.run.min_naturals", 2, 3).also("deck.jokers_wild", "runs", "sets_and_runs"),
    ),
    "runs_never_turn_the_corner": Mutant(
        "throws.run.wrap",
        "games_follow_the_model",
        _rules(lambda r: {"throws.run_wrap": False}),
        Focus.on("throws.run.wrap", True).also("hand_size", *_LONG_HANDS),
    ),
    "jokers_always_a_set": Mutant(
        "throws.set.jokers_alone",
        "games_follow_the_model",
        _rules(lambda r: {"throws.set_jokers_alone": True}),
        # Jokers enough for a set of them alone.
        Focus.on("throws.set.jokers_alone", False)
        .also("deck.jokers", 2, 3, 4)
        .also("hand_size", *_LONG_HANDS),
    ),
    "jokers_always_extend_upwards": Mutant(
        "throws.run.jokers_extend",
        "games_follow_the_model",
        _rules(lambda r: {"throws.run_jokers_extend": JokersExtend.UP_FIRST}),
        Focus.on("throws.run.jokers_extend", "down_first").also("hand_size", *_LONG_HANDS),
    ),
    "runs_in_any_order": Mutant(
        "throws.run.order",
        "games_follow_the_model",
        _rules(lambda r: {"throws.run_order": RunOrder.ANY}),
        Focus.on("throws.run.order", "ascending").also("hand_size", *_LONG_HANDS),
    ),
    "joker_always_thrown_alone": Mutant(
        "throws.single_joker",
        "games_follow_the_model",
        _rules(lambda r: {"throws.single_joker": True}),
        Focus.on("throws.single_joker", False),
    ),
    "highest_single_any_single": Mutant(
        "throws.single",
        "games_follow_the_model",
        _rules(
            lambda r: _when(
                r.throws.single is SingleThrow.HIGHEST_WHEN_NO_COMBINATION,
                "throws.single",
                SingleThrow.ANY,
            )
        ),
        Focus.on("throws.single", "highest_when_no_combination"),
    ),
    "single_always_allowed": Mutant(
        "throws.single",
        "games_follow_the_model",
        _rules(lambda r: {"throws.single": SingleThrow.ANY}),
        Focus.on("throws.single", "when_no_combination", "highest_when_no_combination"),
    ),
    "slapdown_ignored": Mutant(
        "throws.slapdown",
        "games_follow_the_model",
        _rules(lambda r: {"throws.slapdown": Slapdown.NONE}),
        Focus.on("throws.slapdown", "same_rank_as_single"),
    ),
    "slapdown_after_any_throw": Mutant(
        "throws.slapdown",
        "games_follow_the_model",
        _function(Table, "_pick", _slapdown_after_any_throw),
        Focus.on("throws.slapdown", "same_rank_as_single"),
    ),
    "runs_by_rank_sets_sorted_too": Mutant(
        "throws.laid",
        "games_follow_the_model",
        _rules(
            lambda r: _when(
                r.throws.laid is ThrowLaid.RUNS_BY_RANK, "throws.laid", ThrowLaid.BY_RANK
            )
        ),
        Focus.on("throws.laid", "runs_by_rank").also("hand_size", *_LONG_HANDS),
    ),
    "laid_as_placed": Mutant(
        "throws.laid",
        "games_follow_the_model",
        _rules(lambda r: {"throws.laid": ThrowLaid.AS_PLACED}),
        Focus.on("throws.laid", "by_rank", "runs_by_rank").also("hand_size", *_LONG_HANDS),
    ),
    "call_limit_steps_ignored": Mutant(
        "call.limit_by_seats",
        "games_follow_the_model",
        _rules(lambda r: {"calling.limit_steps": ()}),
    ),
    "unordered_offer_sorted": Mutant(
        "throws.order_matters",
        "games_follow_the_model",
        _function(Table, "_throw", _offer_sorted),
        Focus.on("throws.order_matters", False).also("hand_size", *_LONG_HANDS),
    ),
    "first_or_last_read_as_last": Mutant(
        "pick.from_offer",
        "games_follow_the_model",
        _rules(
            lambda r: _when(
                r.picking.from_offer is PickFromOffer.FIRST_OR_LAST_PLACED,
                "picking.from_offer",
                PickFromOffer.LAST_PLACED,
            )
        ),
        Focus.on("pick.from_offer", "first_or_last_placed"),
    ),
    "multi_throw_rule_ignored": Mutant(
        "pick.only_after_multi_throw",
        "games_follow_the_model",
        _function(Table, "offer_open_to", lambda original: lambda self, seat: True),
        Focus.on("pick.only_after_multi_throw", True),
    ),
    "multi_throw_scope_ignored": Mutant(
        "pick.multi_throw_scope",
        "games_follow_the_model",
        _rules(lambda r: {"picking.multi_throw_scope": MultiThrowScope.HAND}),
        Focus.on("pick.multi_throw_scope", "turn", "game"),
    ),
    "next_draw_reshuffles_at_once": Mutant(
        "reshuffle.moment",
        "games_follow_the_model",
        _rules(lambda r: {"reshuffle.moment": ReshuffleMoment.WHEN_DECK_EMPTIED}),
        Focus.on("reshuffle.moment", "when_draw_finds_deck_empty", "at_throw_after_deck_emptied"),
    ),
    "new_deck_upside_down": Mutant(
        "reshuffle.new_deck",
        "games_follow_the_model",
        _function(Table, "reshuffle", _new_deck_reversed),
        Focus.on("deck_runs_out", "reshuffle"),
    ),
    "pickable_aside_read_as_whole_offer": Mutant(
        "reshuffle.kept_aside",
        "games_follow_the_model",
        _rules(
            lambda r: _when(
                r.reshuffle.kept_aside is KeptAside.PICKABLE_AND_THROW,
                "reshuffle.kept_aside",
                KeptAside.OFFER_AND_THROW,
            )
        ),
        Focus.on("reshuffle.kept_aside", "pickable_and_throw"),
    ),
    "takeable_not_held_back_at_once": Mutant(
        "reshuffle.kept_aside",
        "games_follow_the_model",
        _rules(
            lambda r: _when(
                r.reshuffle.kept_aside is KeptAside.PICKABLE_AND_THROW
                and r.reshuffle.moment is ReshuffleMoment.WHEN_DECK_EMPTIED,
                "reshuffle.kept_aside",
                KeptAside.CURRENT_OFFER,
            )
        ),
        Focus.on("reshuffle.kept_aside", "pickable_and_throw").also(
            "reshuffle.moment", "when_deck_emptied"
        ),
    ),
    "throw_after_empty_deck_read_as_next_draw": Mutant(
        "reshuffle.moment",
        "games_follow_the_model",
        _rules(
            lambda r: _when(
                r.reshuffle.moment is ReshuffleMoment.AT_THROW_AFTER_DECK_EMPTIED,
                "reshuffle.moment",
                ReshuffleMoment.WHEN_DRAW_FINDS_DECK_EMPTY,
            )
        ),
        Focus.on("reshuffle.moment", "at_throw_after_deck_emptied"),
    ),
    "call_limit_one_more": Mutant(
        "call.limit",
        "games_follow_the_model",
        _rules(lambda r: {"calling.limit": r.calling.limit + 1}),
    ),
    "inclusive_limit_read_as_exclusive": Mutant(
        "call.inclusive",
        "games_follow_the_model",
        _rules(lambda r: {"calling.inclusive": False}),
        Focus.on("call.inclusive", True),
    ),
    "call_after_throwing": Mutant(
        "call.timing", "games_follow_the_model", _function(Table, "_call", _call_after_throwing)
    ),
    "no_first_round_lock": Mutant(
        "call.first_round",
        "games_follow_the_model",
        _function(
            calling,
            "call_refusal",
            lambda original: lambda v, t, p, r, *seats: original(v, p, p, r, *seats),
        ),
        Focus.on("call.first_round", "after_every_player_had_a_turn"),
    ),
    "min_own_turns_ignored": Mutant(
        "call.min_own_turns",
        "games_follow_the_model",
        _rules(lambda r: _when(r.calling.min_own_turns != 0, "calling.min_own_turns", 0)),
        Focus.on("call.min_own_turns", 1, 2),
    ),
    "tie_read_as_caller_wins": Mutant(
        "showdown.tie",
        "showdowns_follow_the_model",
        _rules(lambda r: {"showdown.tie": ShowdownTie.CALLER_WINS}),
        Focus.on("showdown.tie", "beats_caller"),
    ),
    "tie_break_by_seat_number": Mutant(
        "showdown.winner_among_lowest",
        "showdowns_follow_the_model",
        _function(scoring, "showdown", _tie_by_seat_number),
        Focus.on("showdown.winner_among_lowest", "first_after_caller"),
    ),
    "lowest_seat_read_as_first_after_caller": Mutant(
        "showdown.winner_among_lowest",
        "showdowns_follow_the_model",
        _rules(lambda r: {"showdown.winner_among_lowest": WinnerAmongLowest.FIRST_AFTER_CALLER}),
        Focus.on("showdown.winner_among_lowest", "lowest_seat"),
    ),
    "winners_by_highest_total": Mutant(
        "scoring.kind",
        "games_follow_the_model",
        _function(game_end, "winners", _winners_by_max),
        # Under penalty scoring, where the lowest total wins.
        Focus.on("game_end.kind", "fixed_rounds").also("scoring.kind", "penalty"),
    ),
    "won_caller_scores_own_hand": Mutant(
        "scoring.won_call",
        "showdowns_follow_the_model",
        _function(scoring, "showdown", _won_call_counts_caller),
        Focus.on("scoring.kind", "penalty"),
    ),
    "all_hands_read_as_except_winner": Mutant(
        "scoring.beaten_call",
        "showdowns_follow_the_model",
        _rules(
            lambda r: _when(
                r.scoring.beaten_call is BeatenCall.ALL_HANDS,
                "scoring.beaten_call",
                BeatenCall.HANDS_EXCEPT_WINNER,
            )
        ),
        Focus.on("scoring.beaten_call", "all_hands"),
    ),
    "hand_times_read_as_hand_plus_penalty": Mutant(
        "scoring.beaten_call",
        "showdowns_follow_the_model",
        _rules(
            lambda r: _when(
                r.scoring.beaten_call is BeatenCall.CALLER_HAND_TIMES,
                "scoring.beaten_call",
                BeatenCall.CALLER_HAND_PLUS_PENALTY,
            )
        ),
        Focus.on("scoring.beaten_call", "caller_hand_times"),
    ),
    "penalty_only_adds_the_hand": Mutant(
        "scoring.beaten_call",
        "showdowns_follow_the_model",
        _rules(
            lambda r: _when(
                r.scoring.beaten_call is BeatenCall.PENALTY_ONLY,
                "scoring.beaten_call",
                BeatenCall.CALLER_HAND_PLUS_PENALTY,
            )
        ),
        Focus.on("scoring.beaten_call", "penalty_only"),
    ),
    "beaten_factor_read_as_2": Mutant(
        "scoring.beaten_factor",
        "showdowns_follow_the_model",
        _rules(lambda r: _when(r.scoring.beaten_factor != 2, "scoring.beaten_factor", 2)),
        Focus.on("scoring.beaten_factor", 3, 4),
    ),
    "beaten_penalty_30": Mutant(
        "scoring.beaten_penalty",
        "showdowns_follow_the_model",
        _rules(lambda r: _when(r.scoring.beaten_penalty != 30, "scoring.beaten_penalty", 30)),
    ),
    "others_never_score_on_a_beaten_call": Mutant(
        "scoring.beaten_others",
        "showdowns_follow_the_model",
        _rules(lambda r: {"scoring.beaten_others": BeatenOthers.SCORE_NOTHING}),
        Focus.on("scoring.beaten_others", *_BEATEN_OTHERS[1:]),
    ),
    "round_winner_spared_on_a_beaten_call": Mutant(
        "scoring.beaten_others",
        "showdowns_follow_the_model",
        _rules(
            lambda r: _when(
                r.scoring.beaten_others is BeatenOthers.ALL_BUT_CALLER_SCORE_OWN_HANDS,
                "scoring.beaten_others",
                BeatenOthers.SCORE_OWN_HANDS,
            )
        ),
        Focus.on("scoring.beaten_others", "all_but_caller_score_own_hands"),
    ),
    "tied_lowest_hands_scored_on_a_beaten_call": Mutant(
        "scoring.beaten_others",
        "showdowns_follow_the_model",
        _rules(
            lambda r: _when(
                r.scoring.beaten_others is BeatenOthers.SCORE_OWN_HANDS_BUT_LOWEST,
                "scoring.beaten_others",
                BeatenOthers.SCORE_OWN_HANDS,
            )
        ),
        Focus.on("scoring.beaten_others", "score_own_hands_but_lowest"),
    ),
    "beaters_above_the_lowest_scored_on_a_beaten_call": Mutant(
        "scoring.beaten_others",
        "showdowns_follow_the_model",
        _rules(
            lambda r: _when(
                r.scoring.beaten_others is BeatenOthers.SCORE_OWN_HANDS_BUT_BEATERS,
                "scoring.beaten_others",
                BeatenOthers.SCORE_OWN_HANDS_BUT_LOWEST,
            )
        ),
        Focus.on("scoring.beaten_others", "score_own_hands_but_beaters"),
    ),
    "own_card_values_ignored": Mutant(
        "card_values.cards",
        "games_follow_the_model",
        _rules(lambda r: _when(bool(r.cards.own_values), "cards.own_values", ())),
    ),
    "jokers_only_value_ignored": Mutant(
        "card_values.only_jokers",
        "showdowns_follow_the_model",
        _rules(lambda r: _when(r.cards.only_jokers is not None, "cards.only_jokers", None)),
        # Jokers enough for a hand of jokers only.
        Focus.on("card_values.only_jokers", *range(-10, 6)).also("deck.jokers", 3, 4),
    ),
    "points_multiplier_ignored": Mutant(
        "scoring.points_multiplier",
        "showdowns_follow_the_model",
        _rules(lambda r: _when(r.scoring.points_multiplier != 1, "scoring.points_multiplier", 1)),
        Focus.on("scoring.points_multiplier", 2, 3),
    ),
    "drop_at_multiples_ignored": Mutant(
        "scoring.drop_at_multiples_of",
        "showdowns_follow_the_model",
        _function(scoring, "cut_score", _drop_ignored),
        Focus.on("scoring.drop_at_multiples_of", *range(1, 61)),
    ),
    "cuts_ignored": Mutant(
        "scoring.cuts", "showdowns_follow_the_model", _function(scoring, "cut_score", _cut_ignored)
    ),
    "multiples_for_ignored": Mutant(
        "scoring.multiples_for",
        "showdowns_follow_the_model",
        _function(scoring, "cut_rules", lambda original: lambda own_hand, rules: rules),
        # A total on a multiple kept: a beaten caller paying the penalty alone.
        Focus.on("scoring.multiples_for", "own_hand")
        .also("scoring.drop_at_multiples_of", *range(1, 61))
        .also("scoring.beaten_call", "penalty_only"),
    ),
    "halving_ignored": Mutant(
        "scoring.halve_at_multiples_of",
        "showdowns_follow_the_model",
        _function(scoring, "cut_score", _halving_ignored),
        Focus.on("scoring.halve_at_multiples_of", *range(1, 61)),
    ),
    "fixed_rounds_never_end": Mutant(
        "game_end.kind",
        "games_follow_the_model",
        _function(game_end, "game_over_after_round", _fixed_rounds_never_end),
        Focus.on("game_end.kind", "fixed_rounds"),
    ),
    "first_past_target_plays_on": Mutant(
        "game_end.kind",
        "showdowns_follow_the_model",
        _function(game_end, "game_over_after_round", _past_target_plays_on),
        Focus.on("game_end.kind", "first_past_target"),
    ),
    "one_round_too_many": Mutant(
        "game_end.rounds",
        "games_follow_the_model",
        _rules(
            lambda r: _when(
                r.game_end.rounds is not None, "game_end.rounds", (r.game_end.rounds or 0) + 1
            )
        ),
        Focus.on("game_end.rounds", 1, 2, 3, 4),
    ),
    "out_at_the_threshold": Mutant(
        "game_end.out_above",
        "showdowns_follow_the_model",
        _function(game_end, "eliminated_after", _out_at_threshold),
        Focus.on("game_end.reaching_is_out", False),
    ),
    "reaching_is_out_ignored": Mutant(
        "game_end.reaching_is_out",
        "showdowns_follow_the_model",
        _function(game_end, "eliminated_after", _reaching_ignored),
        Focus.on("game_end.reaching_is_out", True),
    ),
    "dollars_per_point_doubled": Mutant(
        "money.dollars_per_point",
        "showdowns_follow_the_model",
        _function(game_end, "settlement", _rate_doubled),
        Focus.on("money.dollars_per_point", "0.05", "1", "0.10", "2.25"),
    ),
    "seat_order_read_as_largest_first": Mutant(
        "money.settlement",
        "showdowns_follow_the_model",
        _rules(lambda r: {"money.settlement": Settlement.LARGEST_DEBTOR_PAYS_LARGEST_CREDITOR}),
        Focus.on("money.settlement", "debtors_pay_creditors_in_seat_order"),
    ),
    "timer_seconds_ignored": Mutant(
        "turn_timer.seconds",
        "games_follow_the_model",
        _function(Table, "_timeout", _timer_seconds_ignored),
    ),
    "take_lowest_read_as_draw": Mutant(
        "turn_timer.on_expiry",
        "games_follow_the_model",
        _rules(lambda r: {"timer.on_expiry": TimerExpiry.THROW_HIGHEST_SINGLE_THEN_DRAW}),
        Focus.on("turn_timer.on_expiry", "throw_highest_single_then_take_lowest"),
    ),
}


@contextlib.contextmanager
def applied(name: str) -> Iterator[None]:
    """The engine with mutant ``name`` applied, put back as it was afterwards."""
    saved: list[tuple[object, str, object]] = []

    def set_(owner: object, attr: str, value: object) -> None:
        saved.append(
            (owner, attr, owner.__dict__[attr] if isinstance(owner, type) else getattr(owner, attr))
        )
        setattr(owner, attr, value)

    MUTANTS[name].patch(set_)
    try:
        yield
    finally:
        for owner, attr, value in reversed(saved):
            setattr(owner, attr, value)
