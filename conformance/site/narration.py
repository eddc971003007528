"""Narrating a transcript as a hand: a light replay that tells who holds what."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jhyap_core import table as core
from jhyap_core.profile import resolve
from jhyap_core.vocabulary import PickSource

from ..spec.json_types import Json
from ..spec.steps import Step, Transcript
from .common import (
    CARD_NAME_RE,
    RANK_ORDER,
    SUIT_ORDER,
    SiteData,
    card_text,
    cards_text,
    inline_text,
    is_card_list,
    md_safe,
    rule_defaults,
    scalar_text,
    value_words,
)

# -- narrating a transcript ---------------------------------------------------------------------


def _played(rules: Mapping[str, Json], path: str) -> Json:
    """The value ``rules`` play at dotted ``path``: its own, else the schema's default."""
    node: Json = rules
    for key in path.split("."):
        if not isinstance(node, Mapping) or key not in node:
            return rule_defaults().get(path)
        node = node[key]
    return node


def _value(card: str, rules: Mapping[str, Json]) -> int:
    values = rules.get("card_values") or {}
    return int(values.get(card[0], values.get(str(card[0]), 0))) if card else 0


def hand_value(cards: Iterable[str], rules: Mapping[str, Json]) -> int:
    held = list(cards)
    values = rules.get("card_values") or {}
    # A hand of jokers only is worth card_values.only_jokers for each, where a profile sets it.
    each = values.get("only_jokers") if isinstance(values, Mapping) else None
    if isinstance(each, int) and held and all(c == "X" for c in held):
        return each * len(held)
    return sum(_value(c, rules) for c in held)


def throw_kind(cards: Sequence[str]) -> str:
    if len(cards) == 1:
        return "single"
    if len({c[:1] for c in cards}) == 1:
        return "set"
    if len({c[1:] for c in cards}) == 1:
        return "run"
    return "throw"


def _canonical(cards: Iterable[str]) -> list[str]:
    def key(card: str) -> tuple[int, int]:
        if not CARD_NAME_RE.match(card):
            return (99, 99)
        return (RANK_ORDER.index(card[0]), SUIT_ORDER.index(card[1]))

    return sorted(cards, key=key)


@dataclass
class _Table:
    """A light replay of a transcript, enough to tell who holds what. Never authoritative:
    when a step does not fit, the replay stops knowing (``known`` False) and the narration
    says only what the transcript itself says."""

    seats: int
    rules: Mapping[str, Json]
    known: bool = True
    round: int = 0
    in_hand: bool = False
    starter: int | None = None
    to_act: int | None = None
    hands: dict[int, list[str]] = field(default_factory=dict)
    deck: list[str] = field(default_factory=list)
    offer: list[str] = field(default_factory=list)
    thrown: list[str] | None = None
    out_of_play: list[str] = field(default_factory=list)
    active: list[int] = field(default_factory=list)
    scores: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.active = list(range(self.seats))
        self.scores = dict.fromkeys(range(self.seats), 0)
        start = (self.rules.get("deal") or {}).get("first_starter", 0)
        self.starter = int(start) if isinstance(start, int) else 0

    def next_active(self, seat: int) -> int:
        """The table procedure's next seat in play (jhyap_core.table.next_active)."""
        return core.next_active(self.seats, self.active, seat)


def _expected(step: Step, kind: str) -> list[Mapping[str, Json]]:
    return [e for e in step.expect.events or () if e.get("type") == kind]


def _turns_up(rules: Mapping[str, Json]) -> bool:
    """Whether a deal under ``rules`` turns a card up (deal.first_offer is not none)."""
    deal = rules.get("deal")
    return not isinstance(deal, Mapping) or deal.get("first_offer") != "none"


