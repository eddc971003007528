"""Play a drawn game through the engine's Python API, checking every step against
tests/model (an independent reading of the rules) and the invariants of issue 21:
every card accounted for, transfer tallies summing to zero, a refused request changing
nothing, winners first in the standings."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from reference_engine import (
    Call,
    Game,
    JhyapError,
    PickDeck,
    PickOffer,
    SlapDown,
    ThrowCards,
    Timeout,
    parse_card,
    parse_cards,
)
from tests.model import results, turn
from tests.model.table import Table as Rules
from tests.model.table import canonical, rank, resolved_rules
from tests.strategies import Table


@dataclass
class Style:
    """How the drawn players play: call often or rarely, draw or take from the offer."""

    call: float = 0.3
    draw: float = 0.7
    timeout: float = 0.1
    slapdown: float = 0.7  # a seat that may slap down does so this often
    option: float = 0.3
    max_rounds: int = 3
    steps: int = 400  # requests at most: a ruleset may make calls rare, and hands long
    short_deck: bool = False  # after each deal, all but a few deck cards go out of play


@dataclass
class Expect:
    """What the model says the table holds between requests."""

    rules: Rules
    seats: int
    values: dict[str, Any]
    scores: list[int]
    active: list[int]
    out_round: dict[int, int] = field(default_factory=dict)
    starter: int = 0
    round: int = 0
    to_act: int | None = None
    turns: int = 0
    own_turns: dict[int, int] = field(default_factory=dict)  # each seat's, this hand
    # seat -> (hand, turns taken in it) of its last throw of two or more cards this game
    last_multi: dict[int, tuple[int, int]] = field(default_factory=dict)
    timeout_state: dict[str, Any] | None = None  # a timeout's pick waits for a new deck
    # throws.slapdown: the seat that has just drawn a card of its single's rank, and that
    # card, until the next seat acts
    slapdown: tuple[int, str] | None = None


def _fail(what: str, got: Any, want: Any) -> AssertionError:
    return AssertionError(f"{what}: engine {got!r}, model {want!r}")


def check(what: str, got: Any, want: Any) -> None:
    if got != want:
        raise _fail(what, got, want)


def refused(
    game: Game, request: Any, code: str | None = None, before: dict[str, Any] | None = None
) -> None:
    """``request()`` must be refused (with ``code``) and change nothing: the state after it
    is the state before (``before``, when the caller took it since the last change)."""
    if before is None:
        before = game.state()
    try:
        request()
    except JhyapError as exc:
        if code is not None:
            check("refusal code", exc.code.value, code)
    else:
        raise AssertionError(f"accepted what the model refuses ({code})")
    check("state after a refusal", game.state(), before)


def _accounted(game: Game, everything: Counter[str]) -> None:
    state = game.state()
    cards = [c for hand in state["hands"] for c in hand]
    cards += state["offer"] + state["thrown"] + state["deck"] + state["out_of_play"]
    cards += [str(c) for c in game.set_aside]
    check("every card accounted for", Counter(cards), everything)


def play(table: Table, style: Style) -> Game:
    """The game, every step checked, until it ends or ``style.steps`` requests were made."""
    doc = table.profile
    rng = table.rng()
    game = Game(doc, table.seats, table.options)
    values = {o["name"]: table.options.get(o["name"], o["default"]) for o in doc["options"]}
    rules = Rules.of(resolved_rules(doc, values))
    exp = Expect(rules, table.seats, values, [0] * table.seats, list(range(table.seats)))
    exp.starter = rules.first_starter % table.seats
    everything = Counter(rules.deck(table.seats))
    for _ in range(style.steps):
        state = game.state()
        if state["phase"] == "game_over":
            return game
        check("scores", state["scores"], exp.scores)
        check("active", state["active"], exp.active)
        if exp.rules.kind == "transfer":
            check("transfer tallies sum", sum(state["scores"]), 0)
        if state["phase"] in ("awaiting_deal", "round_over"):
            _between_hands(game, exp, rng, style)
        elif state["phase"] == "awaiting_reshuffle":
            _reshuffle(game, exp, rng)
        else:
            _turn(game, exp, rng, style)
        if game.round:
            _accounted(game, everything)
    return game  # still going: every step so far was checked


def _between_hands(game: Game, exp: Expect, rng: random.Random, style: Style) -> None:
    r = exp.rules
    check("starter", game.state()["starter"], exp.starter)
    check("dealer", game.state()["dealer"], results.dealer(exp.starter, exp.active, exp.seats, r))
    options = game.profile["options"]
    if options and rng.random() < style.option:
        option = rng.choice(options)
        value = (
            rng.choice(option["values"])
            if "values" in option
            else rng.randint(option["range"]["min"], option["range"]["max"])
        )
        changes = option.get("changes") or (
            "at_start_only" if option["locked_when_open"] else "between_hands"
        )
        if changes == "at_start_only" or (changes == "before_first_deal" and exp.round > 0):
            refused(game, lambda: game.set_option(option["name"], value), "option_locked")
        else:
            events = game.set_option(option["name"], value)
            check(
                "option_changed",
                events,
                [{"type": "option_changed", "name": option["name"], "value": value}],
            )
            exp.values[option["name"]] = value
            exp.rules = Rules.of(resolved_rules(game.document, exp.values))
            r = exp.rules
    if r.end == "host_ends":
        if exp.round >= style.max_rounds:
            _game_ended(game.end_game(), exp)
            return
    else:
        refused(game, game.end_game, "game_not_endable")
    deck = r.deck(exp.seats)
    rng.shuffle(deck)
    events = game.deal(parse_cards(deck))
    exp.round += 1
    hands, turned, rest = results.deal(
        deck, exp.starter, exp.active, exp.seats, r.hand_size, r.first_offer
    )
    order = sorted(exp.active, key=lambda s: (s - exp.starter) % exp.seats)
    check(
        "round_started",
        events[0],
        {
            "type": "round_started",
            "round": exp.round,
            "dealer": results.dealer(exp.starter, exp.active, exp.seats, r),
            "starter": exp.starter,
            "turn_order": order,
        },
    )
    check(
        "dealt",
        events[1],
        {
            "type": "dealt",
            "hands": [canonical(h) for h in hands],
            "turned_up": turned,
            "deck_size": len(rest),
        },
    )
    state = game.state()
    check("deck after the deal", state["deck"], rest)
    check("offer after the deal", state["offer"], [turned] if turned else [])
    exp.to_act, exp.turns = exp.starter, 0
    exp.own_turns = {s: 0 for s in exp.active}
    if style.short_deck and len(game.deck) > 1:
        # As if the hand had gone on: the deck soon runs out, and reshuffles come often.
        keep = rng.randint(1, min(3, len(game.deck)))
        game.out_of_play.extend(game.deck[:-keep])
        del game.deck[:-keep]


def _reshuffle(game: Game, exp: Expect, rng: random.Random) -> None:
    exp.slapdown = None  # a reshuffle closes a slapdown (none is open while one is due)
    state = game.state()
    pile = list(state["out_of_play"])
    rng.shuffle(pile)
    events = game.reshuffle(parse_cards(pile))
    check("reshuffled", events[0], {"type": "reshuffled", "deck_size": len(pile)})
    r = exp.rules
    if r.moment == "when_deck_emptied" and state["thrown"]:
        # The previous throw's takeable cards, held back from the new deck, go out of play.
        held = canonical(state["offer"])
        check("held cards go out of play", events[1:], [{"type": "out_of_play", "cards": held}])
        after = game.state()
        check("offer after the reshuffle", after["offer"], state["thrown"])
        check("out of play after the reshuffle", after["out_of_play"], held)
        check("new deck", after["deck"], pile)
    elif r.moment == "at_throw_after_deck_emptied":
        # The seat that threw picks now; a timeout's pick is made at once.
        before, exp.timeout_state = exp.timeout_state, None
        if before is None:
            check("phase after the reshuffle", game.state()["phase"], "pick")
            check("events after the reshuffle", events[1:], [])
            check("new deck", game.state()["deck"], pile)
            return
        before = dict(before, deck=pile, offer=state["offer"], out_of_play=[])
        take = turn.timeout_take(_takeable(before, exp, before["to_act"]), r)
        card = take if take is not None else pile[0]
        _after_pick(game, exp, before, events[1:], card, from_deck=take is None)
    elif len(events) > 1:  # the waiting draw takes the new deck's top card
        check("the waiting draw", events[1]["card"], pile[0])
        _after_pick(game, exp, state, events[1:], pile[0], from_deck=True, remade=pile)
    else:
        check("new deck", game.state()["deck"], pile)


def _remade_at_throw(state: dict[str, Any], r: Rules) -> list[dict[str, Any]]:
    """The reshuffle_needed a throw onto an empty deck calls for (at_throw_after_deck_emptied):
    the older discards, and under pickable_and_throw the offer's cards that cannot be taken."""
    if state["deck"] or r.deck_runs_out != "reshuffle" or r.moment != "at_throw_after_deck_emptied":
        return []
    out = list(state["out_of_play"])
    if r.kept_aside == "pickable_and_throw":
        kept = turn.pickable(state["offer"], state["offer_kind"], r)
        out += list((Counter(state["offer"]) - Counter(kept)).elements())
    return [{"type": "reshuffle_needed", "cards": canonical(out)}]


