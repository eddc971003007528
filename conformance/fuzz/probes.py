"""Raw-line probes: lines that are no well-formed request, and what the protocol answers.

Each is one of :data:`RAW_PROBES`, written as a transcript's ``raw`` step is
(``{"text": ...}`` or ``{"json": ...}``); a JSON object without ``seq`` gets the client's
seq at send time (``add_seq: false`` sends it without one).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from ..spec.json_types import Json
from .plan import Request, encode


@dataclass(frozen=True)
class RawProbe:
    """A kind of malformed line: the raw step that sends it, what docs/protocol.md says
    the answer is, and the protocol clauses it tests."""

    kind: str
    spec: Mapping[str, Json]  # {"text": ...} or {"json": ..., "add_seq"?: false}
    error: str | None  # the error code; None: accepted
    seq: str  # "null", "echoed" (the client's seq) or "own" (the line's own valid seq)
    clauses: tuple[str, ...]


_NOT_JSON = ("protocol.transport.not-json", "protocol.seq.null")
_NOT_OBJECT = ("protocol.transport.not-object", "protocol.seq.null")
_SEQ_NULL = ("protocol.seq.null",)
_COMMAND = ("protocol.order-of-checks.command", "protocol.seq.echo")
_ARGUMENTS = ("protocol.order-of-checks.arguments", "protocol.seq.echo")
_BAD, _CARD = "bad_request", "invalid_card"


def _probe(
    kind: str, spec: Mapping[str, Json], error: str | None, seq: str, clauses: tuple[str, ...]
) -> RawProbe:
    return RawProbe(kind, spec, error, seq, clauses)


RAW_PROBES: Final = {
    p.kind: p
    for p in (
        # The line: not JSON, not an object (seq null whatever the line held).
        _probe("not-json", {"text": "this is not json"}, _BAD, "null", _NOT_JSON),
        _probe("truncated-json", {"text": '{"seq":3,"cmd":"state"'}, _BAD, "null", _NOT_JSON),
        _probe("seq-nan", {"text": '{"seq":NaN,"cmd":"state"}'}, _BAD, "null", _NOT_JSON),
        _probe("json-array", {"json": [1, 2, 3]}, _BAD, "null", _NOT_OBJECT),
        _probe("json-string", {"json": "a string"}, _BAD, "null", _NOT_OBJECT),
        _probe("json-number", {"json": 42}, _BAD, "null", _NOT_OBJECT),
        _probe("json-null", {"json": None}, _BAD, "null", _NOT_OBJECT),
        # An array 1,000 levels deep: not an object whatever the engine's depth limit.
        _probe("deep-array", {"text": "[" * 1000 + "]" * 1000}, _BAD, "null", _NOT_OBJECT),
        # The seq: missing or no integer of 0 to 2^53 - 1.
        _probe("no-seq", {"json": {"cmd": "state"}, "add_seq": False}, _BAD, "null", _SEQ_NULL),
        _probe("seq-string", {"json": {"seq": "7", "cmd": "state"}}, _BAD, "null", _SEQ_NULL),
        _probe("seq-bool", {"json": {"seq": True, "cmd": "state"}}, _BAD, "null", _SEQ_NULL),
        _probe("seq-fraction", {"json": {"seq": 2.5, "cmd": "state"}}, _BAD, "null", _SEQ_NULL),
        _probe("seq-negative", {"json": {"seq": -1, "cmd": "state"}}, _BAD, "null", _SEQ_NULL),
        _probe("seq-null", {"json": {"seq": None, "cmd": "state"}}, _BAD, "null", _SEQ_NULL),
        _probe(
            "seq-too-large",
            {"json": {"seq": 9007199254740992, "cmd": "state"}},
            _BAD,
            "null",
            _SEQ_NULL,
        ),
        # 2^53 - 1 is a seq: echoed; a one-card deal is wrong_phase in a hand, else
        # invalid_deck.
        _probe(
            "seq-largest",
            {"json": {"seq": 9007199254740991, "cmd": "deal", "deck": ["Ac"]}},
            "wrong_phase or invalid_deck",
            "own",
            ("protocol.seq.echo", "protocol.order-of-checks.deal"),
        ),
        # The command: missing, not a string, naming no command (case-sensitive).
        _probe("no-cmd", {"json": {}}, _BAD, "echoed", _COMMAND),
        _probe("cmd-not-string", {"json": {"cmd": 7}}, _BAD, "echoed", _COMMAND),
        _probe("unknown-cmd", {"json": {"cmd": "shuffle"}}, "unknown_command", "echoed", _COMMAND),
        _probe("cmd-wrong-case", {"json": {"cmd": "STATE"}}, "unknown_command", "echoed", _COMMAND),
        # Fields the engine does not know are ignored: a state request, accepted.
        _probe(
            "extra-fields",
            {"json": {"cmd": "state", "colour": "blue", "x-trace": "abc"}},
            None,
            "echoed",
            ("protocol.messages.request-extra-fields", "protocol.seq.echo"),
        ),
        # The arguments, checked before the phase and the seat.
        _probe(
            "seat-string",
            {"json": {"cmd": "act", "seat": "0", "action": {"type": "call"}}},
            _BAD,
            "echoed",
            _ARGUMENTS,
        ),
        _probe(
            "action-no-type",
            {"json": {"cmd": "act", "seat": 0, "action": {}}},
            _BAD,
            "echoed",
            _ARGUMENTS,
        ),
        _probe(
            "pick-no-from",
            {"json": {"cmd": "act", "seat": 0, "action": {"type": "pick"}}},
            _BAD,
            "echoed",
            _ARGUMENTS,
        ),
        _probe(
            "card-not-string",
            {"json": {"cmd": "act", "seat": 0, "action": {"type": "throw", "cards": [5]}}},
            _BAD,
            "echoed",
            _ARGUMENTS,
        ),
        _probe(
            "deck-not-list", {"json": {"cmd": "deal", "deck": "Ac"}}, _BAD, "echoed", _ARGUMENTS
        ),
        _probe(
            "option-value-array",
            {"json": {"cmd": "set_option", "name": "call_limit", "value": [10]}},
            _BAD,
            "echoed",
            _ARGUMENTS,
        ),
        _probe(
            "no-card-thrown",
            {"json": {"cmd": "act", "seat": 0, "action": {"type": "throw", "cards": ["Xx"]}}},
            _CARD,
            "echoed",
            _ARGUMENTS,
        ),
        _probe(
            "no-card-picked",
            {
                "json": {
                    "cmd": "act",
                    "seat": 0,
                    "action": {"type": "pick", "from": "offer", "card": "1x"},
                }
            },
            _CARD,
            "echoed",
            _ARGUMENTS,
        ),
        _probe(
            "no-card-dealt",
            {"json": {"cmd": "deal", "deck": ["Ac", "Xx"]}},
            _CARD,
            "echoed",
            _ARGUMENTS,
        ),
        _probe(
            "no-card-reshuffled",
            {"json": {"cmd": "reshuffle", "order": ["Zz"]}},
            _CARD,
            "echoed",
            _ARGUMENTS,
        ),
    )
}
RAW_KINDS: Final = tuple(RAW_PROBES)


def raw_request(kind: str) -> Request:
    """The raw-line probe of ``kind`` (one of :data:`RAW_PROBES`)."""
    probe = RAW_PROBES[kind]
    message = {"cmd": "raw", "kind": kind}
    return Request(message, encode({"raw": probe.spec}), probe.error is not None, probe.spec)