def _deal(table: _Table, step: Step) -> tuple[dict[int, list[str]], str | None, int | None]:
    """Apply an accepted deal; return (hands, turned-up card, starter) where known."""
    assert step.request is not None
    spec = step.request
    order = list(spec.get("deck") or [])
    started = _expected(step, "round_started")
    starter: int | None = step.starter
    if starter is None and started and isinstance(started[0].get("starter"), int):
        starter = int(started[0]["starter"])
    if starter is None:
        starter = table.starter
    dealt = _expected(step, "dealt")
    hands: dict[int, list[str]] = {}
    turned_up: str | None = None
    hand_size = int(table.rules.get("hand_size") or 5)
    if starter is not None and table.known and len(order) == 52:
        turn = core.turn_order_from(table.seats, table.active, starter)
        turn_up = _turns_up(table.rules)
        hands, turned_up, table.deck = core.dealt_from(order, turn, hand_size, turn_up)
    if dealt and isinstance(dealt[0].get("hands"), list):
        hands = {i: list(h) for i, h in enumerate(dealt[0]["hands"]) if h}
        turned_up = dealt[0].get("turned_up", turned_up)
    table.round += 1
    table.in_hand = True
    table.starter = starter
    table.to_act = starter
    table.hands = {s: _canonical(h) for s, h in hands.items()}
    table.offer = [turned_up] if turned_up else []
    table.thrown = None
    table.out_of_play = []
    if not hands:
        table.known = False
    return table.hands, turned_up, starter


def _after_pick(table: _Table, card: str | None) -> None:
    table.out_of_play += [c for c in table.offer if c != card]
    table.offer = list(table.thrown or [])
    table.thrown = None
    if table.to_act is not None:
        table.to_act = table.next_active(table.to_act)


def _showdown(table: _Table, caller: int) -> tuple[dict[int, int], int]:
    values = {s: hand_value(table.hands.get(s, []), table.rules) for s in table.active}
    lowest = min(v for s, v in values.items() if s != caller) if len(values) > 1 else 10**9
    if values[caller] < lowest:
        return values, caller
    order = [(caller + i) % table.seats for i in range(1, table.seats)]
    winner = next(s for s in order if s in values and values[s] == lowest)
    return values, winner


def _end_round(table: _Table, caller: int, step: Step) -> None:
    table.in_hand = False
    values, winner = _showdown(table, caller)
    rules = table.rules
    scoring = rules.get("scoring") or {}
    if scoring.get("kind") == "penalty":
        if winner == caller:
            for seat, value in values.items():
                if seat != caller:
                    table.scores[seat] += value
        else:
            table.scores[caller] += values[caller] + int(scoring.get("beaten_penalty") or 0)
    ended = _expected(step, "round_ended")
    out_above = (rules.get("game_end") or {}).get("out_above")
    if ended and isinstance(ended[0].get("eliminated"), list):
        gone = [int(s) for s in ended[0]["eliminated"]]
    elif (rules.get("game_end") or {}).get("kind") == "elimination" and out_above is not None:
        gone = [s for s in table.active if table.scores[s] > int(out_above)]
    else:
        gone = []
    if table.starter is not None:
        # The table procedure's rule (jhyap_core.table.next_starter), then the seats out.
        rule = str(_played(rules, "next_starter"))
        first = _played(rules, "deal.first_starter")
        table.starter = core.next_starter(
            rule,
            table.seats,
            table.active,
            table.starter,
            caller,
            winner,
            gone,
            int(first) if isinstance(first, int) else 0,
        )
    table.active = [s for s in table.active if s not in gone]
    if table.starter is not None and table.starter not in table.active and table.active:
        table.starter = table.next_active(table.starter)
    table.to_act = None


def _timeout_card(hand: Sequence[str], rules: Mapping[str, Json]) -> str | None:
    if not hand:
        return None
    return max(
        hand, key=lambda c: (_value(c, rules), RANK_ORDER.index(c[0]), SUIT_ORDER.index(c[1]))
    )


def _seat_list(value: Json) -> str:
    if isinstance(value, list):
        return ", ".join(f"seat {s}" for s in value) if value else "nobody"
    return f"seat {value}"


def per_seat_text(value: Json, fmt: Any = None) -> str:
    """A per-seat value (a list for every seat, or a mapping seat → value) in words."""
    show = fmt or (lambda v: cards_text(v) if is_card_list(v) or v == [] else scalar_text(v))
    if isinstance(value, list):
        return "; ".join(f"seat {i} {show(v)}" for i, v in enumerate(value))
    if isinstance(value, Mapping):
        return "; ".join(f"seat {k} {show(v)}" for k, v in value.items())
    return scalar_text(value)


def signed_text(value: Json) -> str:
    return (
        f"{value:+d}"
        if isinstance(value, int) and not isinstance(value, bool)
        else scalar_text(value)
    )


