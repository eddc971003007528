"""Narrating a transcript as a hand, as the reference engine plays it.

The transcript is replayed through the reference engine in this process: who holds what,
what each hand is worth, the cards drawn, who starts and who is out are the reference's
answers and states, so the narration has no rules of its own to keep in step with the
reference's card values, scoring or table procedure (``jhyap_core.table``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jhyap_core.profile import resolve
from jhyap_core.vocabulary import ActionType, Command, EventType, PickSource

from ..harness.ahead import start_message
from ..harness.client import EngineTimeout
from ..harness.inprocess import ReferenceClient
from ..spec.json_types import Json
from ..spec.readings import with_alternatives
from ..spec.steps import Step, Transcript, raw_line
from ..spec.transcript_profiles import profiles_for
from .common import (
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


def throw_kind(cards: Sequence[str]) -> str:
    """The shape of ``cards`` in words, for a throw the reference did not accept or an event
    that names no kind (an accepted throw is named by the reference's own kind)."""
    if len(cards) == 1:
        return "single"
    if len({c[:1] for c in cards}) == 1:
        return "set"
    if len({c[1:] for c in cards}) == 1:
        return "run"
    return "throw"


@dataclass(frozen=True)
class _Played:
    """A step as the reference engine played it: its events, and after a deal its state
    (asked only there: the state after every step cost most of a page's narration)."""

    events: tuple[Mapping[str, Any], ...]
    after: Mapping[str, Any] | None = None

    def of(self, kind: str) -> list[Mapping[str, Any]]:
        return [e for e in self.events if e.get("type") == kind]


class _Replay:
    """The reference engine playing the transcript in this process: hands, hand values, the
    cards drawn, who starts and who is out are the reference's own (its card values, its
    scoring, the table procedure), never worked out here. When the reference answers a step
    otherwise than the transcript says (accepted where refused, or the other way), it is no
    longer followed (``known`` False) and the narration says only what the transcript says."""

    def __init__(self, transcript: Transcript, resolved: Mapping[str, Json] | None) -> None:
        self.transcript = transcript
        self.resolved = resolved
        self.client = ReferenceClient()
        self.known = resolved is not None and transcript.start_error is None
        if self.known:
            self.client.handshake()
            if not transcript.fresh_engine:
                self._follow(self.client.send(self._start()), accepted=True)

    def _start(self, step: Step | None = None) -> dict[str, Any]:
        assert self.resolved is not None
        message = start_message(self.transcript, self.resolved)
        if step is not None and step.start_options is not None:
            message["options"] = dict(step.start_options)
        if step is not None and step.start_seats is not None:
            message["seats"] = step.start_seats
        return message

    def _follow(
        self, answer: Mapping[str, Any], accepted: bool, dealt: bool = False
    ) -> _Played | None:
        if bool(answer.get("ok")) is not accepted:
            self.known = False
            return None
        events = tuple(answer.get("events") or ())
        if not dealt:
            return _Played(events)
        return _Played(events, self.client.send({"cmd": Command.STATE}).get("state") or {})

    def play(self, step: Step) -> _Played | None:
        """Send ``step`` to the reference: how it played it, or None when not followed."""
        if not self.known or step.kind in ("check", "legal"):
            return None
        accepted = step.expect.error is None
        try:
            if step.kind == "raw":
                line, _ = raw_line(step.raw or {}, self.client.next_seq)
                return self._follow(self.client.send_raw(line), accepted)
            request = self._start(step) if step.kind == "start" else step.request
            dealt = step.kind == "deal" and accepted
            return self._follow(self.client.send(request or {}), accepted, dealt)
        except EngineTimeout:  # a blank line: nothing answered, nothing changed
            return None


def _expected(step: Step, kind: str) -> list[Mapping[str, Json]]:
    return [e for e in step.expect.events or () if e.get("type") == kind]


def _first(events: Sequence[Mapping[str, Any]], key: str) -> Any:
    return events[0].get(key) if events else None


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
    # (seat, cards, value) after a deal; the value None where the reference was not followed
    deal: tuple[tuple[int, tuple[str, ...], int | None], ...] = ()


def narrate(
    transcript: Transcript, rules: Mapping[str, Json], resolved: Mapping[str, Json] | None = None
) -> list[NarratedStep]:
    """Every step of ``transcript`` in words, as the reference engine plays it under the
    resolved profile ``resolved`` (None: told from the transcript alone); ``rules`` are its
    rules, for the words of a rule's value."""
    replay = _Replay(transcript, resolved)
    narrated: list[NarratedStep] = []
    hands_dealt = 0
    for step in transcript.steps:
        try:
            played = replay.play(step)
            if step.kind == "deal" and step.expect.error is None:
                hands_dealt += 1
            narrated.append(_narrate_step(step, rules, played, hands_dealt))
        except (KeyError, IndexError, ValueError, TypeError, AssertionError, StopIteration):
            replay.known = False
            narrated.append(NarratedStep(step.index, f"`{md_safe(step.describe())}`"))
    return narrated


def _narrate_step(
    step: Step,
    rules: Mapping[str, Json],
    played: _Played | None,
    hands_dealt: int,
) -> NarratedStep:
    """``step`` in words; ``played``: how the reference played it (None when not followed)."""
    error = step.expect.error
    details = tuple("expected: " + event_words(e) for e in step.expect.events or ())
    refused = f": refused (`{error}`)" if error else ""
    request = step.request or {}
    if step.kind == "check":
        return NarratedStep(step.index, "Check: " + check_words(step.check or {}), details)
    if step.kind == "deal":
        if error:
            return NarratedStep(step.index, f"The harness tries to deal{refused}", details, error)
        return _narrate_deal(step, played, hands_dealt, details)
    if step.kind == "act":
        return _narrate_act(step, played, details)
    if step.kind == "reshuffle":
        order = list(request.get("order") or [])
        if error:
            return NarratedStep(
                step.index,
                f"The harness tries to reshuffle into {cards_text(order)}{refused}",
                details,
                error,
            )
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


def _narrate_deal(
    step: Step, played: _Played | None, hands_dealt: int, details: tuple[str, ...]
) -> NarratedStep:
    """An accepted deal: who starts and who holds what, as the reference dealt it (else as
    the transcript's expected events say)."""
    dealt = played.of(EventType.DEALT) if played else _expected(step, EventType.DEALT)
    started = (
        played.of(EventType.ROUND_STARTED) if played else _expected(step, EventType.ROUND_STARTED)
    )
    starter = _first(started, "starter")
    if played is None and step.starter is not None:
        starter = step.starter
    hands = _first(dealt, "hands")
    turned_up = _first(dealt, "turned_up")
    rows: tuple[tuple[int, tuple[str, ...], int | None], ...] = ()
    deck: list[str] = []
    if played is not None and played.after is not None:
        state = played.after
        deck = list(state["deck"])
        rows = tuple(
            (s, tuple(state["hands"][s]), int(state["hand_values"][s])) for s in state["active"]
        )
    elif isinstance(hands, list):
        rows = tuple((s, tuple(h), None) for s, h in enumerate(hands) if h)
    text = f"Deal, hand {hands_dealt}"
    if isinstance(starter, int):
        text += f": seat {starter} starts"
    if turned_up:
        text += f", {card_text(turned_up)} is turned up"
    elif played is not None and dealt and "turned_up" in dealt[0]:
        text += ", no card is turned up: the first player draws from the deck"
    if deck:
        text += f", the deck's top card is {card_text(deck[0])}"
    return NarratedStep(step.index, text, details, None, rows)


def _narrate_act(step: Step, played: _Played | None, details: tuple[str, ...]) -> NarratedStep:
    assert step.request is not None
    seat = step.request.get("seat")
    action = step.request.get("action") or {}
    kind = action.get("type")
    error = step.expect.error
    who = f"Seat {seat}"
    if kind == ActionType.CALL:
        if error:
            return NarratedStep(
                step.index, f"{who} tries to call Jhyap: refused (`{error}`)", details, error
            )
        text = f"{who} calls Jhyap"
        said = any("value" in e for e in _expected(step, "called"))
        value = played and _first(played.of(EventType.CALLED), "value")
        if isinstance(value, int) and not said:
            text += f" holding {value} points"
        return NarratedStep(step.index, text, details)
    if kind == ActionType.THROW:
        cards = list(action.get("cards") or [])
        what = (played and _first(played.of(EventType.THROWN), "kind")) or throw_kind(cards)
        shown = f"the {what} {cards_text(cards)}" if what != "throw" else cards_text(cards)
        if error:
            return NarratedStep(
                step.index, f"{who} tries to throw {shown}: refused (`{error}`)", details, error
            )
        return NarratedStep(step.index, f"{who} throws {shown}", details)
    if kind == ActionType.PICK:
        from_deck = action.get("from") == PickSource.DECK
        if error:
            card = action.get("card")
            what = "from the deck" if from_deck else f"{card_text(str(card))} from the offer"
            return NarratedStep(
                step.index, f"{who} tries to pick {what}: refused (`{error}`)", details, error
            )
        if from_deck:
            drawn = played and _first(played.of(EventType.PICKED), "card")
            text = f"{who} picks from the deck" + (f" ({card_text(drawn)})" if drawn else "")
        else:
            text = f"{who} picks {card_text(str(action.get('card')))} from the offer"
        return NarratedStep(step.index, text, details)
    if kind == ActionType.TIMEOUT:
        if error:
            return NarratedStep(
                step.index, f"{who}'s turn timer runs out: refused (`{error}`)", details, error
            )
        # What then happens is the profile's turn_timer.on_expiry, as the reference plays it.
        text = f"{who}'s turn timer runs out"
        for event in played.events if played else ():
            if event.get("type") == EventType.THROWN and event.get("seat") == seat:
                text += f": {cards_text(event.get('cards') or [])} is thrown for them"
            elif event.get("type") == EventType.PICKED and event.get("seat") == seat:
                card = card_text(str(event.get("card")))
                text += (
                    f" and they draw {card}"
                    if event.get("from") == PickSource.DECK
                    else f" and they take {card} from the offer"
                )
        return NarratedStep(step.index, text, details)
    if kind == ActionType.SLAPDOWN:
        card = action.get("card")
        if error:
            return NarratedStep(
                step.index,
                f"{who} slaps down {card_text(str(card))}: refused (`{error}`)",
                details,
                error,
            )
        text = f"{who} slaps down {card_text(str(card))}, just drawn, onto their single"
        return NarratedStep(step.index, text, details)
    return NarratedStep(step.index, f"`{md_safe(step.describe())}`", details, error)


def _place(names: Sequence[str], name: Json) -> int:
    return names.index(name) if name in names else len(names)


def _rules_for(
    transcript: Transcript, site: SiteData
) -> tuple[Mapping[str, Json], Mapping[str, Json] | None]:
    """The rules the narration names, and the resolved profile the reference plays: the
    first of the transcript's profiles its options fit, else (a transcript written for an
    alternative reading) the first declared-readings profile it runs under."""
    candidates = [site.profiles[pid] for pid in site.profiles_of(transcript)]
    if not candidates:
        derived = with_alternatives(site.profiles)
        named = list(transcript.profiles)
        # In the order the transcript names their profiles: the first it is written for.
        candidates = sorted(
            (derived[pid] for pid in profiles_for(transcript, derived)),
            key=lambda d: _place(named, (d.get("derived_from") or {}).get("profile")),
        )
    for document in candidates:
        try:
            resolved = resolve(document, transcript.options)
        except Exception:  # a profile the options do not fit: try the next one
            continue
        return dict(resolved["rules"]), resolved
    for pid in transcript.profiles:
        if pid in site.profiles:
            return dict(site.profiles[pid].get("rules") or {}), None
    return {}, None


def _points(value: int | None) -> str:
    return "—" if value is None else str(value)


def _deal_table(rows: Sequence[tuple[int, tuple[str, ...], int | None]]) -> list[str]:
    out = ["| seat | cards | points |", "|---|---|---|"]
    out += [f"| {seat} | {cards_text(cards)} | {_points(value)} |" for seat, cards, value in rows]
    return [*out, ""]


def narrated_hand(
    page: str, transcript: Transcript, site: SiteData, heading_level: int = 2
) -> list[str]:
    """The hand in words: who held what after the first deal, then every step."""
    rules, resolved = _rules_for(transcript, site)
    steps = narrate(transcript, rules, resolved)
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
            extra += [
                f"seat {s}: {cards_text(c)}" + ("" if v is None else f" ({v} points)")
                for s, c, v in step.deal
            ]
        for line in extra:
            out.append(f"    - {line}")
    return [*out, ""]
