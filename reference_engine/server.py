"""The JSON-lines protocol server: a thin shell over :class:`Game` (docs/protocol.md)."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable
from typing import IO, Any

from . import bounded_json
from .actions import action_from_json
from .cards import parse_cards
from .errors import ErrorCode, JhyapError
from .game import Game
from .messages import clip_words

PROTOCOL_VERSION = "1.1"
ENGINE_VERSION = "0.1.0"
MAX_LINE_BYTES = 1 << 20
MAX_SEQ = (1 << 53) - 1  # the largest integer every JSON implementation holds exactly
COMMANDS = (
    "hello",
    "start",
    "deal",
    "act",
    "reshuffle",
    "set_option",
    "end_game",
    "state",
    "legal",
    "stop",
)

Response = dict[str, Any]


class Session:
    """One engine process: the handshake and at most one game at a time."""

    def __init__(self) -> None:
        self.game: Game | None = None
        self.greeted = False
        self.stopped = False
        self._handlers: dict[str, Callable[[dict[str, Any]], Response]] = {
            name: getattr(self, f"_cmd_{name}") for name in COMMANDS
        }

    def handle(self, request: Any) -> Response:
        seq = request_seq(request)
        try:
            if not isinstance(request, dict):
                raise JhyapError("a request must be a JSON object", ErrorCode.BAD_REQUEST)
            if seq is None:
                raise JhyapError(
                    f"'seq' must be an integer from 0 to {MAX_SEQ}", ErrorCode.BAD_REQUEST
                )
            command = request.get("cmd")
            if not isinstance(command, str):
                raise JhyapError("'cmd' must be a command name", ErrorCode.BAD_REQUEST)
            handler = self._handlers.get(command)
            if handler is None:
                raise JhyapError(f"unknown command {command!r}", ErrorCode.UNKNOWN_COMMAND)
            body = handler(request)
        except JhyapError as exc:
            return {
                "seq": seq,
                "ok": False,
                "error": {"code": exc.code.value, "message": clip_words(exc.message)},
            }
        except Exception as exc:  # the server keeps serving whatever a request does
            return {
                "seq": seq,
                "ok": False,
                "error": {"code": ErrorCode.INTERNAL_ERROR.value, "message": clip_words(repr(exc))},
            }
        return {"seq": seq, "ok": True, **body}

    def _game(self) -> Game:
        if self.game is None:
            raise JhyapError("no game: send 'start' first", ErrorCode.WRONG_PHASE)
        return self.game

    def _cmd_hello(self, request: dict[str, Any]) -> Response:
        wanted = request.get("protocol")
        if not isinstance(wanted, str) or not _VERSION.fullmatch(wanted):
            raise JhyapError("hello needs 'protocol', e.g. \"1.0\"", ErrorCode.BAD_REQUEST)
        if wanted.split(".")[0] != PROTOCOL_VERSION.split(".")[0]:
            raise JhyapError(
                f"this engine speaks protocol {PROTOCOL_VERSION}, not {wanted}",
                ErrorCode.UNSUPPORTED_PROTOCOL,
            )
        self.greeted = True
        return {
            "engine": {"name": "jhyap-reference", "version": ENGINE_VERSION, "language": "python"},
            "protocol": PROTOCOL_VERSION,
            "supports": {
                "commands": list(COMMANDS),
                "actions": ["call", "throw", "pick", "timeout"],
            },
        }

    def _cmd_start(self, request: dict[str, Any]) -> Response:
        profile, seats = _field(request, "profile", dict), _field(request, "seats", int)
        options = request.get("options", {})
        if not isinstance(options, dict) or not all(map(_is_scalar, options.values())):
            raise JhyapError("'options' must be an object of option values", ErrorCode.BAD_REQUEST)
        self.game = Game(profile, seats, options)
        return {"events": []}

    def _cmd_deal(self, request: dict[str, Any]) -> Response:
        order = parse_cards(_field(request, "deck", list))
        return {"events": self._game().deal(order)}

    def _cmd_act(self, request: dict[str, Any]) -> Response:
        # The arguments are checked before asking for a game (docs/protocol.md, the order
        # of checks: step 2 comes before step 3).
        seat = _field(request, "seat", int)
        action = action_from_json(_field(request, "action", dict))
        return {"events": self._game().act(seat, action)}

    def _cmd_reshuffle(self, request: dict[str, Any]) -> Response:
        order = parse_cards(_field(request, "order", list))
        return {"events": self._game().reshuffle(order)}

    def _cmd_set_option(self, request: dict[str, Any]) -> Response:
        name = _field(request, "name", str)
        if "value" not in request or not _is_scalar(request["value"]):
            raise JhyapError(
                "set_option needs a 'value': a string, number, boolean or null",
                ErrorCode.BAD_REQUEST,
            )
        return {"events": self._game().set_option(name, request["value"])}

    def _cmd_end_game(self, request: dict[str, Any]) -> Response:
        return {"events": self._game().end_game()}

    def _cmd_state(self, request: dict[str, Any]) -> Response:
        return {"state": self._game().state()}

    def _cmd_legal(self, request: dict[str, Any]) -> Response:
        legal = self._game().legal_actions()
        return {"legal": legal.to_json() if legal else None}

    def _cmd_stop(self, request: dict[str, Any]) -> Response:
        self.stopped = True
        return {}


_VERSION = re.compile(r"[0-9]+\.[0-9]+")


def request_seq(request: Any) -> int | None:
    """The ``seq`` a response echoes: the request's integer seq in 0..MAX_SEQ, else None."""
    seq = request.get("seq") if isinstance(request, dict) else None
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= MAX_SEQ:
        return None
    return seq


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


