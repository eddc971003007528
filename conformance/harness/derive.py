"""Every transcript under any ruleset: as written, derived, or not applicable (docs/readings.md).

A transcript is written for the rules of the profiles it names. Under another ruleset (a
declared reading, a variant, a standalone profile) :func:`classify` decides, by asking the
reference engine in this process, how it runs:

* **as written** when the reference engine, playing the ruleset, meets the transcript's own
  expectations (a deal written for another deck or hand size is first laid out for the
  ruleset's, the named cards where the transcript put them);
* **derived** when it does not: the transcript's requests are kept and each expectation is
  the reference engine's answer under the ruleset. The replay ends after the first step
  whose action the ruleset refuses where the transcript expected it accepted (that step
  is checked: the refusal, and that it changed nothing);
* **derived (re-seated)** when the ruleset's first hand starts at another seat than the
  transcript's: every seat of the transcript (the deal's hands and starter, the actions,
  the expected events and states) is first moved round by the difference, so that each
  move is played by the seat the ruleset gives it. The case is the transcript so moved
  when the reference engine meets its expectations, else derived from it as above. Seats are
  numbered in the order play passes, so a ruleset that only plays the other way round or
  has another seat deal gives the same seats the same turns: no re-seating is needed;
* **not applicable** only when the ruleset cannot play the setup: a seat count outside its
  range, a deal naming cards its deck does not hold, an option value it cannot take, or a
  derived replay that ends at a setup refusal (:class:`~.outcome.Refusal`) before any of
  the moves the transcript expects accepted (:mod:`.cases`).

A derived transcript is an ordinary :class:`Transcript` (same file, same step lines), so it
is replayed and reported like any other. Classifications are cached by the transcript
file, the ruleset and this code (:mod:`conformance.spec.filecache`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Any, Final

from jhyap_core.profile import resolve
from jhyap_core.vocabulary import JhyapError

from ..spec import filecache, memo, readings
from ..spec.decks import RANK_SYMBOLS, Deck, deck_header, deck_names, deck_words, table_deck
from ..spec.json_types import Json
from ..spec.profiles import rule_defaults
from ..spec.steps import Step, Transcript, raw_line
from ..spec.transcript import rebuild
from ..spec.transcript_checks import UNCHECKABLE_AFTER_GAME
from ..spec.transcript_profiles import profiles_for
from .compare import checked_fields, strip_vendor
from .inprocess import Diverged, FollowingClient, RecordingClient, ReferenceClient
from .outcome import CaseStatus
from .replay import replay, start_message


class Mode(StrEnum):
    """How a case runs under its ruleset."""

    WRITTEN = "as_written"
    DERIVED = "derived"
    RESEATED = "reseated"  # derived, the transcript's seats moved round first
    NOT_APPLICABLE = "not_applicable"

    @property
    def derived(self) -> bool:
        """Whether the expectations are the reference engine's answers (derived, re-seated
        or not)."""
        return self in (Mode.DERIVED, Mode.RESEATED)


@dataclass(frozen=True)
class Classification:
    """How one transcript runs under one ruleset, and what it runs."""

    mode: Mode
    transcript: Transcript  # as written (its deals laid out for the ruleset), or derived
    options: Mapping[str, Json]  # the options the case starts with
    reason: str = ""  # derived: where the reference leaves the transcript; n/a: why
    base: str | None = None  # the profile the transcript was written for, nearest the ruleset
    changed: tuple[str, ...] = ()  # "rules.path: old -> new" from ``base`` to the ruleset
    shift: int = 0  # re-seated: the transcript's seat s is seat (s + shift) % seats


# -- what the ruleset changes ---------------------------------------------------------


def rule_changes(rules: Mapping[str, Json], base_rules: Mapping[str, Json]) -> list[str]:
    """Each rule parameter that differs from ``base_rules``: ``path: old -> new`` (a
    parameter a profile leaves out has the schema's default)."""
    return _changes(_rule_leaves(base_rules), _rule_leaves(rules))


def _rule_leaves(rules: Mapping[str, Json]) -> dict[str, Json]:
    """Every rule parameter by its path ("rules.pick.rule"), the schema's default where
    ``rules`` leaves it out."""
    defaults = {f"rules.{path}": value for path, value in rule_defaults().items()}
    return {**defaults, **readings.leaves(rules, "rules.")}


def _changes(old: Mapping[str, Json], new: Mapping[str, Json]) -> list[str]:
    return [
        f"{path[len('rules.') :]}: {_word(old.get(path))} -> {_word(new.get(path))}"
        for path in dict.fromkeys([*old, *new])
        if old.get(path) != new.get(path)
    ]


def _word(value: Json) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if isinstance(value, int | str) else repr(value)


# The rule families a step's answer depends on, by what the step does.
_ACTION_FAMILIES: Final[Mapping[str, tuple[str, ...]]] = {
    "throw": ("throws", "deck", "pick", "reshuffle", "deck_runs_out", "card_values"),
    "pick": ("pick", "reshuffle", "deck_runs_out", "deck", "throws"),
    "call": ("call", "showdown", "scoring", "game_end", "card_values", "money", "next_starter"),
    "timeout": ("turn_timer", "throws", "pick", "reshuffle"),
    "slapdown": ("throws", "pick"),
}
_STEP_FAMILIES: Final[Mapping[str, tuple[str, ...]]] = {
    "deal": ("deck", "hand_size", "deal", "direction", "next_starter", "seats", "call"),
    "reshuffle": ("reshuffle", "deck"),
    "end_game": ("game_end", "scoring", "money"),
    "set_option": (),
    "start": ("seats", "deck"),
}
_CHECK_FAMILIES: Final[Mapping[str, tuple[str, ...]]] = {
    "scores": ("scoring", "game_end"),
    "eliminated": ("game_end", "scoring"),
    "result": ("game_end", "scoring", "money"),
    "settlement": ("money", "scoring"),
    "dealer": ("deal", "next_starter"),
    "starter": ("deal", "next_starter"),
    "to_act": ("direction", "next_starter", "deal", "call"),
    "hand_values": ("card_values", "deck"),
    "last_round": ("showdown", "scoring", "call", "card_values"),
    "phase": ("game_end", "call", "deck_runs_out"),
}


def touched(step: Step | None, changed: Sequence[str]) -> tuple[str, ...]:
    """Those of ``changed`` that the answer to ``step`` depends on, where that can be told."""
    if step is None:
        families: tuple[str, ...] = ("seats", "deck")
    elif step.kind == "act":
        action = (step.request or {}).get("action") or {}
        families = _ACTION_FAMILIES.get(str(action.get("type")), ())
    elif step.kind == "check":
        families = tuple(f for name in step.check or {} for f in _CHECK_FAMILIES.get(name, ()))
    else:
        families = _STEP_FAMILIES.get(step.kind, ())
    return tuple(c for c in changed if c.split(".")[0].split(":")[0] in families)


# -- laying a deal out for the ruleset ------------------------------------------------


class NotApplicable(Exception):
    """The ruleset cannot play the transcript's setup."""


def laid_out(
    spec: Mapping[str, Json], deck: Deck, hand_size: int, turns_up: bool = True
) -> dict[str, Json]:
    """A hands-given deal for a deck of ``deck`` and hands of ``hand_size``: each named hand
    cut or filled up to the size (with cards nobody was named, in pack order). Under
    ``deal.first_offer`` none (``turns_up`` false) no card is turned up: a turned-up card the
    deal names joins the cards nobody was named, so the named deck is drawn as written; a
    deal naming none (null) laid out for a table that turns one up turns up the first card
    nobody was named."""
    hands = {str(seat): list(cards) for seat, cards in spec["hands"].items()}
    turned_up = spec["turned_up"] if turns_up else None
    named = [c for h in hands.values() for c in h] + [*([turned_up] if turned_up else [])]
    named += spec.get("deck") or []
    left = Counter(deck_names(*deck))
    left.subtract(named)
    short = [name for name, n in left.items() if n < 0]
    if short:
        raise NotApplicable(
            f"the deal names {', '.join(sorted(short))} more often than the ruleset's deck "
            f"({deck_words(deck)}) holds"
        )
    spare: list[str] = []  # the cards nobody was named, in pack order
    for name in dict.fromkeys(deck_names(*deck)):
        spare.extend([name] * max(0, left[name]))
    for seat, cards in hands.items():
        while len(cards) > hand_size:
            spare.insert(0, cards.pop())
        while len(cards) < hand_size and spare:
            cards.append(spare.pop(0))
        hands[seat] = cards
    if turns_up and turned_up is None and spare:
        turned_up = spare.pop(0)
    return {**spec, "hands": hands, "turned_up": turned_up}


_CARD_NAME: Final = re.compile(r"([A2-9TJQK])([cdhs])")


def _card_names(value: Json) -> set[str]:
    """Every card name (a joker's aside) anywhere in ``value``."""
    if isinstance(value, str):
        return {value} if _CARD_NAME.fullmatch(value) else set()
    if isinstance(value, Mapping):
        return set().union(*(_card_names(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_card_names(v) for v in value))
    return set()


def _renamed(value: Json, cards: Mapping[str, str]) -> Json:
    """``value`` with each card in ``cards`` named as its stand-in."""
    if isinstance(value, str):
        return cards.get(value, value)
    if isinstance(value, Mapping):
        return {k: _renamed(v, cards) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, cards) for v in value]
    return value


def stand_ins(named: set[str], left_out: str) -> dict[str, str]:
    """For each card ``named`` of a rank the pack leaves out (rank symbols ``left_out``), the
    card that plays it. A whole rank stands in for it when one is free (the nearest rank
    the pack holds that no card named has, below first at equal distance), so that every
    set stays a set; else each card alone, by the nearest card of the same suit nobody is
    named, then of any suit. NotApplicable when no card is left to stand in."""
    ranks = RANK_SYMBOLS
    used = {name[0] for name in named}
    taken = set(named)
    found: dict[str, str] = {}
    for rank in sorted(used & set(left_out), key=ranks.index):
        at = ranks.index(rank)
        nearest = [
            ranks[i]
            for d in range(1, len(ranks))
            for i in (at - d, at + d)
            if 0 <= i < len(ranks) and ranks[i] not in left_out
        ]
        cards = sorted((n for n in named if n[0] == rank), key=lambda n: "cdhs".index(n[1]))
        free_rank = next((r for r in nearest if r not in used and r not in found.values()), None)
        for card in cards:
            if free_rank is not None:
                stand_in = free_rank + card[1]
            else:
                spare = [r + card[1] for r in nearest] + [r + s for r in nearest for s in "cdhs"]
                stand_in = next((c for c in spare if c not in taken), "")
                if not stand_in:
                    raise NotApplicable(
                        f"the transcript names every card the ruleset's deck holds, and {card} "
                        "besides, which its pack leaves out: no card is free to stand in for it"
                    )
            found[card] = stand_in
            taken.add(stand_in)
        if free_rank is not None:
            used.add(free_rank)
    return found


def stand_in_cards(transcript: Transcript, deck: Deck) -> tuple[Transcript, str]:
    """The transcript with each card of a rank the ruleset's pack leaves out played by a
    card it holds (:func:`stand_ins`), everywhere it names it (deals, actions, expected
    events and states), and why, in words ("" when nothing stood in)."""
    left_out = deck[2] if len(deck) == 3 else ""
    if not left_out:
        return transcript, ""
    steps = transcript.raw.get("steps") or []
    cards = stand_ins(_card_names(steps), left_out)
    if not cards:
        return transcript, ""
    renamed = {**transcript.raw, "steps": _renamed(steps, cards)}
    pairs = ", ".join(f"{card} as {cards[card]}" for card in cards)
    gone = " ".join(sorted({card[0] for card in cards}, key=RANK_SYMBOLS.index))
    why = f"stand-in cards: the ruleset's pack holds no {gone}, so the transcript's {pairs}"
    return rebuild(transcript, renamed), why


def lay_out_deals(transcript: Transcript, rules: Mapping[str, Json]) -> Transcript:
    """The transcript with its deals laid out for a table playing ``rules``; NotApplicable
    when a deal cannot be (a whole card order written for another deck, cards it lacks)."""
    deck = table_deck(rules, transcript.seats)
    hand_size = int(rules["hand_size"])
    turns_up = rules["deal"]["first_offer"] != "none"
    steps = list(transcript.raw.get("steps") or [])
    changed = False
    for step in transcript.steps:
        if step.kind != "deal" or step.deal is None:
            continue
        spec = step.deal
        if "order" in spec:
            if deck != transcript.deck:
                raise NotApplicable(
                    f"the deal at line {step.line} is a whole card order for another deck"
                )
            continue
        size = max((len(h) for h in spec["hands"].values()), default=hand_size)
        if (
            deck == transcript.deck
            and size == hand_size
            and (spec["turned_up"] is not None) == turns_up
        ):
            continue
        laid = laid_out(spec, deck, hand_size, turns_up)
        steps[step.index] = {**steps[step.index], "deal": laid}
        changed = True
    if not changed and deck == transcript.deck:
        return transcript
    return rebuild(transcript, {**transcript.raw, "steps": steps, "deck": deck_header(deck)})


# -- moving the seats round ------------------------------------------------------------

# Where a seat is named, in a step, an event, a state or a result (the protocol's schemas,
# schema/protocol/): one seat, a list of seats in the order given, a list of seats in
# ascending order, a value per seat (a list by seat, or a mapping of seat numbers).
_ONE_SEAT: Final = frozenset({"seat", "caller", "winner", "dealer", "starter", "to_act"})
_SEATS_IN_ORDER: Final = frozenset({"turn_order", "standings", "eliminated", "multi_throwers"})
_SEATS_ASCENDING: Final = frozenset({"active", "winners"})
_BY_SEAT: Final = frozenset({"hands", "hand_values", "deltas", "scores"})
_PAYMENT_SEATS: Final = frozenset({"from", "to"})  # a payment's; a pick's "from" is a word


def _moved(seat: Json, shift: int, seats: int) -> Json:
    if isinstance(seat, int) and not isinstance(seat, bool):
        return (seat + shift) % seats
    return seat


def _keys_moved(by_seat: Mapping[Any, Json], shift: int, seats: int) -> dict[Any, Json]:
    """A mapping by seat number (its keys numbers or their digits) with the seats moved."""
    return {type(seat)((int(seat) + shift) % seats): value for seat, value in by_seat.items()}


def moved_round(value: Json, shift: int, seats: int) -> Json:
    """``value`` (a step, an event, a state or part of one) with each seat ``s`` it names
    made seat ``(s + shift) % seats``: seat fields, lists of seats, values by seat."""
    if isinstance(value, list):
        return [moved_round(item, shift, seats) for item in value]
    if not isinstance(value, Mapping):
        return value
    found: dict[str, Json] = {}
    for name, item in value.items():
        if name in _ONE_SEAT or name in _PAYMENT_SEATS:
            found[name] = _moved(item, shift, seats)
        elif name in _SEATS_IN_ORDER and isinstance(item, list):
            found[name] = [_moved(s, shift, seats) for s in item]
        elif name in _SEATS_ASCENDING and isinstance(item, list):
            moved = [_moved(s, shift, seats) for s in item]
            ints = [s for s in moved if isinstance(s, int)]
            found[name] = sorted(ints) if len(ints) == len(moved) else moved
        elif name in _BY_SEAT and isinstance(item, list) and len(item) == seats:
            found[name] = [item[(i - shift) % seats] for i in range(seats)]
        elif name in _BY_SEAT and isinstance(item, Mapping):
            found[name] = _keys_moved(item, shift, seats)
        else:
            found[name] = moved_round(item, shift, seats)
    return found


def first_starter_shift(
    transcript: Transcript, rules: Mapping[str, Json], base_rules: Mapping[str, Json] | None
) -> int:
    """How many seats on the ruleset's first starter is from the transcript's: the starter
    of its first deal (named, or in the deal's expected round_started event), else the
    first starter of the rules it was written for. 0 when it cannot be told, when the
    transcript changes the seat count on the way, or when it has no move to give a seat."""
    seats = transcript.seats
    steps = transcript.steps
    if seats < 1 or any(s.start_seats is not None for s in steps):
        return 0
    if not any(s.kind == "act" for s in steps):
        return 0
    written: int | None = None
    deal = next((s for s in transcript.steps if s.kind == "deal"), None)
    if deal is not None and deal.starter is not None:
        written = deal.starter
    elif deal is not None:
        started = [
            e
            for e in deal.expect.events or ()
            if isinstance(e, Mapping) and e.get("type") == "round_started"
        ]
        if started and isinstance(started[0].get("starter"), int):
            written = int(started[0]["starter"])
    if written is None and base_rules is not None:
        written = int(base_rules["deal"]["first_starter"])
    if written is None:
        return 0
    return (int(rules["deal"]["first_starter"]) - written) % seats


def reseated(transcript: Transcript, shift: int) -> Transcript:
    """The transcript with every seat it names moved ``shift`` seats on (the deals' hands
    and starters, the actions, the expected events, states and legal answers)."""
    seats = transcript.seats
    steps = []
    for raw in transcript.raw.get("steps") or []:
        step = dict(raw)
        for name in ("act", "check", "legal", "expect"):
            if name in step:
                step[name] = moved_round(step[name], shift, seats)
        deal = step.get("deal")
        if isinstance(deal, Mapping) and "hands" in deal:
            step["deal"] = {
                **deal,
                "starter": _moved(deal["starter"], shift, seats),
                "hands": _keys_moved(deal["hands"], shift, seats),
            }
        steps.append(step)
    return rebuild(transcript, {**transcript.raw, "steps": steps})


# -- deriving the expectations ---------------------------------------------------------


def _expect(answer: Mapping[str, Json]) -> dict[str, Json]:
    if answer.get("ok"):
        events = answer.get("events")
        return {"events": events} if isinstance(events, list) else {}
    return {"error": answer["error"]["code"]}


def _derived_check(step: Step, state: Json) -> dict[str, Json]:
    """The fields the check names, with the reference's values (those it has)."""
    shown = checked_fields(step.check or {}, state)
    over = isinstance(state, Mapping) and state.get("phase") == "game_over"
    kept = {}
    for name, value in shown.items():
        if name == "settlement" and value is None:
            continue
        if name != "settlement" and name not in state:
            continue
        if over and name in UNCHECKABLE_AFTER_GAME:
            continue
        kept[name] = value
    return kept


def _message(transcript: Transcript, resolved: Mapping[str, Json], step: Step) -> dict[str, Json]:
    """The request a step sends (a start step's, with its replacement options and seats)."""
    if step.kind != "start":
        assert step.request is not None
        # A copy of the top level, which the caller changes (a reshuffle's order); nothing
        # below it is changed, and the client sends a copy of the whole.
        return dict(step.request)
    message = start_message(transcript, resolved)
    if step.start_options is not None:
        message["options"] = dict(step.start_options)
    if step.start_seats is not None:
        message["seats"] = step.start_seats
    return message


def _fitted(order: Sequence[str], cards: Sequence[str]) -> list[str]:
    """``order`` made to hold exactly ``cards``: its cards that are among them, in its
    order, then the others, in the order given."""
    left = Counter(cards)
    fitted = []
    for card in order:
        if left[card] > 0:
            fitted.append(card)
            left[card] -= 1
    for card in cards:
        if left[card] > 0:
            fitted.append(card)
            left[card] -= 1
    return fitted


def _reshuffles_next(transcript: Transcript, index: int, moved: set[int]) -> bool:
    """Whether the script's next step (after ``index``) is a reshuffle."""
    following = [s for s in transcript.steps[index + 1 :] if s.index not in moved]
    return bool(following) and following[0].kind == "reshuffle"


def _next_reshuffle(transcript: Transcript, index: int, moved: set[int]) -> list[str]:
    """The order of the script's next reshuffle after ``index`` (taken: it is not sent again)."""
    for step in transcript.steps[index + 1 :]:
        if step.kind == "reshuffle" and step.index not in moved:
            moved.add(step.index)
            return list((step.request or {}).get("order") or [])
    return []


def _derive_steps(
    transcript: Transcript, resolved: Mapping[str, Json], played: RecordingClient | None = None
) -> tuple[list[dict[str, Json]], list[int], str | None]:
    """The derived steps (transcript data), their lines, and the table's refusal code when
    the reference refuses the table the transcript expected refused. NotApplicable when it
    refuses a table the transcript expected accepted.

    ``played``: the reference engine that replayed ``transcript`` as written: the requests
    both send are answered from its log, and it plays on from where that replay stopped
    (the same answers a fresh engine gives: it is deterministic); where this pass sends
    what that replay did not, a fresh engine derives the whole."""
    if played is not None:
        try:
            return _derive_with(FollowingClient(played), transcript, resolved)
        except Diverged:
            pass
    return _derive_with(ReferenceClient(), transcript, resolved)


def _derive_with(
    client: ReferenceClient, transcript: Transcript, resolved: Mapping[str, Json]
) -> tuple[list[dict[str, Json]], list[int], str | None]:
    client.handshake()
    if not transcript.fresh_engine:
        answer = client.send(start_message(transcript, resolved))
        if not answer["ok"]:
            error = answer["error"]
            if transcript.start_error is None:
                raise NotApplicable(
                    f"the ruleset refuses the table: {error['code']}: {error['message']}"
                )
            return [], [], str(error["code"])
    originals = list(transcript.raw.get("steps") or [])
    steps: list[dict[str, Json]] = []
    lines: list[int] = []
    moved: set[int] = set()  # scripted reshuffles already sent at the moment the ruleset needs
    held: list[list[str]] = []  # orders of scripted reshuffles the ruleset did not need yet
    for step in transcript.steps:
        if step.index in moved:
            continue
        if step.kind == "reshuffle" and step.expect.error is None and not client.awaiting:
            # The ruleset makes the deck anew at another moment: keep the order for it.
            held.append(list((step.request or {}).get("order") or []))
            continue
        raw = {k: v for k, v in originals[step.index].items() if k != "expect"}
        last = False
        if step.kind == "check":
            answer = client.send({"cmd": "state"})
            if not answer["ok"]:
                break
            raw["check"] = _derived_check(step, answer.get("state"))
        elif step.kind == "legal":
            answer = client.send({"cmd": "legal"})
            if not answer["ok"]:
                break
            raw["legal"] = strip_vendor(answer.get("legal"))
        else:
            if step.kind == "raw":
                line, put = raw_line(step.raw or {}, client.next_seq)
                answer = client.send_raw(line)
                expect = _expect(answer)
                if answer.get("seq") != put:
                    expect["seq"] = answer.get("seq")
            else:
                message = _message(transcript, resolved, step)
                if step.kind == "reshuffle" and client.awaiting:
                    message["order"] = _fitted(message["order"], client.awaiting)
                    raw["reshuffle"] = message["order"]
                answer = client.send(message)
                expect = _expect(answer)
                if step.kind == "deal":
                    # The engine's own starter is in its round_started event.
                    raw["deal"] = {"order": list(message["deck"])}
            if expect:
                raw["expect"] = expect
            last = not answer["ok"] and step.expect.error is None
        steps.append(raw)
        lines.append(step.line)
        if last:
            break
        if client.awaiting and not _reshuffles_next(transcript, step.index, moved):
            # The ruleset needs the deck made anew here: with the next order the script gives.
            order = held.pop(0) if held else _next_reshuffle(transcript, step.index, moved)
            message = {"cmd": "reshuffle", "order": _fitted(order, client.awaiting)}
            answer = client.send(message)
            steps.append({"reshuffle": message["order"], "expect": _expect(answer)})
            lines.append(step.line)
            if not answer["ok"]:
                break
    return steps, lines, None


# -- classification --------------------------------------------------------------------


def _accepted_options(
    document: Mapping[str, Json], options: Mapping[str, Json]
) -> tuple[dict[str, Json], list[str]]:
    """The transcript's options the ruleset takes, and why each other one is left out:
    found once per document and options (each a whole profile resolved), as ``_resolved``;
    the caller's own copies."""
    kept, dropped = _accept(document, options)
    return dict(kept), list(dropped)


# Keyed by the options in their order: each is tried after the last.
@memo.by_identity_and_key(json.dumps, 64)
def _accept(
    document: Mapping[str, Json], options: Mapping[str, Json]
) -> tuple[dict[str, Json], list[str]]:
    kept: dict[str, Json] = {}
    dropped = []
    for name, value in options.items():
        try:
            resolve(document, {**kept, name: value})
        except JhyapError as exc:
            dropped.append(f"option {name} = {_word(value)} left out ({exc.message})")
            continue
        kept[name] = value
    return kept, dropped


def _nearest_base(
    transcript: Transcript,
    rules: Mapping[str, Json],
    written_for: Mapping[str, Mapping[str, Json]],
) -> tuple[str | None, list[str]]:
    """The profile the transcript was written for whose rules differ least from ``rules``."""

    best: tuple[int, str, list[str]] | None = None
    new = _leaves_of(rules)
    for pid in profiles_for(transcript, written_for):
        base = _base_rules(written_for[pid], transcript.options)
        if base is None:
            continue
        changes = _changes_between(base[1], new)
        if best is None or len(changes) < best[0]:
            best = (len(changes), pid, changes)
    return (best[1], best[2]) if best else (None, [])


_BaseRules = tuple[Mapping[str, Json], dict[str, Json]]
_OPTIONS_KEY = functools.partial(json.dumps, sort_keys=True)  # options as their meaning


@memo.by_identity_and_key(_OPTIONS_KEY, 256)
def _base_rules(document: Mapping[str, Json], options: Mapping[str, Json]) -> _BaseRules | None:
    """The rules of a profile the corpus is written for, under a transcript's options, and
    their ``_rule_leaves`` (None when it cannot take them), resolved once per profile and
    options: the transcripts of a run share a few of them, and a whole profile is costly
    to resolve."""
    try:
        rules = resolve(document, options)["rules"]
    except JhyapError:
        return None
    return rules, _rule_leaves(rules)


@memo.by_identity()
def _leaves_of(rules: Mapping[str, Json]) -> dict[str, Json]:
    """``_rule_leaves`` of a ruleset's rules (resolved once per options: ``_resolved``)."""
    return _rule_leaves(rules)


def _changes_between(old: Mapping[str, Json], new: Mapping[str, Json]) -> list[str]:
    """``_changes`` from the leaves of a base's rules to a ruleset's (a list the caller
    owns), worked out once per pair: every transcript of a run written for the same profile
    compares the same two."""
    return list(_pair_changes(old, new))


@memo.by_identities(256)
def _pair_changes(old: Mapping[str, Json], new: Mapping[str, Json]) -> tuple[str, ...]:
    # both kept by _base_rules and _leaves_of, never changed: their identity is their value
    return tuple(_changes(old, new))


@memo.by_identity_and_key(_OPTIONS_KEY, 64)
def _resolved(document: Mapping[str, Json], options: Mapping[str, Json]) -> dict[str, Json]:
    """The ruleset resolved with a transcript's options, once per document and options: a
    run classifies every transcript under the same ruleset, most with the same options. The
    same object each time, as a run's cases share theirs (never changed), so that what is
    made of it (the profile a start sends, its in-process copy) is made once too."""
    return resolve(document, options)


@memo.by_identity()
def _fingerprint_of(value: Mapping[str, Json]) -> str:
    """The fingerprint of the ruleset, or of the profiles the corpus is written for, taken
    once per mapping (a run classifies every transcript against the same ones)."""
    return filecache.fingerprint(value)


@cache
def _code_fingerprint() -> str:
    digest = hashlib.sha256()
    here = Path(__file__).resolve().parent
    for name in ("derive.py", "inprocess.py", "replay.py", "compare.py"):
        digest.update((here / name).read_bytes())
    return digest.hexdigest()


def classify(
    transcript: Transcript,
    profile: str,
    document: Mapping[str, Json],
    written_for: Mapping[str, Mapping[str, Json]],
) -> Classification:
    """How ``transcript`` runs under the ruleset ``document`` (id ``profile``).

    ``written_for``: the profiles the corpus is written for (the shipped ones and their
    alternative readings), to name the parameters the ruleset changes."""
    content = filecache.read_file(transcript.file)
    entry = None
    if content is not None:
        entry = filecache.key(
            "classification",
            content,
            str(transcript.file),
            profile,
            _fingerprint_of(document),
            _fingerprint_of(written_for),
            _code_fingerprint(),
        )
        hit = filecache.get(entry, content)
        if isinstance(hit, dict):
            try:
                return _from_json(transcript, hit)
            except (KeyError, TypeError, ValueError, IndexError):
                pass
    found = _classify(transcript, profile, document, written_for)
    if entry is not None:
        filecache.put(entry, _to_json(found, transcript), content)
    return found


def _classify(
    transcript: Transcript,
    profile: str,
    document: Mapping[str, Json],
    written_for: Mapping[str, Mapping[str, Json]],
) -> Classification:
    options, dropped = _accepted_options(document, transcript.options)
    resolved = _resolved(document, options)
    rules = resolved["rules"]
    base, changed = _nearest_base(transcript, rules, written_for)

    def na(reason: str) -> Classification:
        return Classification(
            Mode.NOT_APPLICABLE, transcript, options, reason, base, tuple(changed)
        )

    seats = rules["seats"]
    inside = seats["min"] <= transcript.seats <= seats["max"]
    if not inside and transcript.start_error is None:
        return na(
            f"{transcript.seats} seats is outside the ruleset's {seats['min']}-{seats['max']}"
        )
    laid = transcript
    stood_in = ""  # why cards stand in for ranks the pack lacks, when some do
    if inside and transcript.steps:
        try:
            laid, stood_in = stand_in_cards(transcript, table_deck(rules, transcript.seats))
            laid = lay_out_deals(laid, rules)
        except NotApplicable as exc:
            return na(str(exc))
    if options != dict(transcript.options):
        # Its steps are not of its options: the same steps, the options replaced.
        laid = replace(laid, raw={**laid.raw, "options": options}, options=options or {})
    if stood_in:
        dropped = [stood_in, *dropped]
    client = RecordingClient()
    info = client.handshake()
    outcome = replay(client, info, laid, profile, resolved, validate_protocol=False)
    if outcome.status == CaseStatus.PASSED and not dropped:
        return Classification(Mode.WRITTEN, laid, options, "", base, tuple(changed))
    if outcome.status == CaseStatus.PASSED and stood_in and dropped == [stood_in]:
        # Other cards, the transcript's own expectations: derived all the same.
        why = stood_in + ": the transcript's own expectations, those cards renamed"
        return Classification(Mode.DERIVED, laid, options, why, base, tuple(changed))
    if outcome.status == CaseStatus.SKIPPED:
        return na(outcome.reason)
    # Moves belong to the seats the ruleset gives the turns to: a first hand that starts
    # elsewhere moves every seat of the transcript round before anything is derived.
    written = _base_rules(written_for[base], transcript.options) if base is not None else None
    shift = first_starter_shift(laid, rules, written[0] if written else None)
    played = reseated(laid, shift) if shift else laid
    replayed: RecordingClient | None = None if shift else client  # the engine that played it
    if shift and not dropped:
        # The transcript's own expectations, seats moved, may hold as they are: then they
        # are what the case judges, every step of them.
        replayed = RecordingClient()
        moved = replay(
            replayed, replayed.handshake(), played, profile, resolved, validate_protocol=False
        )
        if moved.status == CaseStatus.PASSED:
            why = _reseated_why(rules, shift, laid.seats) + ": the transcript's own expectations"
            return Classification(Mode.RESEATED, played, options, why, base, tuple(changed), shift)
    try:
        steps, lines, start_error = _derive_steps(played, resolved, replayed)
    except NotApplicable as exc:
        return na(str(exc))
    value = {**played.raw, "steps": steps}
    value.pop("start_error", None)
    if start_error is not None:
        value["start_error"] = start_error
    derived = rebuild(played, value, lines)
    whys = [_reseated_why(rules, shift, laid.seats)] if shift else []
    whys += dropped
    if not shift and dropped in ([], [stood_in]):
        where = f"step {outcome.step} (line {outcome.line})" if outcome.step else "the start"
        first_difference = outcome.differences[0] if outcome.differences else outcome.reason
        whys.append(f"the reference engine leaves the transcript at {where}: {first_difference}")
    mode = Mode.RESEATED if shift else Mode.DERIVED
    return Classification(mode, derived, options, "; ".join(whys), base, tuple(changed), shift)


def _reseated_why(rules: Mapping[str, Json], shift: int, seats: int) -> str:
    first = int(rules["deal"]["first_starter"]) % seats
    return (
        f"re-seated: the ruleset's first hand starts at seat {first}, the transcript's at "
        f"seat {(first - shift) % seats}: each seat s of the transcript plays as seat "
        f"(s + {shift}) mod {seats}"
    )


def _to_json(found: Classification, loaded: Transcript) -> dict[str, Json]:
    # The transcript as loaded (most cases run as written) is kept as null: the entry's
    # key holds the file's bytes, which make the same transcript again.
    kept = found.transcript is loaded
    return {
        "mode": found.mode.value,
        "value": None if kept else found.transcript.raw,
        "lines": None if kept else [step.line for step in found.transcript.steps],
        "options": dict(found.options),
        "reason": found.reason,
        "base": found.base,
        "changed": list(found.changed),
        "shift": found.shift,
    }


def _from_json(transcript: Transcript, hit: Mapping[str, Json]) -> Classification:
    value = hit["value"]
    return Classification(
        Mode(hit["mode"]),
        transcript if value is None else rebuild(transcript, value, hit["lines"]),
        dict(hit["options"]),
        str(hit["reason"]),
        hit["base"],
        tuple(hit["changed"]),
        int(hit["shift"]),
    )


def trusted(profile: str, document: Mapping[str, Json], shipped: Mapping[str, Json]) -> bool:
    """Whether the transcripts written for this profile are oracles for it as they stand:
    a shipped profile, or one that only declares readings of one (no rule of its own)."""
    derived = document.get("derived_from")
    if isinstance(derived, Mapping):
        return not derived.get("variant") and readings.base_id(document) in shipped
    return profile in shipped


__all__ = [
    "Classification",
    "Mode",
    "NotApplicable",
    "classify",
    "first_starter_shift",
    "laid_out",
    "lay_out_deals",
    "moved_round",
    "reseated",
    "rule_changes",
    "touched",
    "trusted",
]
