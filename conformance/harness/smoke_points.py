"""The protocol points ``jhyap smoke`` checks after its hand: where an adapter written to an
earlier release goes wrong (docs/versions.md lists each change).

Each :class:`Point` is a few requests, sent to the engine and to the reference engine in
this process; the point passes when the engine answers as the reference does where the
point looks (acceptance and error code, the answer's ``seq``, a state field, the legal
actions). It is **not checked** when the engine declines the table the point needs
(``unsupported_*``), does not report the state field it reads, or lists no ``legal``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from jhyap_core.profile import resolve
from jhyap_core.vocabulary import Command

from ..spec.json_types import Json
from ..spec.profile_schema import sent_profile
from ..spec.transcript_profiles import shipped_documents
from .inprocess import ReferenceClient
from .replay import SKIP_CODES
from .smoke_plan import DEAL, FIXED, SEATS

MAX_SEQ: Final = 2**53 - 1


class Verdict(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    NOT_CHECKED = "not checked"


@dataclass(frozen=True)
class Probe:
    """One request and what of its answer the point compares: ``answer`` (accepted, or the
    error code), ``seq`` (also the answer's seq, for a raw line), ``legal`` (the whole
    answer) or ``state.<field>[.<key>]``. An answer declining the table (``unsupported_*``)
    where the reference's differs makes the point not checked."""

    doing: str
    message: Mapping[str, Json] | None = None
    raw: bytes | None = None
    compare: str = "answer"


@dataclass(frozen=True)
class Point:
    name: str
    where: str  # where docs/protocol.md states it: a protocol clause id, else its section
    what: str  # what an engine that passes does, in words
    probes: tuple[Probe, ...]


@dataclass(frozen=True)
class PointResult:
    name: str
    verdict: Verdict
    text: str


def _start(profile: str, options: Mapping[str, Json] | None = None, **extra: Json) -> Json:
    """A start of a two-seat table of a shipped profile: its resolved defaults, with
    ``options`` as start.options (which win over the profile's rules)."""
    resolved = resolve(shipped_documents()[profile])
    message = {
        "cmd": Command.START,
        "profile": sent_profile(resolved),
        "options": {**resolved["option_values"], **(options or {})},
        "seats": SEATS,
    }
    return {**message, **extra}


def _with_unknown_parameter() -> Json:
    message = _start("dhumbal")
    profile = copy.deepcopy(message["profile"])
    profile["rules"]["call"]["limit_after_turns"] = 2  # no such parameter (yet)
    return {**message, "profile": profile}


def _line(seq: int) -> bytes:
    """A line whose answer depends on its seq alone: unknown_command for a valid seq."""
    return json.dumps({"seq": seq, "cmd": "no_such_command"}).encode("utf-8")


def points() -> tuple[Point, ...]:
    """Every point, in the order smoke checks and prints them."""
    state = {"cmd": Command.STATE}
    return (
        Point(
            "range-max-null",
            "protocol.options.range-no-max",
            "an option range with max null takes any value from its min, by its step",
            (
                Probe("a dashain table with call_limit 25", _start("dashain", {"call_limit": 25})),
                Probe("state's options after it", state, compare="state.options.call_limit"),
                Probe(
                    "set_option call_limit 1000 (the range has no max)",
                    {"cmd": Command.SET_OPTION, "name": "call_limit", "value": 1000},
                ),
            ),
        ),
        Point(
            "sets-list",
            "protocol.options.sets-list",
            "an option whose sets is a list sets each parameter from its map",
            (
                Probe(
                    "a jhyap-jacks-zero table with picture_cards eleven_to_thirteen",
                    _start("jhyap-jacks-zero", {"picture_cards": "eleven_to_thirteen"}),
                ),
                Probe("the deal", FIXED.deal_request()),
                Probe(
                    "hand_values (J, Q, K worth 11, 12, 13: the option sets three parameters)",
                    state,
                    compare="state.hand_values",
                ),
            ),
        ),
        Point(
            "unknown-parameter",
            "docs/protocol.md, Declining a profile",
            "a rule parameter the engine does not know is unsupported_profile",
            (
                Probe("a dhumbal table", _start("dhumbal")),
                Probe(
                    "a dhumbal table whose rules hold call.limit_after_turns, no rule parameter",
                    _with_unknown_parameter(),
                ),
            ),
        ),
        Point(
            "start-order",
            "protocol.order-of-checks.start",
            "start checks the profile, the option names, their values, then the seats",
            (
                Probe(
                    "a 9-seat dhumbal table with an unknown option (the option comes first)",
                    _start("dhumbal", {"no_such_option": 1}, seats=9),
                ),
                Probe(
                    "a 9-seat dhumbal table with call_limit 7 (the value comes first)",
                    _start("dhumbal", {"call_limit": 7}, seats=9),
                ),
            ),
        ),
        Point(
            "array-value",
            "protocol.order-of-checks.arguments",
            "an array as an option value is bad_request",
            (
                Probe(
                    "a dhumbal table with call_limit [10]", _start("dhumbal", {"call_limit": [10]})
                ),
                Probe("a dhumbal table", _start("dhumbal")),
                Probe(
                    "set_option pickup_after_multi_throw [true]",
                    {
                        "cmd": Command.SET_OPTION,
                        "name": "pickup_after_multi_throw",
                        "value": [True],
                    },
                ),
            ),
        ),
        Point(
            "seq-range",
            "protocol.seq.null",
            "a seq outside 0 to 2^53 - 1 is bad_request with seq null",
            (
                Probe("a line with seq -1", raw=_line(-1), compare="seq"),
                Probe(f"a line with seq {MAX_SEQ + 1}", raw=_line(MAX_SEQ + 1), compare="seq"),
                Probe(f"a line with seq {MAX_SEQ}", raw=_line(MAX_SEQ), compare="seq"),
            ),
        ),
        Point(
            "legal-order",
            "protocol.legal.order",
            "legal lists throws shorter first, then by their cards' canonical positions",
            (
                Probe("a dhumbal table", _start("dhumbal")),
                Probe("the deal", FIXED.deal_request()),
                Probe(
                    f"legal for seat {DEAL['starter']} (throws shorter first, then by cards)",
                    {"cmd": Command.LEGAL},
                    compare="legal",
                ),
            ),
        ),
    )