def _settlement(value: Json) -> str:
    if not isinstance(value, list):
        return scalar_text(value)
    if not value:
        return "nobody pays anybody"
    parts = []
    for pay in value:
        text = f"seat {pay.get('from')} pays seat {pay.get('to')} {pay.get('points')} points"
        if pay.get("dollars") is not None:
            text += f" (${pay['dollars']})"
        parts.append(text)
    return "; ".join(parts)


def event_words(event: Mapping[str, Json]) -> str:
    """An expected event in words; only the fields the transcript names."""
    kind = event.get("type")
    rest = {k: v for k, v in event.items() if k != "type"}
    said: list[str] = []

    def take(key: str) -> Json:
        return rest.pop(key, None)

    if kind == "round_started":
        text = f"round {take('round') or ''} starts".replace("  ", " ")
        if "dealer" in rest:
            dealer = take("dealer")
            said.append("no dealer" if dealer is None else f"seat {dealer} deals")
        if "starter" in rest:
            said.append(f"seat {take('starter')} starts")
        if "turn_order" in rest:
            said.append("turn order " + " → ".join(str(s) for s in take("turn_order") or []))
    elif kind == "dealt":
        text = "the cards are dealt"
        if "hands" in rest:
            said.append(per_seat_text(take("hands"), lambda v: cards_text(v) if v else "(out)"))
        if "turned_up" in rest:
            turned = take("turned_up")
            said.append(f"{card_text(turned)} is turned up" if turned else "no card is turned up")
        if "deck_size" in rest:
            said.append(f"{take('deck_size')} cards left in the deck")
    elif kind == "called":
        text = f"seat {take('seat')} calls"
        if "value" in rest:
            said.append(f"holding {take('value')} points")
    elif kind == "thrown":
        seat = take("seat")
        cards = take("cards")
        what = take("kind") or (throw_kind(cards) if isinstance(cards, list) and cards else "")
        text = (
            f"seat {seat} throws"
            + (f" the {what}" if what else "")
            + (f" {cards_text(cards)}" if isinstance(cards, list) else "")
        )
    elif kind == "picked":
        seat, source, card = take("seat"), take("from"), take("card")
        text = (
            f"seat {seat} picks"
            + (f" {card_text(card)}" if card else "")
            + (f" from the {source}" if source else "")
        )
    elif kind == "out_of_play":
        cards = take("cards") or []
        text = f"{cards_text(cards)} {'goes' if len(cards) == 1 else 'go'} out of play"
    elif kind == "under_deck":
        cards = take("cards") or []
        text = f"{cards_text(cards)} {'goes' if len(cards) == 1 else 'go'} under the deck"
    elif kind == "reshuffle_needed":
        text = f"the deck is empty; {cards_text(take('cards') or [])} are to be reshuffled"
    elif kind == "reshuffled":
        text = f"the new deck holds {take('deck_size')} cards"
    elif kind == "timed_out":
        text = f"seat {take('seat')}'s time runs out"
    elif kind == "slapped_down":
        seat, card = take("seat"), take("card")
        text = f"seat {seat} slaps down" + (f" {card_text(card)}" if card else "")
    elif kind == "round_ended":
        text = f"round {take('round') or ''} ends".replace("  ", " ")
        outcome = take("outcome")
        if outcome:
            said.append(
                {"won_call": "the call wins", "beaten_call": "the call is beaten"}.get(
                    str(outcome), str(outcome)
                )
            )
        if "caller" in rest:
            said.append(f"caller seat {take('caller')}")
        if "winner" in rest:
            said.append(f"winner seat {take('winner')}")
        if "hand_values" in rest:
            said.append("hands worth: " + per_seat_text(take("hand_values")))
        if "deltas" in rest:
            said.append("score changes: " + per_seat_text(take("deltas"), signed_text))
        if "scores" in rest:
            said.append("scores: " + per_seat_text(take("scores")))
        if "eliminated" in rest:
            said.append("out: " + _seat_list(take("eliminated")))
    elif kind == "game_ended":
        text = "the game ends"
        if "winners" in rest:
            said.append("won by " + _seat_list(take("winners")))
        if "standings" in rest:
            said.append("standings " + ", ".join(str(s) for s in take("standings") or []))
        if "scores" in rest:
            said.append("scores: " + per_seat_text(take("scores")))
        if "eliminated" in rest:
            said.append("went out: " + _seat_list(take("eliminated")))
        if "settlement" in rest:
            said.append("settlement: " + _settlement(take("settlement")))
    elif kind == "option_changed":
        text = f"option `{take('name')}` is now `{scalar_text(take('value'))}`"
    else:
        text = str(kind)
    said += [f"{k} {scalar_text(v)}" for k, v in rest.items()]
    return text + (f" ({'; '.join(said)})" if said else "")


