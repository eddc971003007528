"""The reference engine against docs/protocol.md: requests, many generated, judged by a small
checker written from the document (the order of checks, seq, refusals change nothing).

The checker below reads only the engine's ``state`` answers and the profile document; it
shares no code with reference_engine, so that a disagreement shows up as a failure here.
"""

from __future__ import annotations

import io
import json
import random
import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from functools import cache
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.spec.profiles import load_profile, resolved_profile
from reference_engine.randomplay import random_step
from reference_engine.server import Session, serve
from tests.conftest import PROFILE_IDS, ROOT

MAX_SEQ = 2**53 - 1
COMMANDS: tuple[str, ...] = ("hello", "start", "deal", "act", "reshuffle", "set_option")
COMMANDS += ("end_game", "state", "legal", "stop")
CARDS = [r + s for r in "A23456789TJQK" for s in "cdhs"]
BETWEEN_HANDS = ("awaiting_deal", "round_over")
ACCEPTED = None  # a judged outcome: the request is accepted

Outcomes = set[str | None]


# -- the checker, from docs/protocol.md ------------------------------------------------------


def answer_seq(request: Any) -> int | None:
    """The seq the answer must carry (docs/protocol.md, Transport)."""
    seq = request.get("seq") if isinstance(request, dict) else None
    if type(seq) is int and 0 <= seq <= MAX_SEQ:
        return seq
    return None


def _scalar(value: Any) -> bool:
    return value is None or type(value) in (str, int, float, bool)


def _cards_shape(value: Any) -> str | None:
    if not isinstance(value, list) or not all(type(c) is str for c in value):
        return "bad_request"
    return None


def _card_names(values: Any) -> str | None:
    return "invalid_card" if any(c not in CARDS for c in values) else None


def argument_check(cmd: str, request: Mapping[str, Any]) -> str | None:
    """Step 2: bad_request for a missing or mistyped argument, then invalid_card."""
    if cmd == "hello":
        protocol = request.get("protocol")
        ok = type(protocol) is str and re.fullmatch(r"[0-9]+\.[0-9]+", protocol)
        return None if ok else "bad_request"
    if cmd == "start":
        options = request.get("options", {})
        if (
            not isinstance(request.get("profile"), dict)
            or type(request.get("seats")) is not int
            or not isinstance(options, dict)
            or not all(_scalar(v) for v in options.values())
        ):
            return "bad_request"
        return None
    if cmd in ("deal", "reshuffle"):
        cards = request.get("deck" if cmd == "deal" else "order")
        return _cards_shape(cards) or _card_names(cards)
    if cmd == "set_option":
        if type(request.get("name")) is not str or "value" not in request:
            return "bad_request"
        return None if _scalar(request["value"]) else "bad_request"
    if cmd == "act":
        action = request.get("action")
        if type(request.get("seat")) is not int or not isinstance(action, dict):
            return "bad_request"
        kind = action.get("type")
        if kind not in ("call", "throw", "pick", "timeout"):
            return "bad_request"
        if kind == "throw":
            return _cards_shape(action.get("cards")) or _card_names(action["cards"])
        if kind == "pick":
            source = action.get("from")
            if source == "deck":
                return None
            if source != "offer" or type(action.get("card")) is not str:
                return "bad_request"
            return _card_names([action["card"]])
    return None


def option_value_ok(spec: Mapping[str, Any], value: Any) -> bool:
    """Whether ``value`` is allowed for the option (docs/protocol.md, The resolved profile)."""
    kind = spec["type"]
    if kind == "boolean":
        fits = type(value) is bool
    elif kind == "integer":
        fits = type(value) is int
    elif kind == "decimal":
        fits = type(value) is str and re.fullmatch(r"[0-9]+(\.[0-9]+)?", value) is not None
    else:
        fits = type(value) is str
    if not fits:
        return False
    if "values" in spec:
        if kind == "decimal":
            return any(Decimal(value) == Decimal(str(v)) for v in spec["values"])
        return value in spec["values"]
    low, high, step = (Decimal(str(spec["range"][k])) for k in ("min", "max", "step"))
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return False
    return low <= number <= high and (number - low) % step == 0


