"""Replaying one transcript under one profile on a connected engine (docs/transcripts.md).

:func:`replay` sends ``start``, then each step, compares the answers with the transcript,
and stops at the first step that fails. The result is an :class:`Outcome`; engine
failures (crash, timeout, protocol violation) become outcomes too, never exceptions.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Protocol

from jhyap_core.vocabulary import ActionType, Command, ErrorCode, EventType
from reference_engine.parameters import STEP_FAMILY

from ..spec.decks import canonical
from ..spec.protocol import is_protocol_clause
from ..spec.steps import Step, Transcript, raw_line
from . import state_fields as reported
from .ahead import LEGAL, STATE, goes_ahead, planned_requests, start_message
from .client import (
    EngineCrashed,
    EngineError,
    EngineInfo,
    EngineTimeout,
    GoesAhead,
    ProtocolViolation,
)
from .compare import (
    checked_fields,
    compare_check,
    compare_events,
    compare_states,
    show,
    strip_vendor,
)
from .credit import clause_parameters, focused, rule_paths, step_family
from .outcome import (
    CaseStatus,
    Judged,
    Outcome,
    Refusal,
    describe_step,
    refusal_of,
    shortened,
)
from .response_schemas import schema_problems
from .settings import DEFAULT_WINDOW

REFUSAL_CLAUSE: Final = "protocol.messages.refusal-changes-nothing"
# The protocol clauses a failure is credited to when the answer itself is malformed,
# whatever the step was checking.
SCHEMA_CLAUSE: Final = "protocol.messages.schema"
SEQ_CLAUSE: Final = "protocol.seq.echo"
LINE_CLAUSE: Final = "protocol.transport.one-answer"
COMMANDS: Final = frozenset(Command)

# Answers that mean "this engine does not play that", not "this engine is wrong".
SKIP_CODES: Final = frozenset(
    {ErrorCode.UNSUPPORTED_PROFILE, ErrorCode.UNSUPPORTED_OPTION, ErrorCode.UNSUPPORTED_COMMAND}
)
STDERR_LINES: Final = 20


# -- replay ----------------------------------------------------------------------------


class Connection(Protocol):
    """What a replay needs of an engine: an :class:`.EngineClient`, or the reference
    engine in this process (:class:`.inprocess.ReferenceClient`)."""

    @property
    def next_seq(self) -> int: ...

    def send(
        self, message: Mapping[str, Any], *, timeout: float | None = None
    ) -> dict[str, Any]: ...

    def send_raw(self, line: bytes, *, timeout: float | None = None) -> dict[str, Any]: ...

    def stderr_mark(self) -> int: ...

    def stderr_tail(self, lines: int | None = None, since: int = 0) -> list[str]: ...

    def plan(
        self, upcoming: Iterator[Mapping[str, Any]], window: int, goes_ahead: GoesAhead
    ) -> None: ...

    @property
    def planning(self) -> bool: ...

    def settle(self) -> None: ...


class _StepFailure(Exception):
    """Ends a replay early with an outcome (raised inside :func:`replay` only)."""

    def __init__(self, status: CaseStatus, reason: str, **details: Any) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.details = details


@dataclass
class _Context:
    client: Connection
    validate: bool
    transcript: Transcript
    resolved: Mapping[str, Any]
    fields: frozenset[str] | None = None  # the state fields the engine reports (None: all)
    kept: frozenset[str] = frozenset()  # those its kit keeps, not the engine
    started: bool = False  # a start was accepted: there is a table to ask the state of
    step: Step | None = None
    number: int = 0  # the step's number, from 1 (0: before the first step)
    request: dict[str, Any] | None = None
    sent: list[str] = field(default_factory=list)
    # What was compared so far, counted as Judged counts it (built once, at the end).
    accepted: int = 0
    moves: int = 0
    refusals: int = 0
    states: int = 0
    # The steps refused as expected: (number, step, error code), in order.
    refused: list[tuple[int, Step, str]] = field(default_factory=list)
    start: Mapping[str, Any] = field(default_factory=dict)  # the case's start, made once
    # The client's answer_text (EngineClient.answer_text), where it has one.
    answer_text: Callable[[Mapping[str, Any]], bytes | None] | None = None

    @property
    def judged(self) -> Judged:
        """What was compared so far."""
        return Judged(self.accepted, self.moves, self.refusals, self.states)


def _check_schema(ctx: _Context, cmd: str | None, response: Mapping[str, Any]) -> None:
    if not ctx.validate or (cmd is None and response.get("ok") is True):
        return  # an accepted line that names no command has no schema to meet
    text = ctx.answer_text(response) if ctx.answer_text is not None else None
    problems = schema_problems(cmd or "state", response, text)
    if problems and (problems := reported.unreported_dropped(problems, ctx.fields)):
        raise _StepFailure(
            CaseStatus.FAILED,
            f"the answer to {cmd or 'the line'} breaks the protocol schema",
            differences=tuple(problems),
            expected=f"an answer that schema/protocol/ allows for {cmd or 'state'}",
            actual=response,
            credit=(SCHEMA_CLAUSE,),
        )


def _send(ctx: _Context, message: Mapping[str, Any], *, record: bool = True) -> dict[str, Any]:
    """Send a request, checking its answer's schema when asked to."""
    sent = {"seq": ctx.client.next_seq, **message}
    if record:
        ctx.request = sent
    try:
        response = ctx.client.send(message)
    except EngineError:
        ctx.request = sent  # a crash or a hang shows the request it came on, sent or not
        raise
    _check_schema(ctx, str(message["cmd"]), response)
    return response


