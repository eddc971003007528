"""Requests sent ahead: a case's coming requests written before their turn (pipelining).

A transcript fixes the requests of a case in advance: ``start``, then each step's request
(a step that expects a refusal asks the state before and after it, a ``check`` asks the
state, a ``legal`` the legal actions). So the harness need not wait for each answer
before it writes the next request: it keeps a window of them in flight, and the engine
works while the harness judges the answers it has. Each answer is still judged in order,
as if every request had waited for the one before. When a step fails, the requests
written after it are answered and their answers dropped (``settle``) before the next
case, which starts a new table: nothing they did survives. A raw step's line carries the
seq it is sent with, so the plan stops before it and starts again after it.

What may go out before the answers before it have been judged (:func:`goes_ahead`):
a request that changes no game (``state``, ``legal``) always; one that may change it
(``start``, ``deal``, ``act``, ...) only to an engine that declared
``hello.supports.requests_ahead`` (protocol 1.2): that it answers each line in order,
whatever was written after it. To any other engine such a request is written only once
every answer before it has been judged: had that answer failed the case, the engine would
have gone on to a step the transcript never reached, which its report (standard error, a
crash) could show. A declaring engine takes that on: a failing case's standard-error
tail may show what it wrote for the requests written after the failing one, the seqs of
later cases count those requests too, and an engine that crashes on one of them is
restarted for the next case; verdicts, steps and messages are the same.

The protocol allows this: an engine reads its requests as lines and answers them in
order (docs/protocol.md); ``--window 1`` sends each request only once the one before
was answered.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from jhyap_core.vocabulary import READ_ONLY, Command

from ..spec import memo
from ..spec.profile_schema import sent_profile
from ..spec.steps import Step, Transcript
from .client import GoesAhead

# The profile a start sends: one object for every case of one resolved profile (never to
# be changed), which the client encodes once (client._profile_text).
_sent_profile = memo.by_identity(64)(sent_profile)

STATE: Final[Mapping[str, Any]] = {"cmd": Command.STATE}
LEGAL: Final[Mapping[str, Any]] = {"cmd": Command.LEGAL}

# The hello.supports member by which an engine takes every request ahead (protocol 1.2).
DECLARATION: Final = "requests_ahead"


def changes_nothing(request: Mapping[str, Any]) -> bool:
    """A request that changes no game (``state``, ``legal``): it may go ahead to any engine."""
    return request.get("cmd") in READ_ONLY


def anything(request: Mapping[str, Any]) -> bool:
    """Every request may go ahead (to an engine that :func:`declared` it)."""
    return True


def declared(supports: Mapping[str, Any]) -> bool:
    """Whether a hello's ``supports`` says the engine takes requests that change the game
    ahead: ``requests_ahead`` is ``true`` (anything else, or nothing, says no)."""
    return supports.get(DECLARATION) is True


def goes_ahead(supports: Mapping[str, Any]) -> GoesAhead:
    """What may be written ahead to an engine whose hello answered ``supports``: any
    request when it :func:`declared` so, else only those that change nothing."""
    return anything if declared(supports) else changes_nothing


def start_message(transcript: Transcript, resolved: Mapping[str, Any]) -> dict[str, Any]:
    """The ``start`` request (without seq) for a transcript under a resolved profile."""
    return {
        "cmd": Command.START,
        "profile": _sent_profile(resolved),
        "options": resolved["option_values"],
        "seats": transcript.seats,
    }


def step_requests(
    transcript: Transcript,
    resolved: Mapping[str, Any],
    step: Step,
    start: Mapping[str, Any] | None = None,
) -> Sequence[Mapping[str, Any]] | None:
    """The requests ``step`` sends, in order, if every answer is as the transcript says;
    None for a raw step (its line depends on its seq). ``start``: the case's
    :func:`start_message`, when made already."""
    if step.kind == "check":
        return (STATE,)
    if step.kind == "legal":
        return (LEGAL,)
    if step.kind == "raw":
        return None
    if step.kind == "start":
        request: Mapping[str, Any] = start or start_message(transcript, resolved)
        if step.start_options is not None:
            request = {**request, "options": dict(step.start_options)}
        if step.start_seats is not None:
            request = {**request, "seats": step.start_seats}
    else:
        assert step.request is not None
        request = step.request
    if step.expect.error is not None:
        return (STATE, request, STATE)  # a refusal must leave the state as it was
    return (request,)


def planned_requests(
    transcript: Transcript,
    resolved: Mapping[str, Any],
    first_step: int,
    start: Mapping[str, Any] | None = None,
) -> Iterator[Mapping[str, Any]]:
    """The requests of the case from step ``first_step`` (0-based; 0 also sends the
    start, unless the transcript begins on a fresh engine) up to the first raw step.
    ``start``: the case's :func:`start_message`, when made already (the same object is
    then planned and sent: the client knows it as the next planned request by identity,
    without comparing a whole profile)."""
    if start is None:
        start = start_message(transcript, resolved)
    if first_step == 0 and not transcript.fresh_engine:
        yield start
    for step in transcript.steps[first_step:]:
        requests = step_requests(transcript, resolved, step, start)
        if requests is None:
            return
        yield from requests


__all__ = [
    "DECLARATION",
    "LEGAL",
    "STATE",
    "anything",
    "changes_nothing",
    "declared",
    "goes_ahead",
    "planned_requests",
    "start_message",
    "step_requests",
]
