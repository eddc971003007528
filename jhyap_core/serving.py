"""The engine side of the JSON-lines protocol, without any game rule (docs/protocol.md).

:func:`serve` reads request lines (at most 1 MiB, JSON nested at most 64 levels), and a
:class:`Session` answers each: it checks the line and the ``seq`` (steps 1 of the order of
checks), the command's arguments and card names (step 2), that a game is open (step 3),
then hands typed arguments to a :class:`Backend`, which checks the rest (steps 4 to 9) and
plays. ``hello`` and ``stop`` are answered here. Every refusal is an error response with
the protocol's stable code; a backend refuses by raising :class:`~jhyap_core.messages.Refused`
(or any ``JhyapError``).

The reference engine's server (``jhyap engine``) is this module over its ``Game``; a kit
engine is this module over a :class:`~jhyap_kit.engine.TrackedEngine`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any, Final, Protocol

from . import bounded_json
from .cards import parse_card
from .json_types import Json
from .messages import (
    Action,
    Call,
    DealLayout,
    EngineInfo,
    Pick,
    Refused,
    Slapdown,
    Throw,
    Timeout,
)
from .text import clip_words
from .vocabulary import COMMANDS, PROTOCOL_VERSION, READ_ONLY, ErrorCode, JhyapError, PickSource

MAX_LINE_BYTES: Final = 1 << 20
MAX_SEQ: Final = (1 << 53) - 1  # the largest integer every JSON implementation holds exactly

Event = dict[str, Any]
Response = dict[str, Any]


class Backend(Protocol):
    """What a :class:`Session` drives: one table, checked from step 4 of the order of checks.

    Cards arrive as checked names; every method raises Refused (or JhyapError) to refuse,
    changing nothing.
    """

    def start(self, profile: Mapping[str, Json], options: Mapping[str, Json], seats: int) -> None:
        """Open a table (replacing any); refused leaves the open one as it was."""

    def deal(self, deck: Sequence[str], layout: DealLayout | None) -> list[Event]: ...

    def act(self, seat: int, action: Action) -> list[Event]: ...

    def reshuffle(self, order: Sequence[str]) -> list[Event]: ...

    def set_option(self, name: str, value: Json) -> list[Event]: ...

    def end_game(self) -> list[Event]: ...

    def state(self) -> dict[str, Any]: ...

    def legal(self) -> dict[str, Any] | None: ...


def request_seq(request: Any) -> int | None:
    """The ``seq`` a response echoes: the request's integer seq in 0..MAX_SEQ, else None."""
    seq = request.get("seq") if isinstance(request, dict) else None
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= MAX_SEQ:
        return None
    return seq


def error_response(seq: int | None, code: ErrorCode | str, message: str) -> Response:
    return {"seq": seq, "ok": False, "error": {"code": str(code), "message": clip_words(message)}}