def _send_raw(ctx: _Context, step: Step) -> dict[str, Any]:
    """Send a raw step's line; check the answer's seq, then its schema."""
    spec = step.raw or {}
    line, put = raw_line(spec, ctx.client.next_seq)
    shown = (
        shortened(line.decode("utf-8", "replace"), 300)
        if len(line) < 4096
        else f"({len(line)} bytes)"
    )
    ctx.request = {"raw": shown}
    response = ctx.client.send_raw(line)
    wanted = step.expect.seq if step.expect.seq_given else put
    got = response.get("seq")
    if got != wanted or isinstance(got, bool | float):
        raise _StepFailure(
            CaseStatus.FAILED,
            f"the answer carries seq {show(got)}, expected {show(wanted)}",
            expected={"seq": wanted},
            actual=response,
            differences=(f"seq: expected {show(wanted)}, got {show(got)}",),
        )
    value = spec.get("json")
    cmd = value.get("cmd") if isinstance(value, dict) else None
    if "oversize" in spec:
        cmd = "state"
    _check_schema(ctx, cmd if cmd in COMMANDS else None, response)
    return response


def _expect_start_refused(ctx: _Context, response: Mapping[str, Any], code: str) -> None:
    """A transcript about a table the rules refuse: start must fail with ``code``."""
    if response["ok"]:
        raise _StepFailure(
            CaseStatus.FAILED,
            f"expected start to be refused with {code}, the engine accepted it",
            expected={"error": code},
            actual="accepted",
        )
    got = response["error"]["code"]
    ctx.refusals += 1
    if got in SKIP_CODES and got != code:
        raise _StepFailure(
            CaseStatus.SKIPPED, f"the engine answered {got}: {response['error']['message']}"
        )
    if got != code:
        raise _StepFailure(
            CaseStatus.FAILED,
            f"expected start to be refused with {code}, the engine answered {got}",
            expected={"error": code},
            actual={"error": response["error"]},
        )


def _refusal(response: Mapping[str, Any], doing: str) -> _StepFailure:
    """The outcome of an unexpected refusal: skipped, errored or failed by its code."""
    code = response["error"]["code"]
    message = response["error"]["message"]
    if code in SKIP_CODES:
        return _StepFailure(CaseStatus.SKIPPED, f"the engine answered {code}: {message}")
    if code == ErrorCode.INTERNAL_ERROR:
        return _StepFailure(
            CaseStatus.ERRORED,
            f"the engine answered internal_error to {doing}: {message}",
            expected="accepted",
            actual={"error": response["error"]},
        )
    return _StepFailure(
        CaseStatus.FAILED,
        f"expected {doing} to be accepted, the engine refused it: {code}: {message}",
        expected="accepted",
        actual={"error": response["error"]},
    )


def _state(ctx: _Context, why: str) -> tuple[Any, bytes | None]:
    """The state (or, before a start, what stands for it) and the text of its answer."""
    response = _send(ctx, STATE, record=False)
    if not ctx.started:
        # No table yet: what must not change is the refusal itself.
        code = response.get("error", {}).get("code") if not response["ok"] else "ok"
        return {"state": code}, None
    if not response["ok"]:
        raise _refusal(response, f"state ({why})")
    return response.get("state"), ctx.answer_text(response) if ctx.answer_text else None