def _multi_throwers(exp: Expect) -> set[int]:
    return turn.multi_throwers(exp.last_multi, exp.round, exp.turns, exp.rules)


def _takeable(state: dict[str, Any], exp: Expect, seat: int) -> list[str]:
    if not turn.offer_open(seat, _multi_throwers(exp), exp.rules):
        return []
    return turn.pickable(state["offer"], state["offer_kind"], exp.rules)


def _turn(game: Game, exp: Expect, rng: random.Random, style: Style) -> None:
    r = exp.rules
    state = game.state()
    seat = exp.to_act
    check("to_act", state["to_act"], seat)
    assert seat is not None
    check("turns_taken", state["turns_taken"], exp.turns)
    check("multi_throwers", state["multi_throwers"], sorted(_multi_throwers(exp)))
    check("pickable", state["pickable"], turn.pickable(state["offer"], state["offer_kind"], r))
    legal = game.legal_actions()
    assert legal is not None
    check("legal seat", legal.seat, seat)
    other = (seat + 1) % exp.seats
    refused(game, lambda: game.act(other, Call()), "not_your_turn", state)
    if _slapdown(game, exp, seat, state, legal.slapdown, rng, style):
        return
    timer_on = r.timer_seconds > 0
    if not timer_on:
        refused(game, lambda: game.act(seat, Timeout()), "timer_off", state)
    if state["phase"] == "call_or_throw":
        hand = state["hands"][seat]
        why = turn.call_refusal(
            r.hand_value(hand), exp.turns, exp.own_turns[seat], len(exp.active), r, exp.seats
        )
        if not hand:  # a slapdown emptied it: the seat must call, whatever the call rules
            check("legal of an emptied hand", (legal.call, legal.throws), (True, ()))
            _call(game, exp, seat, state)
            return
        check("legal call", legal.call, why is None)
        throws = turn.legal_throws(hand, r)
        check("legal throws", {tuple(str(c) for c in t) for t in legal.throws}, throws)
        if why is not None:
            refused(game, lambda: game.act(seat, Call()), why, state)
        _illegal_throw(game, seat, hand, throws, rng, state, r)
        if timer_on and rng.random() < style.timeout:
            _timeout(game, exp, seat, hand, state)
        elif why is None and rng.random() < style.call:
            _call(game, exp, seat, state)
        else:
            # The longer of two drawn throws: offers of several cards come often.
            one, two = rng.choice(sorted(throws)), rng.choice(sorted(throws))
            cards = list(one if len(one) >= len(two) else two)
            rng.shuffle(cards)
            if turn.placed_out_of_order(cards, r):
                shuffled = ThrowCards(tuple(parse_cards(cards)))
                refused(game, lambda: game.act(seat, shuffled), "illegal_throw", state)
                cards = turn.in_run_order(cards, r)
            events = game.act(seat, ThrowCards(tuple(parse_cards(cards))))
            check("thrown as laid", game.state()["thrown"], turn.laid(cards, r))
            check(
                "thrown",
                events,
                [
                    {
                        "type": "thrown",
                        "seat": seat,
                        "cards": turn.laid(cards, r),
                        "kind": turn.throw_kind(cards, r),
                    },
                    *_remade_at_throw(state, r),
                ],
            )
            if len(cards) >= 2:
                exp.last_multi[seat] = (exp.round, exp.turns)
        return
    refused(game, lambda: game.act(seat, Call()), "wrong_phase", state)  # a call, then a throw
    takeable = _takeable(state, exp, seat)
    check("legal picks", [str(c) for c in legal.pick_offer], list(dict.fromkeys(takeable)))
    for card in set(state["offer"]) - set(takeable):
        pick = PickOffer(parse_card(card))
        refused(game, lambda pick=pick: game.act(seat, pick), "pick_not_allowed", state)
    if not state["offer"]:
        # Only the first pick of a hand dealt with no card turned up has nothing on offer;
        # the card just thrown is not on offer either.
        check("no offer at this pick", (r.first_offer, exp.turns), ("none", 0))
        thrown = PickOffer(parse_card(state["thrown"][0]))
        refused(game, lambda: game.act(seat, thrown), "card_not_on_offer", state)
    if timer_on and rng.random() < style.timeout:
        _timeout(game, exp, seat, None, state)
        return
    if takeable and rng.random() > style.draw:
        card = rng.choice(takeable)
        events = game.act(seat, PickOffer(parse_card(card)))
        _after_pick(game, exp, state, events, card, from_deck=False)
    else:
        events = game.act(seat, PickDeck())
        card = state["deck"][0] if state["deck"] else None
        _after_pick(game, exp, state, events, card, from_deck=True)