_CHECK_WORDS: dict[str, str] = {
    "phase": "the phase is `{}`",
    "round": "{} hands have been dealt",
    "seats": "{} seats",
    "dealer": "the dealer is seat {}",
    "starter": "seat {} starts the hand",
    "offer_kind": "the offer is a {}",
    "deck_size": "the deck holds {} cards",
    "turns_taken": "{} turns have been completed this hand",
}


def check_words(check: Mapping[str, Json]) -> str:
    """A state check in words."""
    parts: list[str] = []
    for key, value in check.items():
        if key == "to_act":
            parts.append("no seat is to act" if value is None else f"seat {value} is to act")
        elif key in ("dealer", "starter") and value is None:
            parts.append(f"there is no {key}")
        elif key == "offer_kind" and value is None:
            parts.append("nothing has been thrown or turned up yet")
        elif key in _CHECK_WORDS:
            parts.append(_CHECK_WORDS[key].format(scalar_text(value)))
        elif key == "offer":
            parts.append(f"the offer is {cards_text(value or [])}")
        elif key == "pickable":
            parts.append(
                f"the cards that may be picked from it are {cards_text(value)}"
                if value
                else "no card of the offer may be picked"
            )
        elif key == "thrown":
            parts.append(f"the cards just thrown are {cards_text(value or [])}")
        elif key == "deck":
            parts.append(f"the deck from the top is {cards_text(value or [])}")
        elif key == "out_of_play":
            parts.append(f"out of play: {cards_text(value or [])}")
        elif key == "hands":
            parts.append("hands: " + per_seat_text(value, lambda v: cards_text(v or [])))
        elif key == "hand_values":
            parts.append("hands worth: " + per_seat_text(value))
        elif key == "scores":
            parts.append("scores: " + per_seat_text(value))
        elif key in ("active", "eliminated", "multi_throwers"):
            label = {
                "active": "still in",
                "eliminated": "out",
                "multi_throwers": "have thrown several cards at once",
            }[key]
            parts.append(f"{label}: {_seat_list(value)}")
        elif key == "options":
            parts.append(
                "options: "
                + ", ".join(f"`{k}` = `{scalar_text(v)}`" for k, v in (value or {}).items())
            )
        elif key == "settlement":
            parts.append("settlement: " + _settlement(value))
        elif key in ("last_round", "result") and isinstance(value, Mapping):
            label = "the last round" if key == "last_round" else "the game result"
            parts.append(
                f"{label} has "
                + "; ".join(
                    f"{k} {per_seat_text(v) if isinstance(v, (list, dict)) else scalar_text(v)}"
                    for k, v in value.items()
                )
            )
        else:
            parts.append(f"`{key}` is `{scalar_text(value)}`")
    return "; ".join(parts)


@dataclass(frozen=True)
class NarratedStep:
    """One transcript step in words."""

    index: int
    text: str  # Markdown
    details: tuple[str, ...] = ()
    refused: str | None = None
    deal: tuple[tuple[int, tuple[str, ...], int], ...] = ()  # (seat, cards, value) after a deal


def narrate(transcript: Transcript, rules: Mapping[str, Json]) -> list[NarratedStep]:
    """Every step of ``transcript`` in words, replaying the hand under ``rules``."""
    table = _Table(transcript.seats, rules)
    narrated: list[NarratedStep] = []
    for step in transcript.steps:
        try:
            narrated.append(_narrate_step(table, step, rules))
        except (KeyError, IndexError, ValueError, TypeError, AssertionError, StopIteration):
            table.known = False
            narrated.append(NarratedStep(step.index, f"`{md_safe(step.describe())}`"))
    return narrated


