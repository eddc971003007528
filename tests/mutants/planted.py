"""Bugs planted in the reference engine the way ports of one ruleset get rules wrong.

Unlike the mutants of rules.py (one parameter misread under every profile), each planted
bug is a port of one profile: its ``profile``, and ``clauses``, the ids of that profile's
clauses stating the rule it breaks (the first is the rule's own). ``bench/credit.py``
replays that profile's cases with the bug in (``planted``) and ranks those clauses in
every failure.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from jhyap_core.cards import Card
from jhyap_core.table import Table
from jhyap_core.vocabulary import JhyapError, Phase, ThrowKind
from reference_engine import calling, game_end, picking, scoring, throws
from reference_engine.game import Game
from reference_engine.rules import BeatenCall, BeatenOthers, Rules, RunAce, ScoringKind, ShowdownTie

from .rules import Patch, _function, _rules


@dataclass(frozen=True)
class Planted:
    profile: str
    clauses: tuple[str, ...]  # the broken rule's clauses; the first is the rule's own
    what: str
    patch: Patch


def _deal_from_next_seat(original: Any) -> Any:
    """Deals round by round starting with the seat after the starter."""

    def deal(self: Game, order: Sequence[Card]) -> Any:
        n, size = len(self.active), self.rules.deal.hand_size
        head = list(order[: size * n])
        moved = list(head)
        for i, card in enumerate(head):
            moved[(i // n) * n + (i + 1) % n] = card
        return original(self, moved + list(order[size * n :]))

    return deal


def _refused_throw_discards(original: Any) -> Any:
    """A throw refused as illegal has already taken the cards out of the hand."""

    def act(self: Game, seat: int, action: Any) -> Any:
        try:
            return original(self, seat, action)
        except JhyapError:
            cards = getattr(action, "cards", None)
            if cards and self.to_act == seat:
                hand = self.hands[seat]
                for card in cards:
                    if card in hand:
                        hand.remove(card)
            raise

    return act


def _eliminated_seats_keep_turns(original: Any) -> Any:
    """Turn passes to the next seat number, out or not, once a seat is out."""

    def next_active(self: Game, seat: int) -> int:
        if len(self.active) == self.seats or self.phase is not Phase.PICK:
            return int(original(self, seat))
        return (seat + 1) % self.seats

    return next_active


def _turned_up_card_kept(original: Any) -> Any:
    """The turned-up card left on the table when not taken never goes out of play."""

    def pick(self: Game, seat: int, card: Card | None) -> Any:
        first = self.turns_taken == 0
        events = original(self, seat, card)
        if first:
            kept = [e for e in events if e.get("type") == "out_of_play"]
            for event in kept:
                for name in event["cards"]:
                    self.out_of_play.remove(next(c for c in self.out_of_play if str(c) == name))
            events = [e for e in events if e.get("type") != "out_of_play"]
        return events

    return pick


def _winner_last_among_lowest(original: Any) -> Any:
    def showdown(values: Any, order: Sequence[int], caller: int, rules: Rules) -> Any:
        return original(values, [order[0], *reversed(order[1:])], caller, rules)

    return showdown


def _new_deck_cut_by_one(original: Any) -> Any:
    """The reshuffle's last card goes on top of the new deck (an off-by-one in the cut)."""

    def reshuffle(self: Game, order: Sequence[Card]) -> Any:
        return original(self, [*order[-1:], *order[:-1]] if order else order)

    return reshuffle


def _call_limit_one_less(original: Any) -> Any:
    def call_refusal(value: int, turns: int, players: int, rules: Rules, *seats: Any) -> Any:
        return original(value, turns, players, rules.with_values({"calling.limit": 6}), *seats)

    return call_refusal


def _lock_one_turn_longer(original: Any) -> Any:
    def call_refusal(value: int, turns: int, players: int, rules: Rules, *seats: Any) -> Any:
        return original(value, turns - 1 if turns else turns, players, rules, *seats)

    return call_refusal


def _won_call_nobody_pays(original: Any) -> Any:
    def showdown(values: Any, order: Sequence[int], caller: int, rules: Rules) -> Any:
        result = original(values, order, caller, rules)
        if result.outcome is scoring.Outcome.WON_CALL:
            deltas = {s: (d if s == caller else 0) for s, d in result.deltas.items()}
            return dataclasses.replace(result, deltas=deltas)
        return result

    return showdown


def _whole_run_pickable(original: Any) -> Any:
    def pickable_positions(offer: Any, rules: Rules) -> Any:
        return tuple(range(len(offer.cards)))

    return pickable_positions