Ask = Callable[[Mapping[str, Json]], dict[str, Json]]
AskRaw = Callable[[bytes], dict[str, Json]]


def _answer(response: Mapping[str, Json]) -> str:
    if response.get("ok") is True:
        return "accepted"
    error = response.get("error")
    return str(error.get("code")) if isinstance(error, Mapping) else json.dumps(error)


def _field(state: Json, path: Sequence[str]) -> tuple[bool, Json]:
    node = state
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return False, None
        node = node[key]
    return True, node


class _Unchecked(Exception):
    pass


def _look(probe: Probe, response: Mapping[str, Json], hello: Mapping[str, Json]) -> Json:
    """What of ``response`` the probe compares."""
    answer = _answer(response)
    if probe.compare == "answer":
        return answer
    if probe.compare == "seq":
        return {"seq": response.get("seq"), "answer": answer}
    if probe.compare == "legal":
        return response.get("legal") if response.get("ok") else answer
    path = probe.compare.split(".")[1:]
    declared = (hello.get("supports") or {}).get("state_fields")
    if isinstance(declared, list) and path[0] not in declared:
        raise _Unchecked(f"the engine does not report state.{path[0]}")
    found, value = _field(response.get("state"), path)
    return value if found else f"no state.{'.'.join(path)}"


def _commands(hello: Mapping[str, Json]) -> list[Json]:
    supports = hello.get("supports")
    commands = supports.get("commands") if isinstance(supports, Mapping) else None
    return commands if isinstance(commands, list) else []


def check_point(point: Point, ask: Ask, ask_raw: AskRaw, hello: Mapping[str, Json]) -> PointResult:
    """Play the point on the engine (``ask``, ``ask_raw``) and on the reference."""
    reference = ReferenceClient()
    reference.handshake()
    for probe in point.probes:
        if probe.compare == "legal" and "legal" not in _commands(hello):
            return PointResult(point.name, Verdict.NOT_CHECKED, "the engine does not list legal")
        if probe.raw is not None:
            want, got = reference.send_raw(probe.raw), ask_raw(probe.raw)
        else:
            assert probe.message is not None
            want, got = reference.send(probe.message), ask(probe.message)
        code = _answer(got)
        if code in SKIP_CODES and _answer(want) != code:
            # It does not play that table: the point is not checked (only a start that
            # must be refused as unsupported_profile is compared when declined).
            text = f"the engine declines {probe.doing}: {code}"
            return PointResult(point.name, Verdict.NOT_CHECKED, text)
        try:
            expected, actual = _look(probe, want, {}), _look(probe, got, hello)
        except _Unchecked as exc:
            return PointResult(point.name, Verdict.NOT_CHECKED, str(exc))
        if expected != actual:
            text = (
                f"{probe.doing}: expected {json.dumps(expected)}, got {json.dumps(actual)} "
                f"({point.where})"
            )
            return PointResult(point.name, Verdict.FAILED, text)
    return PointResult(point.name, Verdict.PASSED, f"{point.what} ({point.where})")


POINT_NAMES: Final = tuple(point.name for point in points())

__all__ = ["POINT_NAMES", "Point", "PointResult", "Probe", "Verdict", "check_point", "points"]