class Session:
    """One engine process: the handshake and at most one table at a time."""

    def __init__(self, backend: Backend, info: EngineInfo) -> None:
        self.backend = backend
        self.info = info
        self.started = False  # a start has succeeded: step 3 of the order of checks
        self.stopped = False
        self._handlers: dict[str, Callable[[dict[str, Any]], Response]] = {
            name: getattr(self, f"_cmd_{name}") for name in COMMANDS
        }
        # The backend's state and legal actions, asked again only after another request:
        # only requests change a game (a refused one too, if the backend is wrong).
        self._read: dict[str, Any] = {}

    def handle(self, request: Any) -> Response:
        """The response to one decoded request line."""
        seq = request_seq(request)
        if not isinstance(request, dict) or request.get("cmd") not in READ_ONLY:
            self._read.clear()
        try:
            if not isinstance(request, dict):
                raise Refused(ErrorCode.BAD_REQUEST, "a request must be a JSON object")
            if seq is None:
                raise Refused(
                    ErrorCode.BAD_REQUEST, f"'seq' must be an integer from 0 to {MAX_SEQ}"
                )
            command = request.get("cmd")
            if not isinstance(command, str):
                raise Refused(ErrorCode.BAD_REQUEST, "'cmd' must be a command name")
            handler = self._handlers.get(command)
            if handler is None:
                raise Refused(ErrorCode.UNKNOWN_COMMAND, f"unknown command {command!r}")
            body = handler(request)
        except JhyapError as exc:  # Refused is one
            return error_response(seq, exc.code, exc.message)
        except Exception as exc:  # the engine keeps serving whatever a request does
            return error_response(seq, ErrorCode.INTERNAL_ERROR, repr(exc))
        return {"seq": seq, "ok": True, **body}

    def _open(self) -> Backend:
        if not self.started:
            raise Refused(ErrorCode.WRONG_PHASE, "no game: send 'start' first")
        return self.backend

    def _cmd_hello(self, request: dict[str, Any]) -> Response:
        wanted = request.get("protocol")
        if not isinstance(wanted, str) or not _VERSION.fullmatch(wanted):
            raise Refused(ErrorCode.BAD_REQUEST, "hello needs 'protocol', e.g. \"1.0\"")
        if wanted.split(".")[0] != PROTOCOL_VERSION.split(".")[0]:
            raise Refused(
                ErrorCode.UNSUPPORTED_PROTOCOL,
                f"this engine speaks protocol {PROTOCOL_VERSION}, not {wanted}",
            )
        info = self.info
        return {
            "engine": {"name": info.name, "version": info.version, "language": info.language},
            "protocol": PROTOCOL_VERSION,
            "supports": info.supports(),
        }

    def _cmd_start(self, request: dict[str, Any]) -> Response:
        profile, seats = field_of(request, "profile", dict), field_of(request, "seats", int)
        options = request.get("options", {})
        if not isinstance(options, dict) or not all(map(is_scalar, options.values())):
            raise Refused(ErrorCode.BAD_REQUEST, "'options' must be an object of option values")
        self.backend.start(profile, options, seats)
        self.started = True
        return {"events": []}

    def _cmd_deal(self, request: dict[str, Any]) -> Response:
        deck = card_names(field_of(request, "deck", list))
        layout = deal_layout(request)
        return {"events": self._open().deal(deck, layout)}

    def _cmd_act(self, request: dict[str, Any]) -> Response:
        # The arguments are checked before asking for a game (step 2 comes before step 3).
        seat = field_of(request, "seat", int)
        action = action_of(field_of(request, "action", dict))
        return {"events": self._open().act(seat, action)}

    def _cmd_reshuffle(self, request: dict[str, Any]) -> Response:
        order = card_names(field_of(request, "order", list))
        return {"events": self._open().reshuffle(order)}

    def _cmd_set_option(self, request: dict[str, Any]) -> Response:
        name = field_of(request, "name", str)
        if "value" not in request or not is_scalar(request["value"]):
            raise Refused(
                ErrorCode.BAD_REQUEST,
                "set_option needs a 'value': a string, number, boolean or null",
            )
        return {"events": self._open().set_option(name, request["value"])}

    def _cmd_end_game(self, request: dict[str, Any]) -> Response:
        return {"events": self._open().end_game()}

    def _cmd_state(self, request: dict[str, Any]) -> Response:
        if "state" not in self._read:
            self._read["state"] = self._open().state()
        return {"state": self._read["state"]}

    def _cmd_legal(self, request: dict[str, Any]) -> Response:
        if "legal" not in self._read:
            self._read["legal"] = self._open().legal()
        return {"legal": self._read["legal"]}

    def _cmd_stop(self, request: dict[str, Any]) -> Response:
        self.stopped = True
        return {}


_VERSION = re.compile(r"[0-9]+\.[0-9]+")


def is_scalar(value: Any) -> bool:
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


def field_of(request: Mapping[str, Any], name: str, kind: type) -> Any:
    """``request[name]`` when it is a ``kind`` (a boolean is no integer), else bad_request."""
    value = request.get(name)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise Refused(ErrorCode.BAD_REQUEST, f"'{name}' must be {kind_name(kind)}")
    return value


def card_name(item: object) -> str:
    """``item`` when it names a card, else invalid_card."""
    return parse_card(item).name


def card_names(items: object) -> tuple[str, ...]:
    """The card names of ``items``: bad_request unless a list of strings, then invalid_card."""
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise Refused(ErrorCode.BAD_REQUEST, "cards must be a list of card names")
    return tuple(card_name(item) for item in items)