def _unchanged(before: tuple[Any, bytes | None], after: tuple[Any, bytes | None]) -> list[str]:
    """:func:`compare_states` of two states; none differs, without a look, when their
    answers have one text (the same value but for the seq) holding no NaN, which equals
    nothing, not even itself."""
    text = before[1]
    if text is not None and text == after[1] and b"NaN" not in text:
        return []
    return compare_states(before[0], after[0])


def _run_check(ctx: _Context, step: Step) -> None:
    response = _send(ctx, STATE)
    if not response["ok"]:
        raise _refusal(response, "state")
    check, state = reported.narrowed(step.check or {}, ctx.fields), response.get("state")
    if check:
        ctx.states += 1
    differences = compare_check(check, state)
    if differences:
        actual = checked_fields(check, state)
        raise _StepFailure(
            CaseStatus.FAILED,
            "the state differs from the check" + _kept_note(differences, ctx.kept),
            expected=dict(check),
            actual=actual,
            differences=tuple(differences),
        )


def _kept_note(differences: Sequence[str], kept: frozenset[str]) -> str:
    """What a failure says of the fields that differ which the engine's kit keeps."""
    differing = dict.fromkeys(re.split(r"[.\[:\s]", d, maxsplit=1)[0] for d in differences)
    names = [reported.needs(name) for name in differing if reported.needs(name) in kept]
    if not names:
        return ""
    shown = ", ".join(dict.fromkeys(names))
    if len(names) == len(differing):
        return f" in fields the engine's kit keeps, not the engine ({shown}: kit-kept)"
    return f" ({shown}: kept by the engine's kit, not the engine)"


def _run_legal(ctx: _Context, step: Step) -> None:
    response = _send(ctx, LEGAL)
    if not response["ok"]:
        raise _refusal(response, "legal")
    got = response.get("legal")
    ctx.states += 1
    if strip_vendor(got) != step.legal:
        raise _StepFailure(
            CaseStatus.FAILED,
            "the legal actions differ from the transcript (content and order count)",
            expected=step.legal,
            actual=got,
            differences=tuple(_legal_differences(step.legal, got)),
        )


def _legal_differences(expected: Any, got: Any) -> list[str]:
    """What differs in a legal answer, by what is missing and what is extra: the throws (each
    by its cards) and the picks; never a position in a list."""
    if not isinstance(expected, dict) or not isinstance(got, dict):
        return [f"legal: expected {show(expected)}, got {show(got)}"]
    found = []
    for key in ("seat", "call", "throws", "picks", "slapdown"):
        want, have = expected.get(key), strip_vendor(got.get(key))
        if want == have:
            continue
        if isinstance(want, list) and isinstance(have, list):
            found.append(f"{key}: {_list_difference(want, have)}")
        else:
            found.append(f"{key}: expected {show(want)}, got {show(have)}")
    return found


def _list_difference(want: Sequence[Any], have: Sequence[Any]) -> str:
    """``missing [9c 9s], [Kd]; extra [Qh]``, or the same items in another order."""
    wanted, had = Counter(map(_item_key, want)), Counter(map(_item_key, have))
    missing = list(_each(want, wanted - had))
    extra = list(_each(have, had - wanted))
    parts = []
    if missing:
        parts.append("missing " + ", ".join(map(_item_words, missing)))
    if extra:
        parts.append("extra " + ", ".join(map(_item_words, extra)))
    if parts:
        return "; ".join(parts)
    return (
        f"the same {len(want)} in another order: expected {', '.join(map(_item_words, want))}; "
        f"got {', '.join(map(_item_words, have))}"
    )


def _item_key(item: Any) -> str:
    return json.dumps(item, sort_keys=True)


def _each(items: Sequence[Any], left: Counter[str]) -> Iterator[Any]:
    """The items of ``items`` that ``left`` counts, as many times as it counts them, in order."""
    left = Counter(left)
    for item in items:
        key = _item_key(item)
        if left[key] > 0:
            left[key] -= 1
            yield item