def _rate_halved(original: Any) -> Any:
    def settlement(scores: Sequence[int], rate: Decimal, method: Any) -> Any:
        return original(scores, rate / 2, method)

    return settlement


def _clockwise_read_as_seat_order(original: Any) -> Any:
    def next_active(self: Game, seat: int) -> int:
        for step in range(1, self.seats + 1):
            if (seat - step) % self.seats in self.active:
                return (seat - step) % self.seats
        raise AssertionError

    return next_active


def _dealer_after_starter(original: Any) -> Any:
    def dealer(self: Game) -> int | None:
        found = original.fget(self)
        return None if found is None else self.next_active(self.starter)

    return property(dealer)


def _cut_on_any_score_past(original: Any) -> Any:
    def cut_score(total: int, rules: Rules) -> int:
        for cut in rules.scoring.cuts:
            if total >= cut.at:
                return cut.to
        return int(original(total, rules))

    return cut_score


def _timer_throws_lowest(original: Any) -> Any:
    def timeout(self: Game, seat: int) -> Any:
        if self.phase is not Phase.CALL_OR_THROW or self.rules.timer.seconds <= 0:
            return original(self, seat)
        value = self.rules.cards.value
        lowest = min(self.hands[seat], key=lambda c: (value(c.rank), c.rank, c.sort_key))
        events = [{"type": "timed_out", "seat": seat}, *self._throw(seat, (lowest,), forced=True)]
        # The throw above may have moved the phase on (mypy keeps the narrowing).
        if self.phase is Phase.AWAITING_RESHUFFLE:  # type: ignore[comparison-overlap]
            self.timeout_waiting = seat
            return events
        return events + self._timeout_pick(seat)

    return timeout


# -- bug shapes found in public engines (issue 37): each over-accepts, or misplaces, where a
# -- case of the corpus must tell the right answer from the wrong one

_RANKS_IN_A_ROW = "12345678910111213"


def _also_a_run(accepts: Callable[[Sequence[Card], Rules], bool]) -> Callable[[Any], Any]:
    """A classify that also takes for a run what ``accepts`` wrongly lets through: natural
    cards only, of a run's length, and no set."""

    def wrap(original: Any) -> Any:
        def classify(cards: Sequence[Card], rules: Rules) -> ThrowKind | None:
            kind: ThrowKind | None = original(cards, rules)
            count = len(cards)
            if kind is not None or count < max(rules.throws.run_min, 2):
                return kind
            if rules.throws.run_max is not None and count > rules.throws.run_max:
                return kind
            if any(c.is_joker for c in cards) or not accepts(cards, rules):
                return kind
            return ThrowKind.RUN

        return classify

    return wrap


def _by_rank(cards: Sequence[Card]) -> list[Card]:
    """Lowest rank first, ace low; equal ranks stay in the order placed (a stable sort)."""
    return sorted(cards, key=lambda c: c.rank)


def _ranks_found_in_a_string(cards: Sequence[Card], rules: Rules) -> bool:
    """Ranks, lowest first, written one after the other, are found in "12345678910111213"
    (so A A 2 reads "112", J Q K A reads "11213"); suits checked from the second-lowest
    card on, as the engine found did (``Ac Ad 2c`` placed Ad first got through)."""
    ordered = _by_rank(cards)
    written = "".join(str(c.rank) for c in ordered)
    return written in _RANKS_IN_A_ROW and len({c.suit for c in ordered[1:]}) == 1


def _lowest_suit_unchecked(cards: Sequence[Card], rules: Rules) -> bool:
    """Consecutive ranks, but the suit compared only from the second-lowest card up."""
    ordered = _by_rank(cards)
    ranks = [c.rank for c in ordered]
    consecutive = ranks == list(range(ranks[0], ranks[0] + len(ranks)))
    return consecutive and len({c.suit for c in ordered[1:]}) == 1


def _gaps_unchecked(cards: Sequence[Card], rules: Rules) -> bool:
    """One suit and no rank twice: ranks only have to go up, not by one."""
    ranks = [c.rank for c in cards]
    return len({c.suit for c in cards}) == 1 and len(set(ranks)) == len(ranks)


