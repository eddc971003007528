"""What an engine answers: the errors of a connection, the ``hello`` info, and the checks
every response line passes (UTF-8, bounded JSON, an object, ``ok``/``error``, its seq)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from jhyap_core import bounded_json
from jhyap_core.vocabulary import ErrorCode


class EngineError(Exception):
    """Something went wrong with the engine process or its answers."""


class EngineUnusable(EngineError):
    """The engine cannot be run at all: not found, not executable, or no handshake."""


class EngineCrashed(EngineError):
    """The engine exited (or closed its standard output) while an answer was due."""

    def __init__(self, message: str, returncode: int | None, stderr_tail: Sequence[str]) -> None:
        super().__init__(message)
        self.returncode = returncode
        self.stderr_tail = list(stderr_tail)


class EngineTimeout(EngineError):
    """The engine did not answer a request within the timeout."""

    def __init__(self, message: str, timeout: float) -> None:
        super().__init__(message)
        self.timeout = timeout


class ProtocolViolation(EngineError):
    """The engine answered something that is not a protocol response to the request."""

    def __init__(self, reason: str, line: str | None = None) -> None:
        super().__init__(reason if line is None else f"{reason}: {line}")
        self.reason = reason
        self.line = line


@dataclass(frozen=True)
class EngineInfo:
    """What the engine said about itself in its ``hello`` answer."""

    engine: Mapping[str, Any]
    protocol: str
    supports: Mapping[str, Any]
    raw: Mapping[str, Any] = field(default_factory=dict)

    def supports_command(self, name: str) -> bool:
        commands = self.supports.get("commands")
        return isinstance(commands, list) and name in commands

    def supports_action(self, name: str) -> bool:
        actions = self.supports.get("actions")
        return isinstance(actions, list) and name in actions

    def describe(self) -> str:
        name = self.engine.get("name", "?")
        version = self.engine.get("version", "?")
        return f"{name} {version} (protocol {self.protocol})"


def engine_info(response: Mapping[str, Any], protocol: str) -> EngineInfo:
    """The engine's answer to ``hello`` (asked in ``protocol``) as :class:`EngineInfo`, or
    EngineUnusable saying why the harness cannot go on with it."""
    wanted_major = protocol.split(".")[0]
    if not response["ok"]:
        error = response["error"]
        if error["code"] == ErrorCode.UNSUPPORTED_PROTOCOL:
            raise EngineUnusable(
                f"the engine does not speak protocol {protocol} (the harness speaks "
                f"{protocol}): {error['message']}"
            )
        raise EngineUnusable(f"the engine refused hello: {error['code']}: {error['message']}")
    version = response.get("protocol")
    if not isinstance(version, str) or version.split(".")[0] != wanted_major:
        raise EngineUnusable(
            f"the engine speaks protocol {version}, the harness speaks {protocol}: "
            f"the major versions must match"
        )
    engine = response.get("engine")
    supports = response.get("supports")
    return EngineInfo(
        engine=engine if isinstance(engine, dict) else {},
        protocol=version,
        supports=supports if isinstance(supports, dict) else {},
        raw=response,
    )


# What a line the engine wrote unasked is reported as, whoever finds it: the client before it
# writes the next request, or the decoding of an answer that repeats an earlier seq.
EXTRA_LINE_BEFORE_FIRST: Final = "unrequested extra line before the first request"
EXTRA_LINE_AFTER: Final = "unrequested extra line after the previous response"


def shorten(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def decode_response(raw: bytes, seq: int, *, check_seq: bool = True) -> dict[str, Any]:
    """The response object on ``raw``, the line answering request ``seq``; ProtocolViolation
    when it is none (not UTF-8, not JSON, too deep, no ok/error structure, another seq)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        shown = shorten(raw.decode("utf-8", "replace"))
        raise ProtocolViolation(f"response is not UTF-8 ({exc.reason})", shown) from None
    try:
        response: object = _loads(text, raw)
    except bounded_json.JsonTooDeep as exc:
        raise ProtocolViolation(f"response {exc}", shorten(text)) from None
    except ValueError:
        raise ProtocolViolation("response is not JSON", shorten(text)) from None
    if not isinstance(response, dict):
        raise ProtocolViolation("response is not a JSON object", shorten(text))
    if check_seq:
        _check_seq(response.get("seq"), seq, text)
    ok = response.get("ok")
    if ok is True:
        return response
    error = response.get("error")
    if (
        ok is False
        and isinstance(error, dict)
        and isinstance(error.get("code"), str)
        and isinstance(error.get("message"), str)
    ):
        return response
    raise ProtocolViolation(
        'missing ok/error structure (need "ok": true, or "ok": false with '
        '"error": {"code", "message"})',
        shorten(text),
    )


# 19 digits in a row may be an integer beyond 64 bits, which orjson reads as a float.
# Looked for in the UTF-8 bytes, each ASCII digit made "0" and every other byte " " (a
# byte of a character beyond ASCII is never one of a digit): a few times faster than a
# regular expression over the text.
_LONG_DIGITS: Final = b"0" * 19
_DIGITS_ONLY: Final = bytes(48 if 48 <= byte <= 57 else 32 for byte in range(256))


def _loads(text: str, raw: bytes | None = None) -> Any:
    """``bounded_json.loads(text)``, found by orjson (a few times faster) where it reads
    the text as :mod:`json` does: what orjson refuses (NaN, a lone surrogate, ...) and
    what it would read otherwise (an integer beyond 64 bits) is :mod:`json`'s to decide.
    ``raw``: the text's UTF-8 bytes, when at hand."""
    if raw is None:
        raw = text.encode("utf-8", "surrogatepass")
    if _LONG_DIGITS in raw.translate(_DIGITS_ONLY):
        return bounded_json.loads(text)
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return bounded_json.loads(text)
    limit = bounded_json.MAX_DEPTH
    if text.count("[") + text.count("{") > limit and bounded_json.depth_exceeds(value, limit):
        raise bounded_json.JsonTooDeep(limit)
    return value


def _check_seq(got: object, seq: int, text: str) -> None:
    if got.__class__ is int and got == seq:
        return  # the usual answer: the seq asked for
    if isinstance(got, int) and not isinstance(got, bool) and 0 <= got < seq:
        # An earlier request was answered already: this line is one too many. Said as the
        # client says it of a line found before it writes the next request: whether the line
        # came before or after that request was written (sent ahead) changes nothing.
        raise ProtocolViolation(EXTRA_LINE_AFTER, shorten(text))
    if got != seq or isinstance(got, bool):
        raise ProtocolViolation(f"wrong seq: expected {seq}, got {json.dumps(got)}", shorten(text))