def _item_words(item: Any) -> str:
    """A throw as its cards (``[9c 9s]``), a pick as what it takes (``the deck``, ``5h from
    the offer``)."""
    if isinstance(item, list) and all(isinstance(card, str) for card in item):
        return "[" + " ".join(item) + "]"
    if isinstance(item, Mapping) and item.get("from") == "deck" and len(item) == 1:
        return "the deck"
    if isinstance(item, Mapping) and item.get("from") == "offer" and set(item) == {"from", "card"}:
        return f"{item['card']} from the offer"
    return show(item)


def _run_start(ctx: _Context, step: Step) -> None:
    message = dict(ctx.start)
    if step.start_options is not None:
        message["options"] = dict(step.start_options)
    if step.start_seats is not None:
        message["seats"] = step.start_seats
    _run_action(ctx, step, lambda: _send(ctx, message))
    if step.expect.error is None:
        ctx.started = True


def _run_action(
    ctx: _Context, step: Step, send: Callable[[], dict[str, Any]] | None = None
) -> None:
    """Send the step's request (or what ``send`` sends) and judge the answer."""
    request = step.request
    if send is None:
        assert request is not None
        send = lambda: _send(ctx, request)  # noqa: E731
    expect = step.expect
    if expect.error is not None:
        before = _state(ctx, "before the refused request")
        response = send()
        if response["ok"]:
            raise _StepFailure(
                CaseStatus.FAILED,
                f"expected the error {expect.error}, the engine accepted the request",
                expected={"error": expect.error},
                actual={"events": response.get("events")},
                differences=(f"error: expected {show(expect.error)}, got accepted",),
            )
        code = response["error"]["code"]
        ctx.refusals += 1
        ctx.refused.append((ctx.number, step, code))
        if code != expect.error:
            if code == ErrorCode.INTERNAL_ERROR or code in SKIP_CODES:
                raise _refusal(response, describe_step(step))
            raise _StepFailure(
                CaseStatus.FAILED,
                f"expected the error {expect.error}, got {code}",
                expected={"error": expect.error},
                actual={"error": response["error"]},
                differences=(f"error: expected {show(expect.error)}, got {show(code)}",),
            )
        after = _state(ctx, "after the refused request")
        changed = _unchanged(before, after)
        if changed:
            raise _StepFailure(
                CaseStatus.FAILED,
                f"the refused request ({code}) changed the state",
                differences=tuple(changed),
                state_diff=True,
                # Whatever the step was about, the rule broken is that refusals change nothing.
                credit=(REFUSAL_CLAUSE,),
                expected={"error": expect.error},
                actual={"error": response["error"]},
            )
        return
    response = send()
    if not response["ok"]:
        raise _refusal(response, describe_step(step))
    ctx.accepted += 1
    ctx.moves += step.kind == "act"
    if step.kind in ("raw", "start") and expect.events is None:
        return  # accepted is all that is asked
    events = response.get("events")
    differences: list[str] = []
    if not isinstance(events, list):
        differences.append(f"events: expected a list, got {show(events)}")
    else:
        if expect.events is not None:
            differences.extend(compare_events(expect.events, events))
        if step.starter is not None:
            started = [
                e
                for e in events
                if isinstance(e, dict) and e.get("type") == EventType.ROUND_STARTED
            ]
            if not started:
                differences.append(
                    f"round_started.starter: expected {step.starter}, got no round_started event"
                )
            elif started[0].get("starter") != step.starter:
                differences.append(
                    f"round_started.starter: expected {step.starter}, got "
                    f"{show(started[0].get('starter'))}"
                )
        differences.extend(_layout_differences(step, expect.events, events))
    if differences:
        expected: Any = list(expect.events) if expect.events is not None else None
        if step.starter is not None and expected is None:
            expected = [{"type": EventType.ROUND_STARTED, "starter": step.starter}]
        if expected is None and any(d.startswith("dealt.") for d in differences):
            request = step.request or {}
            expected = [
                {
                    "type": EventType.DEALT,
                    "hands": request["hands"],
                    "turned_up": request["turned_up"],
                }
            ]
        raise _StepFailure(
            CaseStatus.FAILED,
            "the events differ from the transcript",
            expected=expected,
            actual=events,
            differences=tuple(differences),
        )