def _slapdown(
    game: Game,
    exp: Expect,
    seat: int,
    state: dict[str, Any],
    shown: tuple[int, Any] | None,
    rng: random.Random,
    style: Style,
) -> bool:
    """Check the slapdown legal shows, refuse a wrong one, and make the one open now and
    then (True: it was made, and the seat to act has yet to act)."""
    check("legal slapdown", shown and (shown[0], str(shown[1])), exp.slapdown)
    hand = state["hands"][seat]
    if hand:  # the seat to act never just drew: its slapdown is refused
        card = parse_card(rng.choice(hand))
        refused(game, lambda: game.act(seat, SlapDown(card)), "slapdown_not_allowed", state)
    opened, exp.slapdown = exp.slapdown, None  # the seat to act acts next: it closes
    if opened is None or rng.random() >= style.slapdown:
        return False
    who, drawn = opened
    events = game.act(who, SlapDown(parse_card(drawn)))
    covered = canonical(state["offer"])
    check(
        "slapped down",
        events,
        [
            {"type": "slapped_down", "seat": who, "card": drawn},
            {"type": "out_of_play", "cards": covered},
        ],
    )
    after = game.state()
    check("offer after a slapdown", (after["offer"], after["offer_kind"]), ([drawn], "single"))
    kept = Counter(state["hands"][who]) - Counter([drawn])
    check("hand after a slapdown", after["hands"][who], canonical(list(kept.elements())))
    return True


