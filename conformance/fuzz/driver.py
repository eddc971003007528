"""The differential driver: one plan sent to the engine under test and to the reference.

Both engines are ordinary protocol subprocesses. Requests go out in windows (pipelined:
a window of lines is written to each engine before their answers are read), so the two
engines work at the same time and a round trip is paid per window, not per request. A
window is small enough that its answers fit in a pipe buffer, so neither side can block
the other. Answers are compared as a transcript replay compares them (the reference's
answer is the expectation): accepted or refused, the error code, the events, and at each
``state`` request the whole state as a ``check`` would.

A raw-line probe (see :data:`.generate.RAW_PROBES`) is sent as it is, with the client's seq
where the line takes it, and its answer is read without the client's seq check: what is
compared is the answer's code and its seq, each side's seq judged against the line it was
sent ("null", "echoed" for the seq that side's client put in the line, else the value
itself), so that the comparison does not depend on where the line was in the plan. A
different code is a ``refusal`` divergence, as for any request ("<profile> raw <kind>:
expected unknown_command, got bad_request"); the same code with a different seq is a
``protocol`` divergence, as a wrong seq is on any other request ("<profile> raw <kind>:
seq expected null, got 0"). The answer's schema is checked by the transcript replay, not
here.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, Protocol

from ..harness.client import (
    EngineClient,
    EngineCrashed,
    EngineError,
    EngineTimeout,
    ProtocolViolation,
)
from ..harness.compare import compare_check, compare_events
from ..harness.replay import COMMANDS, SKIP_CODES
from ..harness.response_schemas import schema_problems
from ..spec.json_types import Json
from .generate import Plan, Request
from .settings import DEFAULT_WINDOW


class DivergenceKind(StrEnum):
    """The class of a divergence; the value is the word in reports and transcripts."""

    REFUSAL = "refusal"  # accepted by one, refused by the other, or refused with another code
    EVENTS = "events"
    STATE = "state"
    INVARIANT = "invariant"  # the engine's state breaks an invariant of every game
    CRASH = "crash"
    TIMEOUT = "timeout"
    PROTOCOL = "protocol"
    SCHEMA = "schema"  # the engine's answer breaks schema/protocol/, as `jhyap run` checks it


CLASSES: Final = tuple(DivergenceKind)
# State fields no rule gives a meaning once the game is over: not compared then (a
# transcript may not check them either).
UNCHECKABLE_AFTER_GAME: Final = ("starter", "dealer")


class ReferenceFailed(Exception):
    """The reference engine itself failed: a bug of the suite, not of the engine."""


class PipelinedClient(EngineClient):
    """An engine client that can have a window of requests in flight."""

    def post(self, requests: Sequence[Request]) -> int:
        """Write the requests, each with its seq (a raw-line probe as it is, with the seq
        where it takes one); the seq of the first."""
        first = self._seq
        lines = "".join(
            f'{{"seq":{first + i},{r.body[1:]}\n' if r.raw is None else f"{r.line(first + i)[0]}\n"
            for i, r in enumerate(requests)
        )
        self._seq += len(requests)
        limit = self.timeout
        self._write(lines.encode("utf-8"), time.monotonic() + limit, limit, "request", first)
        return first

    def collect(
        self, first: int, requests: Sequence[Request]
    ) -> tuple[list[dict[str, Json]], EngineError | None]:
        """The answers to ``requests`` sent from seq ``first``, until the first failure; a
        raw-line probe's answer is taken whatever its seq."""
        answers: list[dict[str, Json]] = []
        limit = self.timeout
        try:
            for i, item in enumerate(requests):
                deadline = time.monotonic() + limit
                if item.raw is None:
                    answers.append(self._receive(first + i, deadline, limit, "request"))
                else:
                    answers.append(
                        self._receive(first + i, deadline, limit, "a raw line", check_seq=False)
                    )
        except EngineError as exc:
            return answers, exc
        return answers, None


@dataclass(frozen=True)
class Divergence:
    """The first request the two engines answered differently."""

    index: int  # in plan.requests; 0 is the start
    kind: DivergenceKind
    signature: str  # "<profile> <step>: <what differs>", stable across seeds
    differences: tuple[str, ...]
    expected: Json  # the reference's answer
    actual: Json  # the engine's answer, or what happened to it

    def describe(self) -> str:
        return f"{self.signature} ({self.kind})"


class GameDropped(Exception):
    """A game given up half-way: the run's time is spent (the engines stay usable)."""