def _narrate_step(table: _Table, step: Step, rules: Mapping[str, Json]) -> NarratedStep:
    error = step.expect.error
    details = tuple("expected: " + event_words(e) for e in step.expect.events or ())
    refused = f": refused (`{error}`)" if error else ""
    request = step.request or {}
    if step.kind == "check":
        return NarratedStep(step.index, "Check: " + check_words(step.check or {}), details)
    if step.kind == "deal":
        if error:
            return NarratedStep(step.index, f"The harness tries to deal{refused}", details, error)
        hands, turned_up, starter = _deal(table, step)
        text = f"Deal, hand {table.round}"
        if starter is not None:
            text += f": seat {starter} starts"
        if turned_up:
            text += f", {card_text(turned_up)} is turned up"
        elif not _turns_up(rules):
            text += ", no card is turned up: the first player draws from the deck"
        if table.known and table.deck:
            text += f", the deck's top card is {card_text(table.deck[0])}"
        rows = tuple((s, tuple(h), hand_value(h, rules)) for s, h in sorted(hands.items()))
        return NarratedStep(step.index, text, details, None, rows)
    if step.kind == "act":
        return _narrate_act(table, step, rules, details)
    if step.kind == "reshuffle":
        order = list(request.get("order") or [])
        if error:
            return NarratedStep(
                step.index,
                f"The harness tries to reshuffle into {cards_text(order)}{refused}",
                details,
                error,
            )
        table.deck = order
        table.out_of_play = []
        made_of = value_words("reshuffle.new_deck", _played(rules, "reshuffle.new_deck"))
        return NarratedStep(
            step.index,
            f"The new deck is made of {made_of}, from the top: {cards_text(order)}",
            details,
        )
    if step.kind == "set_option":
        text = f"The host sets `{request.get('name')}` to `{scalar_text(request.get('value'))}`"
        return NarratedStep(step.index, text + refused, details, error)
    if step.kind == "end_game":
        return NarratedStep(
            step.index,
            ("The host tries to end the table" + refused) if error else "The host ends the table",
            details,
            error,
        )
    if step.kind == "raw":
        text = f"The harness sends the line `{md_safe(step.describe()[:200])}`"
        return NarratedStep(step.index, text + refused, details, error)
    return NarratedStep(step.index, f"`{md_safe(step.describe())}`{refused}", details, error)