# What a request field of each type is called in messages, with its article.
_KIND_NAMES: dict[type, str] = {
    dict: "an object",
    list: "an array",
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "a boolean",
}


def kind_name(kind: type) -> str:
    """``kind`` as a message names a JSON value of it: ``an object``, ``a string``."""
    return _KIND_NAMES.get(kind, f"a {kind.__name__}")


def _field(request: dict[str, Any], name: str, kind: type) -> Any:
    value = request.get(name)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise JhyapError(f"'{name}' must be {kind_name(kind)}", ErrorCode.BAD_REQUEST)
    return value


class _LineTooLong(Exception):
    """A request line over MAX_LINE_BYTES; it has been read to its end and dropped."""


def _read_line(stream: IO[bytes]) -> bytes | None:
    """One line of at most MAX_LINE_BYTES, or None at end of input."""
    line = stream.readline(MAX_LINE_BYTES + 1)
    if not line:
        return None
    if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
        while chunk := stream.readline(MAX_LINE_BYTES):
            if chunk.endswith(b"\n"):
                break
        raise _LineTooLong
    return line


def decode_request(line: bytes) -> Any:
    """The request on ``line``, or a JhyapError(bad_request) explaining why it is none."""
    try:
        return bounded_json.loads(line)
    except bounded_json.JsonTooDeep as exc:
        raise JhyapError(f"request {exc}", ErrorCode.BAD_REQUEST) from None
    except (UnicodeDecodeError, ValueError) as exc:
        if "integer string conversion" in str(exc):  # Python's advice is not for clients
            limit = sys.get_int_max_str_digits()
            raise JhyapError(
                f"not JSON: an integer of more than {limit} digits", ErrorCode.BAD_REQUEST
            ) from None
        raise JhyapError(clip_words(f"not JSON: {exc}"), ErrorCode.BAD_REQUEST) from None


# Responses are trees of fresh dicts and lists: no cycle to look for.
_encode = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode


def _writer(stdout: IO[str] | None) -> Callable[[str], None]:
    """Writes one response line and sends it at once: to ``stdout``, or straight to the
    standard output's descriptor (no text layer and no flush between the two)."""
    if stdout is not None:

        def write_text(line: str) -> None:
            stdout.write(line)
            stdout.flush()

        return write_text
    sys.stdout.flush()
    fd = sys.stdout.fileno()

    def write_bytes(line: str) -> None:
        data = memoryview(line.encode())
        while data:
            data = data[os.write(fd, data) :]

    return write_bytes


def serve(stdin: IO[bytes] | None = None, stdout: IO[str] | None = None) -> int:
    """Answer requests until 'stop' or end of input; stdout carries responses only."""
    source = stdin if stdin is not None else sys.stdin.buffer
    write = _writer(stdout)
    session = Session()
    while not session.stopped:
        try:
            line = _read_line(source)
            if line is None:
                break
            if not line.strip():
                continue
            response = session.handle(decode_request(line))
        except _LineTooLong:
            response = {
                "seq": None,
                "ok": False,
                "error": {
                    "code": ErrorCode.BAD_REQUEST.value,
                    "message": f"request line longer than {MAX_LINE_BYTES} bytes",
                },
            }
        except JhyapError as exc:
            response = {
                "seq": None,
                "ok": False,
                "error": {"code": exc.code.value, "message": clip_words(exc.message)},
            }
        write(_encode(response) + "\n")
    return 0


def main() -> int:
    try:
        return serve()
    except (BrokenPipeError, KeyboardInterrupt):
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