def _layout_differences(step: Step, expected: Any, events: Sequence[Any]) -> list[str]:
    """Where the ``dealt`` event of a deal sent with its layout reports another layout.

    The layout is what the transcript states the deal gives (its hands, its turned-up
    card): a hand dealt otherwise fails the deal step itself, where the deal is credited,
    not the later move that misses a card. Expected events naming the hands check them."""
    request = step.request or {}
    if step.kind != "deal" or "hands" not in request:
        return []
    if any(
        isinstance(e, Mapping) and e.get("type") == EventType.DEALT and "hands" in e
        for e in expected or ()
    ):
        return []
    dealt = next(
        (e for e in events if isinstance(e, dict) and e.get("type") == EventType.DEALT), None
    )
    if dealt is None:
        return []
    found = []
    hands = dealt.get("hands")
    for seat, want in enumerate(request["hands"]):
        got = hands[seat] if isinstance(hands, list) and seat < len(hands) else None
        if not isinstance(got, list) or canonical(got) != canonical(want):
            found.append(f"dealt.hands[{seat}]: expected {show(want)}, got {show(got)}")
    if "turned_up" not in dealt:
        # Required even when no card is turned up (deal.first_offer none: null).
        shown = show(request.get("turned_up"))
        found.append(f"dealt.turned_up: expected {shown}, got nothing (missing)")
    elif dealt["turned_up"] != request.get("turned_up"):
        found.append(
            f"dealt.turned_up: expected {show(request.get('turned_up'))}, "
            f"got {show(dealt.get('turned_up'))}"
        )
    return found


def _run_raw(ctx: _Context, step: Step) -> None:
    _run_action(ctx, step, lambda: _send_raw(ctx, step))


_RUNNERS: Final[Mapping[str, Callable[[_Context, Step], None]]] = {
    "check": _run_check,
    "raw": _run_raw,
    "legal": _run_legal,
    "start": _run_start,
}


# The step kinds whose rule family (the registry's STEP_FAMILY) says what they check, when
# the step names no clauses itself.
_FAMILY_STEPS: Final = frozenset({"deal", "reshuffle", "set_option"})


def _step_credit(
    transcript: Transcript, step: Step | None, owned: Collection[str] | None
) -> tuple[str, ...]:
    """The clauses a failure at ``step`` is credited to: those it names; for a deal, a
    reshuffle or an option change, the clauses of that family (the transcript's, else the
    profile's); otherwise the transcript's."""
    if step is None:
        return transcript.clauses
    if step.clauses:
        return step.clauses
    if step.kind in _FAMILY_STEPS:
        family = STEP_FAMILY[step.kind].clause_family
        for pool in (transcript.clauses, sorted(owned or ())):
            found = tuple(c for c in pool if c.split(".")[1:2] == [family])
            if found:
                return found
    return transcript.clauses


def _puts_a_seat_out(step: Step) -> bool:
    """Whether ``step`` expects a seat out of the game: a round ending with one eliminated."""
    return any(
        isinstance(e, Mapping)
        and e.get("type") == EventType.ROUND_ENDED
        and bool(e.get("eliminated"))
        for e in step.expect.events or ()
    )


def _step_context(transcript: Transcript, index: int) -> dict[str, Any]:
    """What :func:`.credit.rule_paths` weighs besides the differences, for step ``index``
    (1-based): its action type, and the actions of the hand before it (None: no deal)."""
    if not index:
        return {}
    step = transcript.steps[index - 1]
    request = step.request or (step.raw or {}).get("json") or {}
    command = request.get("cmd") if isinstance(request, Mapping) else None
    action = request.get("action") if command == Command.ACT else None
    moves: int | None = None
    reshuffled = seats_out = False
    for before in transcript.steps[: index - 1]:
        if before.kind == "deal":
            moves, reshuffled = 0, False
        elif before.kind == "act" and moves is not None and before.expect.error is None:
            moves += 1  # a refused action is no move
        reshuffled = reshuffled or before.kind == "reshuffle"
        seats_out = seats_out or _puts_a_seat_out(before)
    kind = action.get("type") if isinstance(action, Mapping) else None
    cards = action.get("cards") if isinstance(action, Mapping) else None
    return {
        "command": command if isinstance(command, str) else None,
        "action": kind if isinstance(kind, str) else None,
        "moves": moves,
        "reshuffled": reshuffled,
        "seats_out": seats_out,
        "thrown": [str(c) for c in cards] if isinstance(cards, list) else None,
    }


def credited_clauses(clauses: Sequence[str], owned: Collection[str] | None) -> tuple[str, ...]:
    """Those of ``clauses`` a profile owning ``owned`` answers for: its own and the protocol's."""
    return tuple(c for c in clauses if owned is None or c in owned or is_protocol_clause(c))