def _narrate_act(
    table: _Table, step: Step, rules: Mapping[str, Json], details: tuple[str, ...]
) -> NarratedStep:
    assert step.request is not None
    seat = step.request.get("seat")
    action = step.request.get("action") or {}
    kind = action.get("type")
    error = step.expect.error
    who = f"Seat {seat}"
    if kind == "call":
        if error:
            return NarratedStep(
                step.index, f"{who} tries to call Jhyap: refused (`{error}`)", details, error
            )
        text = f"{who} calls Jhyap"
        if table.known and isinstance(seat, int) and seat in table.hands:
            if not any("value" in e for e in _expected(step, "called")):
                text += f" holding {hand_value(table.hands[seat], rules)} points"
            _end_round(table, seat, step)
        else:
            table.in_hand = False
        return NarratedStep(step.index, text, details)
    if kind == "throw":
        cards = list(action.get("cards") or [])
        what = throw_kind(cards)
        shown = f"the {what} {cards_text(cards)}" if what != "throw" else cards_text(cards)
        if error:
            return NarratedStep(
                step.index, f"{who} tries to throw {shown}: refused (`{error}`)", details, error
            )
        if table.known and isinstance(seat, int):
            hand = table.hands.get(seat, [])
            if all(c in hand for c in cards):
                table.hands[seat] = [c for c in hand if c not in cards]
            else:
                table.known = False
        table.thrown = cards
        return NarratedStep(step.index, f"{who} throws {shown}", details)
    if kind == "pick":
        from_deck = action.get("from") == PickSource.DECK
        card = None if from_deck else action.get("card")
        if error:
            what = "from the deck" if from_deck else f"{card_text(str(card))} from the offer"
            return NarratedStep(
                step.index, f"{who} tries to pick {what}: refused (`{error}`)", details, error
            )
        if from_deck:
            drawn = table.deck.pop(0) if table.known and table.deck else None
            text = f"{who} picks from the deck" + (f" ({card_text(drawn)})" if drawn else "")
            card = drawn
        else:
            text = f"{who} picks {card_text(str(card))} from the offer"
        if card and isinstance(seat, int) and seat in table.hands:
            table.hands[seat] = _canonical([*table.hands[seat], card])
        elif from_deck:
            table.known = False
        _after_pick(table, card)
        return NarratedStep(step.index, text, details)
    if kind == "timeout":
        if error:
            return NarratedStep(
                step.index, f"{who}'s turn timer runs out: refused (`{error}`)", details, error
            )
        text = f"{who}'s turn timer runs out"
        # What then happens is the profile's turn_timer.on_expiry: only the one known is told.
        expiry = _played(rules, "turn_timer.on_expiry")
        if expiry != "throw_highest_single_then_draw":
            table.known = False
        if table.known and isinstance(seat, int) and seat in table.hands:
            if table.thrown is None:
                single = _timeout_card(table.hands[seat], rules)
                if single:
                    table.hands[seat].remove(single)
                    table.thrown = [single]
                    text += f": {card_text(single)} is thrown for them"
            drawn = table.deck.pop(0) if table.deck else None
            if drawn:
                table.hands[seat] = _canonical([*table.hands[seat], drawn])
                text += f" and they draw {card_text(drawn)}"
            _after_pick(table, drawn)
        return NarratedStep(step.index, text, details)
    if kind == "slapdown":
        card = action.get("card")
        if error:
            return NarratedStep(
                step.index,
                f"{who} slaps down {card_text(str(card))}: refused (`{error}`)",
                details,
                error,
            )
        if isinstance(seat, int) and card in table.hands.get(seat, []):
            table.hands[seat].remove(str(card))
            table.out_of_play += table.offer
            table.offer = [str(card)]
        else:
            table.known = False
        text = f"{who} slaps down {card_text(str(card))}, just drawn, onto their single"
        return NarratedStep(step.index, text, details)
    return NarratedStep(step.index, f"`{md_safe(step.describe())}`", details, error)


def _rules_for(transcript: Transcript, site: SiteData) -> Mapping[str, Json]:
    for pid in site.profiles_of(transcript):
        try:
            return dict(resolve(site.profiles[pid], transcript.options)["rules"])
        except Exception:  # a profile the options do not fit: try the next one
            continue
    for pid in transcript.profiles:
        if pid in site.profiles:
            return dict(site.profiles[pid].get("rules") or {})
    return {}


def _deal_table(rows: Sequence[tuple[int, tuple[str, ...], int]]) -> list[str]:
    out = ["| seat | cards | points |", "|---|---|---|"]
    out += [f"| {seat} | {cards_text(cards)} | {value} |" for seat, cards, value in rows]
    return [*out, ""]


def narrated_hand(
    page: str, transcript: Transcript, site: SiteData, heading_level: int = 2
) -> list[str]:
    """The hand in words: who held what after the first deal, then every step."""
    rules = _rules_for(transcript, site)
    steps = narrate(transcript, rules)
    raw_steps = list(transcript.raw.get("steps") or [])
    notes = {
        i: str(s.get("note"))
        for i, s in enumerate(raw_steps)
        if isinstance(s, Mapping) and s.get("note")
    }
    h = "#" * heading_level
    lines = {s.index: s.line for s in transcript.steps}
    out: list[str] = []
    first_deal = next((s for s in steps if s.deal), None)
    if first_deal is not None:
        out += [f"{h} After the deal", "", first_deal.text + ".", ""]
        out += _deal_table(first_deal.deal)
    out += [f"{h} Play", ""]
    for number, step in enumerate(steps, 1):
        marker = "✗ " if step.refused else ""
        at = lines.get(step.index)
        where = f' <span class="jc-lines">line {at}</span>' if at else ""
        out.append(f"{number}. {marker}{step.text}.{where}")
        extra = list(step.details)
        if step.index in notes:
            extra.insert(0, f"*{inline_text(notes[step.index])}*")
        if step.deal and step is not first_deal:
            extra += [f"seat {s}: {cards_text(c)} ({v} points)" for s, c, v in step.deal]
        for line in extra:
            out.append(f"    - {line}")
    return [*out, ""]