def _illegal_throw(
    game: Game,
    seat: int,
    hand: list[str],
    throws: set[tuple[str, ...]],
    rng: random.Random,
    state: dict[str, Any],
    r: Rules,
) -> None:
    single = rng.choice(hand)
    if (single,) not in throws:  # throws.single when_no_combination: the hand holds a set or run
        throw = ThrowCards((parse_card(single),))
        refused(game, lambda: game.act(seat, throw), "illegal_throw", state)
    if len(hand) < 2:
        return
    cards = rng.sample(hand, rng.randint(2, len(hand)))
    # A legal throw's cards in another order are legal too, but a run under
    # throws.run.order ascending only lowest first.
    legal = {tuple(canonical(list(t))) for t in throws}
    if tuple(canonical(cards)) not in legal or turn.placed_out_of_order(cards, r):
        throw = ThrowCards(tuple(parse_cards(cards)))
        refused(game, lambda: game.act(seat, throw), "illegal_throw", state)


def _timeout(
    game: Game, exp: Expect, seat: int, hand: list[str] | None, state: dict[str, Any]
) -> None:
    r = exp.rules
    events = game.act(seat, Timeout())
    check("timed_out", events[0], {"type": "timed_out", "seat": seat})
    rest = events[1:]
    if hand is not None:
        card = turn.timeout_throw(hand, r)
        check(
            "the timeout's throw",
            rest[0],
            {"type": "thrown", "seat": seat, "cards": [card], "kind": "single"},
        )
        rest = rest[1:]
        remade = _remade_at_throw(state, r)
        if remade:
            check("a new deck at the timeout's throw", rest, remade)
            hands = [list(h) for h in state["hands"]]
            hands[seat].remove(card)
            exp.timeout_state = dict(state, hands=hands, thrown=[card])
            return
    if hand is not None:  # the state as it stood after the throw the timeout made
        hands = [list(h) for h in state["hands"]]
        hands[seat].remove(card)
        state = dict(state, hands=hands, thrown=[card])
    take = turn.timeout_take(_takeable(state, exp, seat), r)
    if take is not None:
        check(
            "the timeout's pick",
            rest[0],
            {"type": "picked", "seat": seat, "from": "offer", "card": take},
        )
        _after_pick(game, exp, state, rest, take, from_deck=False)
    else:
        _after_pick(
            game, exp, state, rest, state["deck"][0] if state["deck"] else None, from_deck=True
        )