def expected_moves(transcript: Transcript) -> tuple[int, ...]:
    """The lines of the transcript's ``act`` steps that expect the move accepted."""
    return tuple(s.line for s in transcript.steps if s.kind == "act" and s.expect.error is None)


def _empty(ctx: _Context, moves: Collection[int]) -> dict[str, Any] | None:
    """The outcome's fields when the transcript expects accepted moves (at ``moves``) and
    the case judged none: it ended at a refusal, as the ruleset plays it. None otherwise,
    and None when a rule of the ruleset refused one of those moves: that refusal, compared,
    is what the case judges (outcome.Refusal)."""
    if not moves or ctx.moves:
        return None
    wanted = set(moves)
    refused = [r for r in ctx.refused if r[1].line in wanted]
    if any(refusal_of(code) is Refusal.RULE for _, _, code in refused):
        return None
    steps = ctx.transcript.steps
    last = ctx.refused[-1] if ctx.refused else None
    # A derived case that ends at what sets its moves up (an option change), refused by
    # a rule (it is locked): that refusal is what it judges.
    if last is not None and steps and last[1] is steps[-1] and refusal_of(last[2]) is Refusal.RULE:
        return None
    refused = refused or ctx.refused
    counted = f"{len(wanted)} accepted move{'s' if len(wanted) != 1 else ''}"
    if not refused:
        return {
            "status": CaseStatus.EMPTY,
            "reason": f"judged no accepted move: the transcript expects {counted}, none was sent",
        }
    number, step, code = refused[0]
    doing = describe_step(step).removesuffix(f" (expects {step.expect.error})")
    return {
        "status": CaseStatus.EMPTY,
        "reason": (
            f"judged no accepted move: the transcript expects {counted}; the case ends at "
            f"step {number} (line {step.line}): {doing}, refused with {code}"
        ),
        "step": number,
        "line": step.line,
        "step_description": describe_step(step),
        "request": dict(step.request) if step.request is not None else None,
        "actual": {"error": code},
    }


def check_requirements(transcript: Transcript, info: EngineInfo) -> str | None:
    """Why the engine cannot run the transcript (a feature it does not list), or None."""
    for feature in transcript.requires:
        if feature == "legal" and not info.supports_command(Command.LEGAL):
            return "needs the optional legal command, which the engine does not list"
        if feature == "timeout" and not info.supports_action(ActionType.TIMEOUT):
            return "needs the optional timeout action, which the engine does not list"
        if feature == "slapdown" and not info.supports_action(ActionType.SLAPDOWN):
            return "needs the optional slapdown action, which the engine does not list"
    return None