def judge(request: Any, state: Mapping[str, Any] | None, profile: Mapping[str, Any]) -> Outcomes:
    """The outcomes docs/protocol.md allows for ``request``: error codes, or ACCEPTED.

    ``state`` is the engine's state answer before the request (None: no game yet); the
    set has more than one member only where a rule of the game, not the protocol, decides.
    """
    if not isinstance(request, dict) or answer_seq(request) is None:
        return {"bad_request"}
    cmd = request.get("cmd")
    if type(cmd) is not str:
        return {"bad_request"}
    if cmd not in COMMANDS:
        return {"unknown_command"}
    shape = argument_check(cmd, request)
    if shape is not None:
        return {shape}
    if cmd == "hello":
        return {ACCEPTED if request["protocol"].split(".")[0] == "1" else "unsupported_protocol"}
    if cmd in ("start", "stop"):
        return {ACCEPTED}
    if state is None:
        return {"wrong_phase"}
    phase = state["phase"]
    options = {o["name"]: o for o in profile.get("options") or []}
    rules = profile["rules"]
    if cmd in ("state", "legal"):
        return {ACCEPTED}
    if cmd == "deal":
        if phase not in BETWEEN_HANDS:
            return {"wrong_phase"}
        deck = request["deck"]
        return {ACCEPTED if sorted(deck) == sorted(CARDS) else "invalid_deck"}
    if cmd == "reshuffle":
        if phase != "awaiting_reshuffle":
            return {"wrong_phase"}
        same = sorted(request["order"]) == sorted(state["out_of_play"])
        return {ACCEPTED if same else "invalid_reshuffle"}
    if cmd == "set_option":
        spec = options.get(request["name"])
        if spec is None:
            return {"unknown_option"}
        if phase not in BETWEEN_HANDS:
            return {"wrong_phase"}
        if spec["locked_when_open"]:
            return {"option_locked"}
        return {ACCEPTED if option_value_ok(spec, request["value"]) else "invalid_option_value"}
    if cmd == "end_game":
        if rules["game_end"]["kind"] != "host_ends":
            return {"game_not_endable"}
        return {ACCEPTED if phase in BETWEEN_HANDS else "wrong_phase"}
    return _judge_act(request, state)


def _judge_act(request: Mapping[str, Any], state: Mapping[str, Any]) -> Outcomes:
    seat, action, phase = request["seat"], request["action"], state["phase"]
    if not 0 <= seat < state["seats"]:
        return {"invalid_seat"}
    if phase not in ("call_or_throw", "pick"):
        return {"wrong_phase"}
    if seat != state["to_act"]:
        return {"not_your_turn"}
    kind = action["type"]
    if kind == "timeout":
        return {"timer_off", ACCEPTED}  # the timer is the profile's, not the protocol's
    if kind in ("call", "throw") and phase == "pick":
        return {"wrong_phase"}
    if kind == "pick" and phase == "call_or_throw":
        return {"wrong_phase"}
    if kind == "call":
        return {ACCEPTED, "call_too_early", "call_over_limit"}
    if kind == "throw":
        cards = action["cards"]
        if any(c not in state["hands"][seat] for c in cards):
            return {"card_not_in_hand"}
        if not cards or len(set(cards)) != len(cards):
            return {"illegal_throw"}
        return {ACCEPTED, "illegal_throw"}
    if action["from"] == "deck":
        return {ACCEPTED}
    if action["card"] not in state["offer"]:
        return {"card_not_on_offer"}
    if action["card"] not in state["pickable"]:
        return {"pick_not_allowed"}
    return {ACCEPTED, "pick_not_allowed"}  # the multi-throw house rule may close the offer