def _after_pick(
    game: Game,
    exp: Expect,
    before: dict[str, Any],
    events: list[dict[str, Any]],
    card: str | None,
    *,
    from_deck: bool,
    remade: list[str] | None = None,
) -> None:
    """Check the events of a pick (or a draw that found the deck empty)."""
    r = exp.rules
    seat = exp.to_act
    assert seat is not None
    ends = r.deck_runs_out in ("round_ends_no_score", "round_ends_hands_score")
    if from_deck and card is None and ends:
        # deck_runs_out_when draw_finds_deck_empty: a draw from the empty deck ends the hand,
        # the drawing seat holding what it kept after its throw.
        values = {s: r.hand_value(before["hands"][s]) for s in exp.active}
        _round_ended(
            game, exp, events, None, None, results.deck_ran_out(values, r), values, "deck_ran_out"
        )
        return
    if from_deck and card is None:  # the draw finds the deck empty: it waits for a new deck
        offer = list(before["offer"])
        out = list(before["out_of_play"])
        if r.kept_aside == "pickable_and_throw":
            kept = turn.pickable(offer, before["offer_kind"], r)
            left = Counter(offer) - Counter(kept)
            out += list(left.elements())
        check(
            "draw on an empty deck", events, [{"type": "reshuffle_needed", "cards": canonical(out)}]
        )
        return
    check(
        "picked",
        events[0],
        {"type": "picked", "seat": seat, "from": "deck" if from_deck else "offer", "card": card},
    )
    offer = list(before["offer"])
    if not from_deck:
        offer.remove(card)
    deck_left = len(before["deck"]) - (1 if from_deck and remade is None else 0)
    if remade is not None:
        deck_left = len(remade) - 1
    held_back: list[str] = []
    if (
        from_deck
        and deck_left == 0
        and r.deck_runs_out == "reshuffle"
        and r.moment == "when_deck_emptied"
        and r.kept_aside in ("pickable_and_throw", "offer_and_card_under")
    ):
        # The previous throw's takeable cards (offer_and_card_under: its top card, under the
        # throw just made) are held back from the deck made at once, unless the new deck
        # would then have no card.
        if r.kept_aside == "offer_and_card_under":
            held_back = before["offer"][-1:]  # none at a hand's first pick with no offer
        else:
            held_back = turn.pickable(before["offer"], before["offer_kind"], r)
        if not before["out_of_play"] and len(held_back) == len(offer):
            held_back = []
        offer = list((Counter(offer) - Counter(held_back)).elements())
    tail = events[1:]
    if r.deck_runs_out == "offer_under_deck":
        # The untaken cards go under the deck as placed, the first placed nearest the top;
        # nothing goes out of play and the deck never runs out.
        if offer:
            check("under_deck", tail[0], {"type": "under_deck", "cards": offer})
            tail = tail[1:]
        drawn = 1 if from_deck else 0
        check("deck after a pick", game.state()["deck"], [*before["deck"][drawn:], *offer])
        deck_left = len(before["deck"]) - drawn + len(offer)
    elif offer:
        check("out_of_play", tail[0], {"type": "out_of_play", "cards": canonical(offer)})
        tail = tail[1:]
    exp.turns += 1
    exp.own_turns[seat] += 1
    exp.to_act = results.next_turn(seat, exp.active, exp.seats)
    state = game.state()
    if held_back:
        check("held back on offer", state["offer"], held_back)
        check("the throw waits beside it", state["thrown"], before["thrown"])
    else:
        check("offer after a pick", state["offer"], before["thrown"])
    waits = r.deck_runs_out == "reshuffle" and r.moment != "when_deck_emptied"
    if deck_left > 0 or waits or (ends and r.deck_runs_out_when == "draw_finds_deck_empty"):
        check("events after a pick", tail, [])
        thrown = before["thrown"]
        if (
            from_deck
            and r.slapdown == "same_rank_as_single"
            and len(thrown) == 1
            and rank(str(card)) == rank(thrown[0])
        ):
            exp.slapdown = (seat, str(card))
        return
    if r.deck_runs_out != "reshuffle":
        # The hands before the round ended (a seat put out by it shows [] afterwards).
        held = {s: list(before["hands"][s]) for s in exp.active}
        held[seat].append(str(card))
        values = {s: r.hand_value(held[s]) for s in exp.active}
        _round_ended(
            game, exp, tail, None, None, results.deck_ran_out(values, r), values, "deck_ran_out"
        )
        return
    check("reshuffle_needed", tail, [{"type": "reshuffle_needed", "cards": state["out_of_play"]}])


