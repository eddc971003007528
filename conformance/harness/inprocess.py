"""The reference engine answering in this process, with the client's interface.

:func:`.replay` needs only ``send``, ``send_raw``, ``next_seq`` and ``stderr_tail`` of an
:class:`.EngineClient`; :class:`ReferenceClient` offers those over a
:class:`reference_engine.server.Session`, so the harness can ask the reference what it
answers (to classify a transcript under a ruleset, or to derive the expectations of one)
without a subprocess. Answers go through a JSON round trip, as over the pipe, so that
nothing the engine keeps can be shared with, or changed through, an answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from jhyap_core.vocabulary import (
    PROTOCOL_VERSION,
    READ_ONLY,
    Command,
    ErrorCode,
    EventType,
    JhyapError,
)
from reference_engine.kept import Kept, NotPlain
from reference_engine.server import MAX_LINE_BYTES, Session, decode_request

from .client import EngineInfo, EngineTimeout, GoesAhead

# A float reads back as itself too: NaN and the infinities are written as JSON's extensions.
_SCALARS = frozenset({str, int, float, bool, type(None)})


def _plain(value: Any) -> Any:
    """``value`` as JSON would read it back after writing it: dicts with text keys, lists
    (a tuple becomes one) and scalars are copied in a walk, text of a str subclass (the
    vocabulary's StrEnum words: most requests name their command by one) as the plain text
    JSON writes of it; anything else raises."""
    cls = value.__class__
    if cls in _SCALARS:
        return value
    if cls is dict:
        copied = {}
        for key, item in value.items():
            if key.__class__ is not str:
                if not isinstance(key, str):
                    raise NotPlain
                key = str.__str__(key)  # its characters, whatever its own __str__ says
            copied[key] = _plain(item)
        return copied
    if cls is list or cls is tuple:
        return [_plain(item) for item in value]
    if isinstance(value, str):
        return str.__str__(value)
    raise NotPlain


def _copy(message: Mapping[str, Any]) -> dict[str, Any]:
    """A message through a JSON round trip, as over the pipe; for the plain data nearly
    every message is, a copy of the same result without the text in between (a start's
    profile is large: the round trip cost half of what the reference's start did)."""
    try:
        copied: dict[str, Any] = _plain(message)
    except (NotPlain, RecursionError):
        copied = json.loads(json.dumps(message))
    return copied


# The profiles of recent starts, each by the id of the mapping a caller sent, with the copy
# the engine was given: a run starts many tables with one resolved profile, and its copy
# was most of what an in-process start cost. Reused only for the same mapping, still equal
# to the copy (a comparison in C, far cheaper than the walk); the engine never edits it.
_PROFILES: Kept[tuple[Any, dict[str, Any]]] = Kept(8)


def _start_copy(message: Mapping[str, Any]) -> dict[str, Any]:
    """A start request as :func:`_copy` gives it, its profile's copy shared with the last
    starts of the same profile."""
    profile = message.get("profile")
    if profile.__class__ is not dict:
        return _copy(message)
    kept = _PROFILES.get(id(profile))
    if kept is not None and kept[0] is profile and profile == kept[1]:
        copied = kept[1]
    else:
        copied = _copy(profile)
        _PROFILES.put(id(profile), (profile, copied))  # the mapping held: its id stays its own
    request = _copy({key: value for key, value in message.items() if key != "profile"})
    request["profile"] = copied
    return request


class ReferenceClient:
    """A fresh reference engine, spoken to in this process (or ``session``'s engine, in the
    state it is in)."""

    def __init__(self, session: Session | None = None) -> None:
        self._session = session or Session()
        self._seq = 0
        self.awaiting: list[str] = []  # the cards of a reshuffle the game waits for

    @property
    def next_seq(self) -> int:
        return self._seq

    def handshake(self) -> EngineInfo:
        answer = self.send({"cmd": Command.HELLO, "protocol": PROTOCOL_VERSION})
        return EngineInfo(
            engine=answer.get("engine") or {},
            protocol=str(answer.get("protocol")),
            supports=answer.get("supports") or {},
            raw=answer,
        )

    def send(self, message: Mapping[str, Any], *, timeout: float | None = None) -> dict[str, Any]:
        seq = self._seq
        self._seq += 1
        request = {"seq": seq, **message}
        copied = _start_copy(request) if request.get("cmd") == Command.START else _copy(request)
        answer = _copy(self._session.handle(copied))
        self._follow(answer)
        return answer

    def _follow(self, answer: Mapping[str, Any]) -> None:
        """Track whether the game awaits a reshuffle, and of which cards."""
        if not answer.get("ok"):
            return
        for event in answer.get("events") or ():
            if event.get("type") == EventType.RESHUFFLE_NEEDED:
                self.awaiting = list(event.get("cards") or [])
            elif event.get("type") in (
                EventType.RESHUFFLED,
                EventType.ROUND_STARTED,
                EventType.ROUND_ENDED,
            ):
                self.awaiting = []

    def send_raw(self, line: bytes, *, timeout: float | None = None) -> dict[str, Any]:
        self._seq += 1
        if not line.strip():
            # The server answers no blank line; over the pipe the client would wait in vain.
            raise EngineTimeout("a blank line gets no answer", 0.0)
        if len(line) > MAX_LINE_BYTES:
            return {
                "seq": None,
                "ok": False,
                "error": {
                    "code": ErrorCode.BAD_REQUEST.value,
                    "message": f"request line longer than {MAX_LINE_BYTES} bytes",
                },
            }
        try:
            request = decode_request(line)
        except JhyapError as exc:
            return {
                "seq": None,
                "ok": False,
                "error": {"code": exc.code.value, "message": exc.message},
            }
        answer = _copy(self._session.handle(request))
        self._follow(answer)
        return answer

    def plan(
        self, upcoming: Iterator[Mapping[str, Any]], window: int, goes_ahead: GoesAhead
    ) -> None:
        """In this process each request is answered at once: nothing to send ahead."""

    @property
    def planning(self) -> bool:
        return False

    def settle(self) -> None:
        pass

    def stderr_mark(self) -> int:
        return 0

    def stderr_tail(self, lines: int | None = None, since: int = 0) -> list[str]:
        return []


def _reads_only(sent: object) -> bool:
    """Whether a logged request only reads the game (a state or legal request): it changes
    nothing, so a second pass may leave it out or ask it where the first did not."""
    return isinstance(sent, dict) and sent.get("cmd") in READ_ONLY


class RecordingClient(ReferenceClient):
    """A :class:`ReferenceClient` that keeps, in order, each request it was sent (a message
    without its seq, or a raw line) and the answer: a second pass over the same requests
    (:class:`FollowingClient`) is answered from them, as the engine, deterministic, would."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[tuple[Mapping[str, Any] | bytes, dict[str, Any]]] = []

    def send(self, message: Mapping[str, Any], *, timeout: float | None = None) -> dict[str, Any]:
        answer = super().send(message, timeout=timeout)
        self.log.append((message, answer))
        return answer

    def send_raw(self, line: bytes, *, timeout: float | None = None) -> dict[str, Any]:
        answer = super().send_raw(line, timeout=timeout)
        self.log.append((line, answer))
        return answer


class Diverged(Exception):
    """A :class:`FollowingClient` was asked what the recording cannot answer."""


class FollowingClient(ReferenceClient):
    """The reference engine of a :class:`RecordingClient`, asked the same requests again:
    while they are those of the log (the recording's reads left out where it read more),
    each is answered from it (with this client's seq); where the log ends, or has only reads
    left, the recording's engine, in the state those requests left it, answers on. Any
    other request raises :class:`Diverged`: the caller asks a fresh engine instead."""

    def __init__(self, recording: RecordingClient) -> None:
        super().__init__(recording._session)
        self._log = recording.log
        self._at = 0  # the next entry of the log
        self._live = False

    def _recorded(self, sent: Mapping[str, Any] | bytes) -> dict[str, Any] | None:
        log = self._log
        while self._at < len(log):
            logged, answer = log[self._at]
            self._at += 1
            if logged == sent:
                return answer
            if not _reads_only(logged):
                self._at = len(log) + 1  # a request the engine handled that this pass skips
                return None
        return None

    def _answer_from_log(self, sent: Mapping[str, Any] | bytes) -> dict[str, Any] | None:
        if self._live:
            return None
        found = self._recorded(sent)
        if found is not None:
            return found
        if self._at > len(self._log):
            raise Diverged
        self._live = True  # every request the engine handled was this pass's own
        return None

    def send(self, message: Mapping[str, Any], *, timeout: float | None = None) -> dict[str, Any]:
        found = self._answer_from_log(message)
        if found is None:
            return super().send(message, timeout=timeout)
        answer = {**found, "seq": self._seq}
        self._seq += 1
        self._follow(answer)
        return answer

    def send_raw(self, line: bytes, *, timeout: float | None = None) -> dict[str, Any]:
        found = self._answer_from_log(line)
        if found is None:
            return super().send_raw(line, timeout=timeout)
        self._seq += 1
        self._follow(found)  # the answer to a raw line is the line's own: its seq too
        return dict(found)


class ReferenceStandIn(ReferenceClient):
    """A :class:`ReferenceClient` made as an :class:`.EngineClient` is (its command and
    settings ignored), alive until closed: what a test or a benchmark puts in the runner's
    place of the engine client where the pipe is not what it checks or measures."""

    broken = None
    alive = True

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__()

    def close(self, *, graceful: bool = True) -> None:
        pass


__all__ = ["Diverged", "FollowingClient", "RecordingClient", "ReferenceClient", "ReferenceStandIn"]