# -- generated requests ------------------------------------------------------------------------

SEQS: st.SearchStrategy[Any] = st.one_of(
    st.integers(0, MAX_SEQ),
    st.sampled_from([-1, MAX_SEQ + 1, 10**30, 2.5, 1e300, True, False, "7", None, [1], {}]),
)
CARD_TEXT = st.one_of(st.sampled_from(CARDS), st.sampled_from(["Xx", "1c", "as", "", "10h"]))
ANY_SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-5, 20), st.text(max_size=4))
ODD = st.one_of(ANY_SCALAR, st.lists(st.integers(0, 3), max_size=2), st.just({"x": 1}))


def _cards(max_size: int = 6) -> st.SearchStrategy[Any]:
    return st.one_of(st.lists(CARD_TEXT, max_size=max_size), st.lists(ODD, max_size=2), ODD)


ACTIONS = st.one_of(
    st.fixed_dictionaries({"type": st.just("call")}),
    st.fixed_dictionaries({"type": st.just("timeout")}),
    st.fixed_dictionaries({"type": st.just("throw"), "cards": _cards()}),
    st.fixed_dictionaries({"type": st.just("pick"), "from": st.just("deck")}),
    st.fixed_dictionaries({"type": st.just("pick"), "from": st.just("offer"), "card": CARD_TEXT}),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["pick", "dance", "throw"]), "from": ODD, "card": ODD}
    ),
    ODD,
)