def _call(game: Game, exp: Expect, seat: int, state: dict[str, Any]) -> None:
    r = exp.rules
    values = {s: r.hand_value(state["hands"][s]) for s in exp.active}
    after = [s for s in sorted(exp.active, key=lambda s: (s - seat) % exp.seats) if s != seat]
    show = results.showdown(values, after, seat, r)
    events = game.act(seat, Call())
    check("called", events[0], {"type": "called", "seat": seat, "value": values[seat]})
    _round_ended(game, exp, events[1:], seat, show.winner, dict(show.deltas), values, show.outcome)


def _round_ended(
    game: Game,
    exp: Expect,
    events: list[dict[str, Any]],
    caller: int | None,
    winner: int | None,
    deltas: dict[int, int],
    values: dict[int, int],
    outcome: str,
) -> None:
    r = exp.rules
    for s, delta in deltas.items():
        exp.scores[s] += delta
        if delta:
            # Its cards counted: they are worth points, and it is not a beaten caller paying
            # the fixed penalty in place of its hand.
            penalty_alone = outcome == "beaten_call" and s == caller
            penalty_alone = penalty_alone and r.beaten_call == "penalty_only"
            cards_counted = values.get(s, 0) > 0 and not penalty_alone
            exp.scores[s] = results.after_cuts(exp.scores[s], r, cards_counted)
    out = results.eliminated(exp.scores, exp.active, r)
    check(
        "round_ended",
        events[0],
        {
            "type": "round_ended",
            "round": exp.round,
            "outcome": outcome,
            "caller": caller,
            "winner": winner,
            "hand_values": [values.get(s) for s in range(exp.seats)],
            "deltas": [deltas.get(s, 0) for s in range(exp.seats)],
            "scores": exp.scores,
            "eliminated": out,
        },
    )
    after = [s for s in exp.active if s not in out]
    exp.starter = results.next_starter(exp.starter, caller, winner, out, after, exp.seats, r)
    exp.active = after
    for s in out:
        exp.out_round[s] = exp.round
    exp.to_act = None
    if results.game_over(exp.round, exp.scores, exp.active, r):
        _game_ended(events[1:], exp)
    else:
        check("events after round_ended", events[1:], [])


