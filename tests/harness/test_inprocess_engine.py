"""The reference engine in the harness's process: its messages are what the pipe would carry."""

from __future__ import annotations

import enum
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.harness.inprocess import (
    Diverged,
    FollowingClient,
    RecordingClient,
    ReferenceClient,
    _copy,
)
from conformance.spec.transcript_profiles import shipped_documents
from jhyap_core.profile import resolve
from reference_engine.server import GameBackend


class Seat(enum.IntEnum):
    FIRST = 0


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=4),
    st.just(Seat.FIRST),
)
KEYS = st.one_of(st.text(max_size=4), st.integers(-3, 3), st.booleans(), st.none())
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(KEYS, inner, max_size=4),
    ),
    max_leaves=20,
)


def _containers(value: Any) -> list[int]:
    if isinstance(value, dict):
        return [id(value), *(i for v in value.values() for i in _containers(v))]
    if isinstance(value, list | tuple):
        return [id(value), *(i for v in value for i in _containers(v))]
    return []


@given(st.dictionaries(st.text(max_size=4), VALUES, max_size=5))
def test_a_message_is_copied_as_the_json_round_trip_would_read_it(message: dict[str, Any]) -> None:
    copied = _copy(message)
    assert copied == json.loads(json.dumps(message))
    assert json.dumps(copied) == json.dumps(json.loads(json.dumps(message)))  # types too
    assert set(_containers(copied)).isdisjoint(_containers(message))


def test_what_json_writes_otherwise_takes_the_round_trip() -> None:
    message: dict[Any, Any] = {"seat": Seat.FIRST, 3: ("a", 1.5), "inf": float("inf")}
    copied = _copy(message)
    assert copied == {"seat": 0, "3": ["a", 1.5], "inf": float("inf")}
    assert type(copied["seat"]) is int


def test_the_engine_keeps_nothing_of_a_request_or_an_answer() -> None:
    client = ReferenceClient()
    client.handshake()
    profile = resolve(shipped_documents()["dhumbal"], {})
    request = {"cmd": "start", "profile": profile, "seats": 2, "options": {}}
    assert client.send(request)["ok"] is True
    profile["rules"]["seats"]["min"] = 9  # the caller's message changed after it was sent
    first = client.send({"cmd": "state"})
    kept = json.loads(json.dumps(first["state"]))
    first["state"]["scores"].append(99)  # and an answer changed by its reader
    assert client.send({"cmd": "state"})["state"] == kept
    assert kept["scores"] == [0, 0]


def _engine_profile(client: ReferenceClient) -> Any:
    """The profile mapping the client's engine opened its table with."""
    backend = client._session.backend
    assert isinstance(backend, GameBackend)
    game = backend.game
    assert game is not None
    return game.document


def test_starts_of_one_profile_share_its_copy_until_it_changes() -> None:
    profile = resolve(shipped_documents()["dhumbal"], {})
    request = {"cmd": "start", "profile": profile, "seats": 2, "options": {}}
    first, second, third = ReferenceClient(), ReferenceClient(), ReferenceClient()
    for client in (first, second):
        client.handshake()
        assert client.send(request)["ok"] is True
    given_first, given_second = _engine_profile(first), _engine_profile(second)
    assert given_first is given_second  # one copy for both tables
    assert given_first is not profile and given_first == profile
    assert set(_containers(given_first)).isdisjoint(_containers(profile))
    # Edited in place after the starts: the next start copies it afresh, and the tables
    # already open keep what they were given.
    profile["rules"]["seats"]["max"] = 3
    third.handshake()
    assert third.send({**request, "seats": 3})["ok"] is True
    assert _engine_profile(third)["rules"]["seats"]["max"] == 3
    assert given_first["rules"]["seats"]["max"] != 3
    assert first.send({"cmd": "state"})["state"]["seats"] == 2


def _dhumbal_requests() -> list[dict[str, Any]]:
    profile = resolve(shipped_documents()["dhumbal"], {})
    return [
        {"cmd": "start", "profile": profile, "seats": 2, "options": {}},
        {"cmd": "deal", "deck": _DECK},
        {"cmd": "state"},
        {"cmd": "act", "seat": 1, "action": {"type": "call"}},  # not seat 1's turn: refused
        {"cmd": "legal"},
    ]


_DECK = [f"{rank}{suit}" for suit in "cdhs" for rank in "A23456789TJQK"]


def _answers(client: ReferenceClient, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    client.handshake()
    return [client.send(request) for request in requests]


def test_a_second_pass_is_answered_as_a_fresh_engine_answers_it() -> None:
    requests = _dhumbal_requests()
    recording = RecordingClient()
    first = _answers(recording, requests[:2])  # stops after the deal, as a failed replay does
    assert [m for m, _ in recording.log][1:] == requests[:2]
    assert first == _answers(ReferenceClient(), requests[:2])
    # The recording's reads left out, then past the end of its log: its engine plays on.
    following = FollowingClient(recording)
    recording.log.insert(2, ({"cmd": "state"}, {"seq": 2, "ok": True, "state": None}))
    fresh = _answers(ReferenceClient(), [*requests, {"cmd": "state"}])
    assert _answers(following, [*requests, {"cmd": "state"}]) == fresh
    assert [answer["seq"] for answer in fresh] == [1, 2, 3, 4, 5, 6]


def test_a_second_pass_that_sends_another_move_diverges() -> None:
    requests = _dhumbal_requests()
    recording = RecordingClient()
    _answers(recording, requests[:2])
    following = FollowingClient(recording)
    following.handshake()
    following.send(requests[0])
    with pytest.raises(Diverged):  # the recording's engine has dealt: it cannot answer this
        following.send({"cmd": "state"})