def action_of(data: Mapping[str, Any]) -> Action:
    """The action of an ``act`` request: bad_request when malformed, invalid_card for a name."""
    kind = data.get("type")
    if kind == "call":
        return Call()
    if kind == "throw":
        if "cards" not in data:
            raise Refused(ErrorCode.BAD_REQUEST, "throw action needs 'cards'")
        return Throw(card_names(data["cards"]))
    if kind == "pick":
        source = data.get("from")
        if source == "deck":
            return Pick(PickSource.DECK)
        if source == "offer":
            if not isinstance(data.get("card"), str):
                raise Refused(ErrorCode.BAD_REQUEST, "pick from the offer needs 'card'")
            return Pick(PickSource.OFFER, card_name(data["card"]))
        raise Refused(ErrorCode.BAD_REQUEST, "pick action needs 'from': 'deck' or 'offer'")
    if kind == "timeout":
        return Timeout()
    if kind == "slapdown":
        if not isinstance(data.get("card"), str):
            raise Refused(ErrorCode.BAD_REQUEST, "slapdown action needs 'card'")
        return Slapdown(card_name(data["card"]))
    raise Refused(
        ErrorCode.BAD_REQUEST,
        f"unknown action type {kind!r}; expected call, throw, pick, timeout or slapdown",
    )


def deal_layout(request: Mapping[str, Any]) -> DealLayout | None:
    """The deal's layout (protocol 1.1: ``hands``, ``turned_up``, ``stock``), or None when
    the request carries none. Each field is checked as an argument (step 2)."""
    if "hands" not in request:
        return None
    hands = request["hands"]
    if not isinstance(hands, list) or not all(isinstance(hand, list) for hand in hands):
        raise Refused(ErrorCode.BAD_REQUEST, "'hands' must be an array of card arrays")
    # null: no card turned up (deal.first_offer none); the key itself is still required.
    turned_up = request.get("turned_up")
    if turned_up is not None or "turned_up" not in request:
        turned_up = card_name(field_of(request, "turned_up", str))
    return DealLayout(
        hands=tuple(card_names(hand) for hand in hands),
        turned_up=turned_up,
        stock=card_names(field_of(request, "stock", list)),
    )


class _LineTooLong(Exception):
    """A request line over MAX_LINE_BYTES; it has been read to its end and dropped."""


def read_line(stream: IO[bytes]) -> bytes | None:
    """One line of at most MAX_LINE_BYTES, or None at end of input; _LineTooLong (after
    reading the line to its end) for a longer one."""
    line = stream.readline(MAX_LINE_BYTES + 1)
    if not line:
        return None
    if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
        while chunk := stream.readline(MAX_LINE_BYTES):
            if chunk.endswith(b"\n"):
                break
        raise _LineTooLong
    return line


@dataclass
class StreamLines:
    """Request lines of a binary stream, each answered as soon as it is read."""

    stream: IO[bytes]

    def next_line(self) -> bytes | None:
        """The next line (as :func:`read_line` gives it), or None at end of input."""
        return read_line(self.stream)

    def waiting(self) -> bool:
        """Another whole line has already been read (never, here: each is read alone)."""
        return False