def _arguments(cmd: str, profile: Mapping[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    names = [o["name"] for o in profile.get("options") or []] + ["no_such_option"]
    if cmd == "act":
        seat = st.one_of(st.integers(-1, 6), ODD)
        return st.fixed_dictionaries({"seat": seat, "action": ACTIONS})
    if cmd == "deal":
        full = st.permutations(CARDS).map(list)
        return st.fixed_dictionaries({"deck": st.one_of(full, _cards(53))})
    if cmd == "reshuffle":
        return st.fixed_dictionaries({"order": _cards(8)})
    if cmd == "set_option":
        value = st.one_of(ANY_SCALAR, st.sampled_from(["0.10", "0.1", "1e-1", 5, 10, 15]), ODD)
        return st.fixed_dictionaries({"name": st.sampled_from(names), "value": value})
    if cmd == "hello":
        return st.fixed_dictionaries({"protocol": st.sampled_from(["1.0", "1.7", "2.0", "x", 1])})
    return st.just({})


@st.composite
def requests(draw: st.DrawFn, profile: Mapping[str, Any]) -> Any:
    shape = draw(st.integers(0, 9))
    if shape == 0:
        return draw(st.one_of(st.lists(st.integers(), max_size=2), st.text(max_size=3)))
    cmd = draw(
        st.one_of(
            st.sampled_from([c for c in COMMANDS if c not in ("stop", "start")]),
            st.sampled_from(["", "STATE", "shuffle"]),
            ODD,
        )
    )
    request: dict[str, Any] = {"seq": draw(SEQS) if shape == 1 else draw(st.integers(0, 99))}
    if shape != 2:
        request["cmd"] = cmd
    if isinstance(cmd, str) and cmd in COMMANDS:
        request.update(draw(_arguments(cmd, profile)))
        if draw(st.booleans()):
            request.pop(draw(st.sampled_from(sorted(request))), None)
    if shape == 3:
        request[draw(st.sampled_from(["x-trace", "colour"]))] = draw(ANY_SCALAR)
    return request


# -- the differential property ------------------------------------------------------------------


def _state(session: Session) -> dict[str, Any] | None:
    answer = session.handle({"seq": 0, "cmd": "state"})
    return answer["state"] if answer["ok"] else None


@cache
def _document(name: str) -> dict[str, Any]:
    return load_profile(ROOT / "specs" / f"{name}.yaml")


@cache
def _resolved(name: str) -> dict[str, Any]:
    return resolved_profile(ROOT / "specs" / f"{name}.yaml", {})


def _table(name: str, seats: int, moves: int, seed: int, started: bool) -> Session:
    session = Session()
    if started:
        profile = _resolved(name)
        start = {
            "seq": 0,
            "cmd": "start",
            "profile": profile,
            "seats": seats,
            "options": profile["option_values"],
        }
        assert session.handle(start)["ok"]
        assert session.game is not None
        rng = random.Random(seed)
        for _ in range(moves):
            if session.game.phase.value == "game_over":
                break
            random_step(session.game, rng, max_rounds=3, call_chance=0.3)
    return session


@settings(
    max_examples=500, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    name=st.sampled_from(PROFILE_IDS),
    seats=st.integers(2, 5),
    moves=st.integers(0, 40),
    seed=st.integers(0, 2**16),
    started=st.integers(0, 9).map(bool),
    data=st.data(),
)
def test_the_reference_answers_as_the_document_says(
    name: str, seats: int, moves: int, seed: int, started: bool, data: st.DataObject
) -> None:
    session = _table(name, seats, moves, seed, started)
    document = _document(name)
    request = data.draw(requests(document))
    before = _state(session)
    answer = session.handle(request)
    allowed = judge(request, before, document)
    got = None if answer["ok"] else answer["error"]["code"]
    assert got in allowed, (request, answer, before and before["phase"])
    assert answer["seq"] == answer_seq(request) and type(answer["seq"]) in (int, type(None))
    if got is not None:
        assert _state(session) == before  # a refusal changes nothing


@settings(max_examples=150, deadline=None, database=None)
@given(st.binary(max_size=40).filter(lambda b: b"\n" not in b and b"\r" not in b and b.strip()))
def test_a_line_that_is_no_json_object_is_answered_with_seq_null(line: bytes) -> None:
    try:
        value: Any = json.loads(line)
    except ValueError:
        value = None
        expected_code: str | None = "bad_request"
    else:
        expected_code = None if isinstance(value, dict) else "bad_request"
    out = io.StringIO()
    serve(io.BytesIO(line + b"\n"), out)
    (answer,) = [json.loads(text) for text in out.getvalue().splitlines()]
    if expected_code is not None:
        assert answer == {"seq": None, "ok": False, "error": answer["error"]}
        assert answer["error"]["code"] == expected_code
    else:
        assert answer["seq"] == answer_seq(value)


def test_a_line_over_one_mebibyte_is_refused_unread_and_one_of_exactly_that_is_served() -> None:
    head = b'{"seq":5,"cmd":"hello","protocol":"1.0"'
    exact = head + b" " * ((1 << 20) - len(head) - 1) + b"}"
    over = exact[:-1] + b" }"
    out = io.StringIO()
    serve(io.BytesIO(over + b"\n" + exact + b"\n"), out)
    first, second = (json.loads(text) for text in out.getvalue().splitlines())
    assert (first["seq"], first["error"]["code"]) == (None, "bad_request")
    assert (second["seq"], second["ok"]) == (5, True)


def test_the_checker_catches_the_disagreements_of_the_old_reference() -> None:
    """The checker has teeth: the answers the reference gave before it matched the document."""
    profile = _document("dhumbal")
    assert judge({"seq": "x", "cmd": "state"}, None, profile) == {"bad_request"}
    assert answer_seq({"seq": True}) is None and answer_seq({"seq": MAX_SEQ + 1}) is None
    malformed_act = {"seq": 1, "cmd": "act", "seat": 0, "action": {"type": "dance"}}
    assert judge(malformed_act, None, profile) == {"bad_request"}  # not wrong_phase
    assert judge({"seq": 1}, None, profile) == {"bad_request"}  # not unknown_command
    deck_with_xx = {"seq": 1, "cmd": "deal", "deck": ["Xx"]}
    assert judge(deck_with_xx, {"phase": "pick"}, profile) == {"invalid_card"}