def replay(
    client: Connection,
    info: EngineInfo,
    transcript: Transcript,
    profile: str,
    resolved: Mapping[str, Any],
    *,
    validate_protocol: bool = True,
    owned: Collection[str] | None = None,
    clock: Callable[[], float] = time.monotonic,
    window: int = DEFAULT_WINDOW,
    moves: Collection[int] | None = None,
) -> Outcome:
    """Replay ``transcript`` under the resolved profile ``resolved`` (id ``profile``).

    ``owned`` are the clause ids of that profile: the outcome is credited only to those
    and to protocol clauses (None: to every clause listed). Up to ``window`` requests are
    in flight at once, those that may change the game only when the engine declared
    ``requests_ahead`` (conformance.harness.ahead); 1 waits for each answer.
    ``moves``: the lines of the moves the transcript as written expects accepted, when
    ``transcript`` was derived from it (None: ``transcript``'s own, :func:`expected_moves`).
    A case that judged none of them, or nothing at all, is ``empty``, never passed.
    """
    began = clock()

    def credit(clauses: Sequence[str]) -> tuple[str, ...]:
        return credited_clauses(clauses, owned)

    fields = reported.reported_fields(info)
    kept = reported.kit_kept_fields(info)
    base = Outcome(
        CaseStatus.PASSED,
        transcript.id,
        profile,
        clauses=credit(transcript.clauses),
        file=str(transcript.file),
        line=transcript.line,
        not_checked=reported.not_checked(transcript, fields),
        kit_kept=reported.kit_kept(transcript, fields, kept),
    )
    missing = check_requirements(transcript, info)
    if missing:
        return replace(base, status=CaseStatus.SKIPPED, reason=missing, duration=clock() - began)
    start = start_message(transcript, resolved)
    ctx = _Context(
        client,
        validate_protocol,
        transcript,
        resolved,
        fields,
        kept,
        start=start,
        answer_text=getattr(client, "answer_text", None),
    )
    # An engine process plays several cases: its report shows what this one made it write.
    stderr_since = client.stderr_mark()
    ahead = goes_ahead(info.supports)
    index = 0
    details: dict[str, Any] = {}
    credited: tuple[str, ...] | None = None
    try:
        client.plan(planned_requests(transcript, resolved, 0, start), window, ahead)
        if not transcript.fresh_engine:
            response = _send(ctx, start)
            if transcript.start_error is not None:
                _expect_start_refused(ctx, response, transcript.start_error)
            elif not response["ok"]:
                raise _refusal(response, "start")
            ctx.started = True
        for number, step in enumerate(transcript.steps, start=1):
            index = ctx.number = number
            ctx.step = step
            # Until the step's own request goes out, a failure shows what it was to send.
            ctx.request = dict(step.request) if step.request is not None else None
            if not client.planning and step.kind != "raw":
                plan = planned_requests(transcript, resolved, number - 1, start)
                client.plan(plan, window, ahead)
            _RUNNERS.get(step.kind, _run_action)(ctx, step)
    except _StepFailure as failure:
        status, reason, details = failure.status, failure.reason, dict(failure.details)
        credited = details.pop("credit", None)
    except EngineCrashed as exc:
        status, reason = CaseStatus.CRASHED, str(exc)
    except EngineTimeout as exc:
        status, reason = CaseStatus.TIMED_OUT, str(exc)
    except ProtocolViolation as exc:
        status, reason = CaseStatus.ERRORED, f"protocol violation: {exc}"
        credited = (SEQ_CLAUSE,) if exc.reason.startswith("wrong seq") else (LINE_CLAUSE,)
    except EngineError as exc:
        status, reason = CaseStatus.ERRORED, str(exc)
    else:
        judged = ctx.judged
        empty = _empty(ctx, expected_moves(transcript) if moves is None else moves)
        if empty is not None:
            return replace(base, **empty, judged=judged, duration=clock() - began)
        status = (
            CaseStatus.PASSED
            if reported.anything_checked(transcript, fields, kept)
            else CaseStatus.NOT_CHECKED
        )
        if status is CaseStatus.PASSED and judged.nothing:
            reason = "judged nothing: no accepted action, refusal or state was compared"
            status, base = CaseStatus.EMPTY, replace(base, reason=reason)
        return replace(base, status=status, judged=judged, duration=clock() - began)
    # The requests written after the failing step are answered before anything else.
    with contextlib.suppress(EngineError):  # an engine that fails them is restarted
        client.settle()
    focus = 0
    if credited is None:
        step_now = ctx.step if index else None
        credited = credit(_step_credit(transcript, step_now, owned))
        # What differed says which rule broke: its clauses first (conformance.harness.credit).
        context = _step_context(transcript, index)
        paths = rule_paths(
            details.get("differences", ()),
            details.get("expected"),
            details.get("actual"),
            step_now.kind if step_now is not None else None,
            **context,
        )
        hint = step_family(context.get("command"), context.get("action"))
        # The profile's clause on what differed is credited too, unless the step names its
        # clauses: its author said which rule it tests.
        widen = () if step_now is not None and step_now.clauses else (owned or ())
        credited, focus = focused(credited, paths, clause_parameters(resolved), widen, hint=hint)
    outcome = replace(
        base,
        status=status,
        reason=reason,
        judged=ctx.judged,
        clauses=credit(credited),
        focus=focus,
        step=0,
        step_description="start",
        request=ctx.request,
        stderr_tail=tuple(client.stderr_tail(STDERR_LINES, since=stderr_since)),
        **details,
    )
    if index and ctx.step is not None:
        outcome = replace(
            outcome, step=index, step_description=describe_step(ctx.step), line=ctx.step.line
        )
    if outcome.request is not None and outcome.request.get("cmd") == Command.START:
        # The whole resolved profile would drown the report; its id says it all.
        outcome = replace(
            outcome, request={**outcome.request, "profile": f"<resolved profile {profile}>"}
        )
    return replace(outcome, duration=clock() - began)


__all__ = [
    "check_requirements",
    "credited_clauses",
    "expected_moves",
    "replay",
    "start_message",
]