class DescriptorLines:
    """Request lines read from a file descriptor a chunk at a time (one system call for
    all the lines a harness wrote at once)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buffer = bytearray()
        self._searched = 0  # bytes of the buffer known to hold no newline
        self._eof = False

    def _newline(self) -> int:
        at = self._buffer.find(b"\n", self._searched)
        self._searched = len(self._buffer) if at < 0 else at
        return at

    def waiting(self) -> bool:
        """Another whole line has already been read: it can be answered before anything
        is written (the answers to pipelined requests go out together)."""
        return self._newline() >= 0

    def _fill(self) -> bool:
        """Read one chunk; False at end of input."""
        if not self._eof:
            chunk = os.read(self.fd, 1 << 16)
            if chunk:
                self._buffer += chunk
                return True
            self._eof = True
        return False

    def next_line(self) -> bytes | None:
        while (at := self._newline()) < 0:
            if len(self._buffer) > MAX_LINE_BYTES:
                self._skip_line()
                raise _LineTooLong
            if not self._fill():
                line = bytes(self._buffer)
                self._buffer.clear()
                self._searched = 0
                return line or None  # a last line without its newline
        line = bytes(self._buffer[: at + 1])
        del self._buffer[: at + 1]
        self._searched = 0
        if len(line) > MAX_LINE_BYTES + 1:
            raise _LineTooLong
        return line

    def _skip_line(self) -> None:
        """Drop the rest of an over-long line, up to its newline or the end of input."""
        while (at := self._newline()) < 0:
            self._buffer.clear()
            self._searched = 0
            if not self._fill():
                return
        del self._buffer[: at + 1]
        self._searched = 0


def decode_request(line: bytes) -> Any:
    """The request on ``line``, or Refused(bad_request) explaining why it is none."""
    try:
        return bounded_json.loads(line)
    except bounded_json.JsonTooDeep as exc:
        raise Refused(ErrorCode.BAD_REQUEST, f"request {exc}") from None
    except (UnicodeDecodeError, ValueError) as exc:
        if "integer string conversion" in str(exc):  # Python's advice is not for clients
            limit = sys.get_int_max_str_digits()
            raise Refused(
                ErrorCode.BAD_REQUEST, f"not JSON: an integer of more than {limit} digits"
            ) from None
        raise Refused(ErrorCode.BAD_REQUEST, clip_words(f"not JSON: {exc}")) from None


# Responses are trees of fresh dicts and lists: no cycle to look for.
_encode = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode


def _writer(stdout: IO[str] | None) -> Callable[[str], None]:
    """Writes response lines and sends them at once: to ``stdout``, or straight to the
    standard output's descriptor (no text layer, and nothing an engine prints)."""
    if stdout is not None:

        def write_text(text: str) -> None:
            stdout.write(text)
            stdout.flush()

        return write_text
    sys.stdout.flush()
    fd = sys.stdout.fileno()

    def write_bytes(text: str) -> None:
        data = memoryview(text.encode())
        while data:
            data = data[os.write(fd, data) :]

    return write_bytes


def responses(
    session: Session,
    source: IO[bytes] | StreamLines | DescriptorLines,
    decode: Callable[[bytes], Any] = decode_request,
) -> Iterator[Response]:
    """The response to each request line of ``source``, until ``stop`` or end of input;
    ``decode`` turns a line into a request (raising Refused when it holds none)."""
    lines = source if isinstance(source, StreamLines | DescriptorLines) else StreamLines(source)
    while not session.stopped:
        try:
            line = lines.next_line()
            if line is None:
                return
            if not line.strip():
                continue
            response = session.handle(decode(line))
        except _LineTooLong:
            response = error_response(
                None, ErrorCode.BAD_REQUEST, f"request line longer than {MAX_LINE_BYTES} bytes"
            )
        except JhyapError as exc:
            response = error_response(None, exc.code, exc.message)
        yield response


def serve(
    session: Session,
    stdin: IO[bytes] | None = None,
    stdout: IO[str] | None = None,
    *,
    quiet_prints: bool = True,
    decode: Callable[[bytes], Any] = decode_request,
) -> int:
    """Answer requests until ``stop`` or end of input; exit status 0.

    Standard output carries responses only: with ``quiet_prints`` (the default) whatever
    the engine prints goes to standard error instead, so an engine written with ``print``
    can be served as it is. On the process's own standard input, the answers to lines
    that arrived together (a harness pipelines its requests) are written together.
    """
    lines: StreamLines | DescriptorLines = (
        StreamLines(stdin) if stdin is not None else DescriptorLines(sys.stdin.fileno())
    )
    write = _writer(stdout)
    redirect = contextlib.redirect_stdout(sys.stderr) if quiet_prints else contextlib.nullcontext()
    answered: list[str] = []
    with redirect:
        try:
            for response in responses(session, lines, decode):
                answered.append(_encode(response) + "\n")
                if not lines.waiting():
                    write("".join(answered))
                    answered.clear()
        finally:
            if answered:  # after stop, or when a request broke the loop
                write("".join(answered))
    return 0


def run(session: Session) -> int:
    """:func:`serve` on the process's standard input and output, for a ``main``."""
    try:
        return serve(session)
    except (BrokenPipeError, KeyboardInterrupt):
        return 0