@dataclass(frozen=True)
class Unsupported:
    """The engine declined the profile, an option or a command: the game is skipped.
    ``what`` names what it declined (the table's options, a command)."""

    message: str
    what: str = ""


def _declined(req: Request) -> str:
    """What a declined request asked for: ``start`` (the table: its options are the
    spec's), ``set_option NAME=VALUE``, or the step."""
    message = req.message
    if message.get("cmd") == "set_option":
        return f"set_option {message.get('name')}={json.dumps(message.get('value'))}"
    return "start" if message.get("cmd") == "start" else step_name(message)


def step_name(message: Mapping[str, Json]) -> str:
    """``call``, ``throw``, ``pick``, ``timeout`` for actions; ``check`` for state; else cmd."""
    cmd = str(message.get("cmd"))
    if cmd == "raw":
        return f"raw {message.get('kind')}"
    if cmd == "act":
        action = message.get("action")
        return str(action.get("type")) if isinstance(action, Mapping) else "act"
    return "check" if cmd == "state" else cmd


def _code(response: Mapping[str, Json]) -> str:
    if response.get("ok") is True:
        return "accepted"
    error = response.get("error")
    return str(error.get("code")) if isinstance(error, Mapping) else "?"


_FIELD = re.compile(r"^([a-z_]+)")
_EVENT_PATH = re.compile(r"^events\[(\d+)\]\.?([a-z_]*)")


_IN_HAND = ("call_or_throw", "pick", "awaiting_reshuffle")


def cards_accounted(state: Json) -> int | None:
    """The cards a mid-hand state shows (hands, offer, thrown, deck, out of play), else None."""
    if not isinstance(state, Mapping) or state.get("phase") not in _IN_HAND:
        return None
    try:
        total = sum(len(h) for h in state["hands"]) + len(state["offer"])
        return total + len(state["thrown"]) + len(state["deck"]) + len(state["out_of_play"])
    except (KeyError, TypeError):
        return None


def state_invariants(state: Json, transfer: bool, cards: int = 52) -> list[str]:
    """What a state breaks of the invariants every game keeps; ``cards`` is the table's
    card count (more with jokers or several packs)."""
    if not isinstance(state, Mapping):
        return []
    problems = []
    try:
        total = cards_accounted(state)
        if total is not None and total != cards:
            problems.append(f"invariant: {total} cards accounted for, not {cards}")
        if transfer and sum(state["scores"]) != 0:
            problems.append(f"invariant: transfer scores {state['scores']} do not sum to zero")
    except (KeyError, TypeError):
        return []
    return problems


def compare_answers(
    request: Request, expected: Mapping[str, Json], actual: Mapping[str, Json]
) -> list[str]:
    """How ``actual`` differs from the reference's ``expected`` answer, as replay would say."""
    want, got = _code(expected), _code(actual)
    if want != got:
        return [f"error: expected {want}, got {got}"]
    if want != "accepted" or request.cmd == "start":
        return []
    if request.cmd == "state":
        want_state = dict(expected.get("state") or {})
        got_state = actual.get("state")
        if want_state.get("phase") == "game_over":
            for name in UNCHECKABLE_AFTER_GAME:
                want_state.pop(name, None)
            if isinstance(got_state, Mapping):
                got_state = {k: v for k, v in got_state.items() if k not in UNCHECKABLE_AFTER_GAME}
        return compare_check(want_state, got_state)
    events = expected.get("events")
    if not isinstance(events, list):
        return []
    return compare_events(events, actual.get("events"))


def seq_word(seq: Json, put: int | None) -> str:
    """An answer's seq to a raw line, as compared: ``null``, ``echoed`` (the seq the client
    put in the line), else the value as JSON."""
    if seq is None:
        return "null"
    if put is not None and seq == put and type(seq) is int:
        return "echoed"
    return json.dumps(seq)


def compare_raw(
    expected: Mapping[str, Json],
    expected_put: int | None,
    actual: Mapping[str, Json],
    put: int | None,
) -> list[str]:
    """How the answer to a raw line differs from the reference's: its code, then its seq
    (each judged against the seq its own client put in the line)."""
    differences = []
    want, got = _code(expected), _code(actual)
    if want != got:
        differences.append(f"error: expected {want}, got {got}")
    want_seq = seq_word(expected.get("seq"), expected_put)
    got_seq = seq_word(actual.get("seq"), put)
    if want_seq != got_seq:
        differences.append(f"seq: expected {want_seq}, got {got_seq}")
    return differences


