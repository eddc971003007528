"""The reference engine in the harness's process: its messages are what the pipe would carry."""

from __future__ import annotations

import enum
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from conformance.harness.inprocess import ReferenceClient, _copy
from conformance.spec.transcript import shipped_documents
from reference_engine.profile import resolve


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
    message = {"seat": Seat.FIRST, 3: ("a", 1.5), "inf": float("inf")}
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