def _last_lower_seat_wins(original: Any) -> Any:
    """On a beaten call the winner is the last seat, in turn order after the caller, whose
    hand is at or below the caller's (below it, where the caller wins a tie); the lowest
    hand is not looked for."""

    def showdown(values: Any, order: Sequence[int], caller: int, rules: Rules) -> Any:
        result = original(values, order, caller, rules)
        if result.outcome is not scoring.Outcome.BEATEN_CALL:
            return result
        ties = rules.showdown.tie is ShowdownTie.BEATS_CALLER
        under = [
            s
            for s in order
            if s != caller and (values[s] <= values[caller] if ties else values[s] < values[caller])
        ]
        winner = under[-1]
        deltas = dict.fromkeys(order, 0)
        if rules.scoring.kind is ScoringKind.TRANSFER:
            amount = sum(values.values())
            if rules.scoring.beaten_call is BeatenCall.HANDS_EXCEPT_WINNER:
                amount -= values[winner]
            deltas[caller], deltas[winner] = -amount, amount
        elif rules.scoring.kind is ScoringKind.PENALTY:
            deltas[caller] = values[caller] + rules.scoring.beaten_penalty
            if rules.scoring.beaten_others is not BeatenOthers.SCORE_NOTHING:
                winner_too = (
                    rules.scoring.beaten_others is BeatenOthers.ALL_BUT_CALLER_SCORE_OWN_HANDS
                )
                for seat in order:
                    if seat != caller and (seat != winner or winner_too):
                        deltas[seat] = values[seat]
        return dataclasses.replace(result, winner=winner, deltas=deltas)

    return showdown


def _set_laid_in_hand_order(original: Any) -> Any:
    """A set goes on the offer in the order its cards are held, not the order placed."""

    def throw(self: Table, seat: int, cards: Sequence[Card], forced: bool = False) -> Any:
        chosen = list(cards)
        if len(chosen) > 1 and len({c.rank for c in chosen if not c.is_joker}) == 1:
            held = [c for c in self.hands[seat] if c in chosen]
            if sorted(held, key=str) == sorted(chosen, key=str):
                chosen = held
        return original(self, seat, chosen, forced)

    return throw


def _penalty(value: int) -> Callable[[Rules], dict[str, Any]]:
    return lambda r: {"beaten_penalty": value}