def _game_ended(events: list[dict[str, Any]], exp: Expect) -> None:
    r = exp.rules
    winners = results.winners(exp.scores, exp.active, r)
    standings = results.standings(exp.scores, exp.out_round, r)
    paid = None
    if r.rate is not None and r.settlement is not None:
        paid = [
            {"from": a, "to": b, "points": p, "dollars": d}
            for a, b, p, d in results.settlement(exp.scores, r.rate, r.settlement)
        ]
    check(
        "game_ended",
        events,
        [
            {
                "type": "game_ended",
                "winners": winners,
                "standings": standings,
                "scores": exp.scores,
                "eliminated": list(exp.out_round),
                "settlement": paid,
            }
        ],
    )
    check("winners first in the standings", standings[: len(winners)], winners)


def _equal_hands(game: Game, x: int, y: int) -> None:
    """Give seat ``y`` the ranks of seat ``x``'s hand, from its own cards and the deck (no
    card twice), so that equal hands and the tie-break among them come up often."""
    pool = game.hands[y] + game.deck
    matched = []
    for card in game.hands[x]:
        found = next((c for c in pool if c.rank == card.rank), None)
        if found is None:
            return
        pool.remove(found)
        matched.append(found)
    game.hands[y] = matched
    game.deck = pool  # as long as before: y gave up as many cards as it took


def showdown_checked(table: Table) -> None:
    """One call from a drawn deal, with totals drawn near the profile's cut points, halving
    multiples and threshold, so that each of those rules comes into play; then the game's end
    where the hand ends it (fixed rounds, elimination) or the host ends it."""
    doc, rng = table.profile, table.rng()
    game = Game(doc, table.seats, table.options)
    values_of = {o["name"]: table.options.get(o["name"], o["default"]) for o in doc["options"]}
    r = Rules.of(resolved_rules(doc, values_of))
    exp = Expect(r, table.seats, values_of, [0] * table.seats, list(range(table.seats)))
    deck = r.deck(table.seats)
    rng.shuffle(deck)
    game.deal(parse_cards(deck))
    exp.starter = r.first_starter % table.seats
    if r.rounds:
        game.round = exp.round = rng.randint(1, r.rounds)
    else:
        exp.round = 1
    caller = rng.choice(exp.active)
    after = [s for s in sorted(exp.active, key=lambda s: (s - caller) % exp.seats) if s != caller]
    level = rng.random()
    if len(after) >= 2 and level < 0.4:
        # Two others level at the lowest hand, so that the rule among equal lowest decides.
        low = min(after, key=lambda s: r.hand_value([str(c) for c in game.hands[s]]))
        _equal_hands(game, low, rng.choice([s for s in after if s != low]))
    elif after and level < 0.7:
        # The caller level with the lowest other hand, so that the tie rule decides.
        low = min(after, key=lambda s: r.hand_value([str(c) for c in game.hands[s]]))
        _equal_hands(game, low, caller)
    hands = game.state()["hands"]
    values = {s: r.hand_value(hands[s]) for s in exp.active}
    show = results.showdown(values, after, caller, r)
    scores = []
    for s in range(table.seats):
        delta = show.deltas[s]
        marks = [at for at, _ in r.cuts] + ([r.halve_at * rng.randint(1, 3)] if r.halve_at else [])
        marks += [r.drop_at * rng.randint(1, 3)] if r.drop_at else []
        if r.out_above is not None:
            marks += [r.out_above, r.out_above + 1]
        choice = rng.choice([*marks, None]) if marks else None
        scores.append(choice - delta if choice is not None else rng.randint(-40, 120))
    if r.kind == "transfer":
        scores[-1] -= sum(scores)
    else:
        scores = [max(0, v) for v in scores]
    game.scores = list(scores)
    exp.scores = list(scores)
    events = game._end_round(caller)
    _round_ended(game, exp, events, caller, show.winner, dict(show.deltas), values, show.outcome)
    if r.end == "host_ends":
        _game_ended(game.end_game(), exp)