# The rule family an event or state field belongs to (clause families, as clause ids
# spell them): a divergence's signature names the family of its first difference.
FIELD_FAMILIES: Final[Mapping[str, tuple[str, ...]]] = {
    "round_started": ("deal", "turn"),
    "dealt": ("deal",),
    "called": ("calling",),
    "thrown": ("throws",),
    "picked": ("picking",),
    "under_deck": ("reshuffle", "picking"),
    "reshuffle_needed": ("reshuffle",),
    "reshuffled": ("reshuffle",),
    "timed_out": ("timer",),
    "round_ended": ("showdown", "scoring"),
    "round_ended.eliminated": ("game-end",),
    "round_ended.scores": ("scoring",),
    "round_ended.deltas": ("scoring",),
    "round_ended.hand_values": ("cards",),
    "called.value": ("cards",),
    "hand_values": ("cards",),
    "hands": ("cards",),
    "game_ended": ("game-end", "money"),
    "game_ended.settlement": ("money",),
    "option_changed": ("options",),
    "dealer": ("deal",),
    "starter": ("deal", "turn"),
    "to_act": ("turn",),
    "scores": ("scoring",),
    "eliminated": ("game-end",),
    "active": ("game-end",),
    "result": ("game-end",),
    "turns_taken": ("turn", "calling"),
    "deck": ("reshuffle", "picking"),
    "out_of_play": ("picking", "reshuffle"),
    "offer": ("picking",),
    "pickable": ("picking",),
    "multi_throwers": ("picking",),
    "options": ("options",),
    "seats": ("players",),
    "turn_order": ("turn",),
    "phase": ("turn",),
    "last_round": ("game-end",),
    "offer_kind": ("throws",),
    "deck_size": ("reshuffle", "picking"),
}
# Refusals that say a state field differs, whichever side refused: the engine refusing a
# seat's turn, or granting it where the reference refuses, holds another ``to_act``; an
# engine refusing cards the reference's hand holds holds another hand. Signed as that
# field, so that the bug met at a refusal and at a check is one class.
REFUSAL_FIELDS: Final[Mapping[tuple[str, str], str]] = {
    ("either", "not_your_turn"): "to_act",
    ("engine", "card_not_in_hand"): "hands",
}
# Event fields that are a state field under another name (the called hand's value is a
# hand value), and a card drawn from the deck, which is the deck's order.
EVENT_FIELDS: Final[Mapping[str, str]] = {"called.value": "hand_values"}
# The rule family whose refusal an error code is: an engine refusing with (or accepting
# what the reference refuses with) this code gets that rule wrong, whatever the step.
CODE_FAMILIES: Final[Mapping[str, str]] = {
    "not_your_turn": "turn",
    "wrong_phase": "turn",
    "invalid_seat": "players",
    "invalid_seats": "players",
    "card_not_in_hand": "throws",
    "illegal_throw": "throws",
    "call_over_limit": "calling",
    "call_too_early": "calling",
    "card_not_on_offer": "picking",
    "pick_not_allowed": "picking",
    "invalid_reshuffle": "reshuffle",
    "invalid_deck": "deal",
    "unknown_option": "options",
    "invalid_option_value": "options",
    "option_locked": "options",
    "timer_off": "timer",
    "game_not_endable": "game-end",
}


def field_family(name: str) -> str:
    """The rule family of an event field (``round_ended.scores``) or a state field."""
    found = FIELD_FAMILIES.get(name) or FIELD_FAMILIES.get(name.split(".")[0])
    return found[0] if found else "protocol"