PLANTED: dict[str, Planted] = {
    "deal_starts_after_the_starter": Planted(
        "dhumbal",
        ("dhumbal.deal.order", "dhumbal.deal.given-order"),
        "deals round by round from the seat after the starter",
        _function(Table, "deal", _deal_from_next_seat),
    ),
    "refused_throw_loses_the_cards": Planted(
        "dashain",
        ("protocol.messages.refusal-changes-nothing",),
        "an illegal throw is refused after its cards left the hand",
        _function(Game, "act", _refused_throw_discards),
    ),
    "out_seats_keep_their_turn": Planted(
        "dhumbal",
        ("dhumbal.game-end.seats-skipped",),
        "the turn passes to the next seat number even when that seat is out",
        _function(Table, "next_active", _eliminated_seats_keep_turns),
    ),
    "turned_up_card_never_out_of_play": Planted(
        "dhumbal",
        ("dhumbal.pick.turned-up-leaves-play",),
        "the turned-up card not taken stays on the table instead of going out of play",
        _function(Table, "_pick", _turned_up_card_kept),
    ),
    "failed_show_penalty_20": Planted(
        "dhumbal",
        ("dhumbal.scoring.failed-show",),
        "a failed show costs the hand plus 20, not 25",
        _rules(_penalty(20)),
    ),
    "lowest_tie_goes_to_the_last_seat": Planted(
        "dashain",
        ("dashain.showdown.winner",),
        "among equal lowest hands the last in turn order after the caller wins",
        _function(scoring, "showdown", _winner_last_among_lowest),
    ),
    "new_deck_cut_by_one": Planted(
        "bga-yaniv",
        ("bga-yaniv.reshuffle.new-deck",),
        "the new deck is cut by one: the order's last card on top",
        _function(Table, "reshuffle", _new_deck_cut_by_one),
    ),
    "call_limit_7_read_as_6": Planted(
        "yaniv-israel",
        ("yaniv-israel.call.limit",),
        "calls at 7 refused: the limit taken as 6",
        _function(calling, "call_refusal", _call_limit_one_less),
    ),
    "joker_worth_one": Planted(
        "yaniv-israel",
        ("yaniv-israel.cards.values",),
        "a joker counts 1 instead of 0",
        _rules(lambda r: {"joker_value": 1}),
    ),
    "ace_high_in_runs": Planted(
        "everestbuzz",
        ("everestbuzz.throws.ace-low", "everestbuzz.options.no-high-ace"),
        "Q K A accepted as a run",
        _rules(lambda r: {"run_ace": RunAce.LOW_OR_HIGH}),
    ),
    "first_round_lock_one_turn_longer": Planted(
        "dashain",
        ("dashain.call.first-round",),
        "with first_round_jhyap off, the first call after the lap is still refused",
        _function(calling, "call_refusal", _lock_one_turn_longer),
    ),
    "won_call_others_pay_nothing": Planted(
        "everestbuzz",
        ("everestbuzz.scoring.won-call",),
        "after a won call the caller collects but nobody's score goes down",
        _function(scoring, "showdown", _won_call_nobody_pays),
    ),
    "whole_run_pickable": Planted(
        "dashain",
        ("dashain.pick.run-ends",),
        "any card of a thrown run may be taken, not only its ends",
        _function(picking, "pickable_positions", _whole_run_pickable),
    ),
    "dollars_per_point_halved": Planted(
        "dashain",
        ("dashain.money.rate", "dashain.money.settlement-method"),
        "the settlement pays half the rate",
        _function(game_end, "settlement", _rate_halved),
    ),
    "timer_throws_the_lowest_card": Planted(
        "dashain",
        ("dashain.timer.expiry-play",),
        "on expiry the timer throws the hand's lowest card, not its highest",
        _function(Table, "_timeout", _timer_throws_lowest),
    ),
    "right_read_as_seat_order_down": Planted(
        "everestbuzz",
        ("everestbuzz.turn.direction",),
        "play passes to the lower seat number",
        _function(Table, "next_active", _clockwise_read_as_seat_order),
    ),
    "dealer_is_the_seat_after_the_starter": Planted(
        "dashain",
        ("dashain.deal.dealer",),
        "the dealer reported is the seat after the starter",
        _function(Table, "dealer", _dealer_after_starter),
    ),
    "cut_at_any_score_past_200": Planted(
        "yaniv-israel",
        ("yaniv-israel.scoring.cut-200",),
        "any total of 200 or more is cut to 150, not exactly 200",
        _function(scoring, "cut_score", _cut_on_any_score_past),
    ),
    # the five bug shapes of issue 37, each planted under a profile whose cases now tell it
    "run_ranks_found_in_a_string": Planted(
        "jhyap-jacks-zero",
        ("jhyap-jacks-zero.throws.kinds",),
        'a run is ranks found in "12345678910111213" (A A 2, A Q K pass), suits from the second',
        _function(throws, "classify", _also_a_run(_ranks_found_in_a_string)),
    ),
    "run_lowest_suit_unchecked": Planted(
        "jhyap-jacks-zero",
        ("jhyap-jacks-zero.throws.kinds",),
        "the suit of a run's lowest card is never checked (4c 3c 2h passes)",
        _function(throws, "classify", _also_a_run(_lowest_suit_unchecked)),
    ),
    "run_gaps_accepted": Planted(
        "jhyap-jacks-zero",
        ("jhyap-jacks-zero.throws.kinds",),
        "a run's ranks need only go up in one suit (3c 5c 6c passes)",
        _function(throws, "classify", _also_a_run(_gaps_unchecked)),
    ),
    "beaten_call_last_lower_seat_wins": Planted(
        "jhyap-encyclopedia",
        ("jhyap-encyclopedia.showdown.counter-winner",),
        "a beaten call is won by the last seat at or below the caller, not the lowest hand",
        _function(scoring, "showdown", _last_lower_seat_wins),
    ),
    "set_laid_in_hand_order": Planted(
        "jhyap-encyclopedia",
        ("jhyap-encyclopedia.pick.last-card", "jhyap-encyclopedia.throws.kinds"),
        "a thrown set is laid in the order its cards are held, not the order placed",
        _function(Table, "_throw", _set_laid_in_hand_order),
    ),
}


@contextlib.contextmanager
def planted(name: str) -> Iterator[None]:
    """The reference engine with planted bug ``name`` in, put back as it was afterwards."""
    saved: list[tuple[object, str, object]] = []

    def set_(owner: object, attr: str, value: object) -> None:
        saved.append(
            (owner, attr, owner.__dict__[attr] if isinstance(owner, type) else getattr(owner, attr))
        )
        setattr(owner, attr, value)

    PLANTED[name].patch(set_)
    try:
        yield
    finally:
        for owner, attr, value in reversed(saved):
            setattr(owner, attr, value)


def broken_clauses(name: str) -> tuple[str, ...]:
    return PLANTED[name].clauses