def classify(
    profile: str,
    request: Request,
    expected: Mapping[str, Json],
    differences: Sequence[str],
    transfer: bool,
    actual: Mapping[str, Json],
) -> tuple[DivergenceKind, str]:
    """The divergence class and signature of a difference.

    The signature names the rule, not the path the difference took: ``<profile>
    <family>: <shape>``, the family that of the refusal's code (the engine's where it
    refuses, else the reference's) or of the first field that differs; so that one bug
    met at different steps, or with a different set of fields following from it, is one
    class (a wrong run check: "dhumbal throws: accepts, illegal_throw expected")."""
    step = step_name(request.message)
    if request.raw is not None:
        # A raw line is its own probe of the protocol: its kind names the clauses.
        if differences[0].startswith("error:"):
            return DivergenceKind.REFUSAL, f"{profile} {step}: {differences[0][len('error: ') :]}"
        return DivergenceKind.PROTOCOL, f"{profile} {step}: {differences[0].replace(':', '', 1)}"
    if differences and differences[0].startswith("error:"):
        want, got = _code(expected), _code(actual)
        field = REFUSAL_FIELDS.get(("engine", got)) or REFUSAL_FIELDS.get(
            ("either", got if got != "accepted" else want)
        )
        if field is not None:
            return DivergenceKind.REFUSAL, f"{profile} {field_family(field)}: {field} differs"
        if got != "accepted":
            family, shape = CODE_FAMILIES.get(got, "protocol"), f"refuses with {got}"
        else:
            family, shape = CODE_FAMILIES.get(want, "protocol"), f"accepts, {want} expected"
        return DivergenceKind.REFUSAL, f"{profile} {family}: {shape}"
    if request.cmd == "state":
        cards = cards_accounted(expected.get("state")) or 52
        broken = state_invariants(actual.get("state"), transfer, cards)
        fields = [m.group(1) for d in differences if (m := _FIELD.match(d))]
        # A hand that differs makes its value differ: the hand is the cause.
        root = "hands" if "hands" in fields else fields[0] if fields else "state"
        kind = DivergenceKind.INVARIANT if broken else DivergenceKind.STATE
        return kind, f"{profile} {field_family(root)}: {root} differs"
    events = expected.get("events") or []
    parts: list[str] = []
    for line in differences:
        match = _EVENT_PATH.match(line)
        if match is None:
            parts.append("events count" if line.startswith("events:") else line.split(":")[0])
            continue
        index, name = int(match.group(1)), match.group(2)
        event = events[index] if index < len(events) else {}
        event_type = event.get("type", "?")
        if event_type == "picked" and name == "card" and event.get("from") == "deck":
            parts.append("deck")  # the card on top of the deck: the deck's order
            continue
        path = f"{event_type}.{name}" if name else str(event_type)
        parts.append(EVENT_FIELDS.get(path, path))
    # The first field that differs is the cause; the count of events and the fields after
    # it follow from it.
    root = next((p for p in parts if p != "events count"), parts[0] if parts else "?")
    family = field_family(root) if root != "events count" else _count_family(expected, actual)
    # A field named as the state names it (``round_started.dealer``: ``dealer``): met in
    # an event or at a check, it is one difference.
    leaf = root.rsplit(".", 1)[-1] if "." in root else root
    return DivergenceKind.EVENTS, f"{profile} {family}: {leaf} differs"


def _count_family(expected: Mapping[str, Json], actual: Mapping[str, Json]) -> str:
    """The family of the first event one side has and the other lacks."""
    want = [e.get("type") for e in expected.get("events") or [] if isinstance(e, Mapping)]
    got_events = actual.get("events")
    got = (
        [e.get("type") for e in got_events if isinstance(e, Mapping)]
        if isinstance(got_events, list)
        else []
    )
    extra = [t for t in want if t not in got] + [t for t in got if t not in want]
    return field_family(str(extra[0])) if extra else "protocol"


def _failure(profile: str, request: Request, index: int, error: EngineError) -> Divergence:
    step = step_name(request.message)
    if isinstance(error, EngineTimeout):
        kind = DivergenceKind.TIMEOUT
    elif isinstance(error, EngineCrashed):
        kind = DivergenceKind.CRASH
    elif isinstance(error, ProtocolViolation):
        kind = DivergenceKind.PROTOCOL
    else:
        kind = DivergenceKind.CRASH
    return Divergence(
        index, kind, f"{profile} {step}: {kind}", (str(error),), "an answer", str(error)
    )


def schema_divergence(
    profile: str, request: Request, index: int, answer: Mapping[str, Json]
) -> Divergence | None:
    """A divergence when the engine's answer breaks the protocol schema, as a replay's
    check would say it (the line of a raw probe that names no command: checked only when
    refused)."""
    if request.raw is None:
        cmd: str | None = request.cmd
    else:
        spec = request.raw.get("json")
        named = spec.get("cmd") if isinstance(spec, Mapping) else None
        cmd = named if isinstance(named, str) and named in COMMANDS else None
    if cmd is None and answer.get("ok") is True:
        return None
    problems = schema_problems(cmd or "state", answer)
    if not problems:
        return None
    where = problems[0].split(": ", 1)[0]
    signature = f"{profile} {step_name(request.message)}: schema {where}"
    wanted = "an answer the schema allows"
    return Divergence(index, DivergenceKind.SCHEMA, signature, tuple(problems), wanted, answer)


class Pipelined(Protocol):
    """What :func:`run_plan` needs of an engine: a window posted, then its answers."""

    def post(self, requests: Sequence[Request]) -> int: ...

    def collect(
        self, first: int, requests: Sequence[Request]
    ) -> tuple[list[dict[str, Json]], EngineError | None]: ...


# Divergences in what the engine reports (events, a state, its schema): the game can go
# on past one, the differing fields left out of what is compared afterwards (see .carry).
REPORTS: Final = frozenset(
    {DivergenceKind.EVENTS, DivergenceKind.STATE, DivergenceKind.INVARIANT, DivergenceKind.SCHEMA}
)


def masked_differences(
    profile: str,
    request: Request,
    expected: Mapping[str, Json],
    differences: Sequence[str],
    transfer: bool,
    actual: Mapping[str, Json],
    masked: Set[str],
) -> list[str]:
    """The differences left once those of a ``masked`` signature are set aside: each
    difference of an answer is signed on its own, as if it were the first."""
    if not masked or differences[0].startswith("error:"):
        return list(differences)
    return [
        line
        for line in differences
        if classify(profile, request, expected, [line], transfer, actual)[1] not in masked
    ]


def run_plan(
    engine: Pipelined,
    reference: Pipelined,
    plan: Plan,
    *,
    transfer: bool,
    window: int = DEFAULT_WINDOW,
    check_schema: bool = True,
    stop: Callable[[], bool] | None = None,
    compare_from: int = 0,
    masked: Set[str] = frozenset(),
    carry: Callable[[Divergence], bool] | None = None,
) -> Divergence | Unsupported | None:
    """Send the plan to both engines; the first divergence, Unsupported, or None.
    ``stop`` is asked between windows: when it says so, :class:`GameDropped` is raised.

    Carrying on (see :mod:`.carry`): the answers before ``compare_from`` are not compared
    (a prefix played again, compared before); differences of a ``masked`` signature are
    left out; a divergence in what the engine reports (:data:`REPORTS`, not at a raw
    line) is handed to ``carry``, and when it says so the game goes on with that
    signature masked."""
    requests = plan.requests
    masking = set(masked)
    for begin in range(0, len(requests), window):
        if stop is not None and stop():
            raise GameDropped
        chunk = requests[begin : begin + window]
        try:
            sent = engine.post(chunk)
        except EngineError as exc:
            return _failure(plan.profile, chunk[0], begin, exc)
        try:
            ref_first = reference.post(chunk)
            expected, ref_error = reference.collect(ref_first, chunk)
        except EngineError as exc:
            raise ReferenceFailed(f"the reference engine failed: {exc}") from None
        if ref_error is not None:
            raise ReferenceFailed(f"the reference engine failed: {ref_error}")
        actual, error = engine.collect(sent, chunk)
        for offset, (want, got) in enumerate(zip(expected, actual, strict=False)):
            req = chunk[offset]
            if begin + offset < compare_from:
                continue
            # "Not played here" is no divergence, even where the reference refuses too
            # (a table of too many seats declined as a whole): as `jhyap run` skips it.
            if not got.get("ok") and _code(got) in SKIP_CODES and _code(want) != _code(got):
                message = got.get("error", {}).get("message", "")
                return Unsupported(f"{_code(got)}: {message}", _declined(req))
            if req.raw is not None:
                differences = compare_raw(
                    want, req.line(ref_first + offset)[1], got, req.line(sent + offset)[1]
                )
            else:
                differences = compare_answers(req, want, got)
                if differences:
                    differences = masked_differences(
                        plan.profile, req, want, differences, transfer, got, masking
                    )
            if differences:
                kind, signature = classify(plan.profile, req, want, differences, transfer, got)
                found = Divergence(begin + offset, kind, signature, tuple(differences), want, got)
                if not _carried(found, req, carry):
                    return found
                masking.add(signature)
                continue
            if check_schema and (bad := schema_divergence(plan.profile, req, begin + offset, got)):
                if bad.signature in masking:
                    continue
                if not _carried(bad, req, carry):
                    return bad
                masking.add(bad.signature)
        if error is not None:
            return _failure(plan.profile, chunk[len(actual)], begin + len(actual), error)
    return None


def _carried(
    found: Divergence, request: Request, carry: Callable[[Divergence], bool] | None
) -> bool:
    """Whether the game goes on past ``found``: a report, not at a raw line, carried."""
    return carry is not None and found.kind in REPORTS and request.raw is None and carry(found)


def shorten(value: Json, limit: int = 600) -> str:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "..."


__all__ = [
    "CLASSES",
    "REPORTS",
    "Divergence",
    "GameDropped",
    "Pipelined",
    "PipelinedClient",
    "ReferenceFailed",
    "Unsupported",
    "compare_answers",
    "compare_raw",
    "masked_differences",
    "run_plan",
    "seq_word",
    "state_invariants",
    "step_name",
]
