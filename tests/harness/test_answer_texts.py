"""What the harness takes from an answer's text: the schema check of an answer that passed
before, by its line after the seq; two states of one text around a refusal; and a request
encoded as the module's JSON encoder encodes it."""

from __future__ import annotations

import json
import math
import time
from collections import deque
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.harness import client as client_module
from conformance.harness import response_schemas
from conformance.harness.client import EngineClient
from conformance.harness.replay import _unchanged
from conformance.harness.response_schemas import schema_problems

ROOT = Path(__file__).resolve().parents[2]
STATE_TEXT = b'"ok":true,"state":{"phase":"lobby"}}'


class _Lines(EngineClient):
    """A client reading the given answer lines, without a process."""

    def __init__(self, *lines: bytes) -> None:
        self._begin("engine", 1.0, None)
        self._lines = deque(lines)

    def _pump(self, wait: float) -> None:
        pass

    def _notice_exit(self) -> None:
        pass

    def receive(self, seq: int, *, check_seq: bool = True) -> dict[str, Any]:
        return self._receive(seq, time.monotonic() + 1, 1.0, "state", check_seq=check_seq)


def test_an_answer_text_is_its_line_after_the_seq_asked_for() -> None:
    client = _Lines(b'{"seq":3,' + STATE_TEXT, b'{"seq":4,' + STATE_TEXT, b'{"seq":5,"ok":true}')
    first = client.receive(3)
    assert client.answer_text(first) == STATE_TEXT
    second = client.receive(4)
    assert client.answer_text(second) == STATE_TEXT
    assert client.answer_text(first) is None  # only the last answer read has one
    assert client.answer_text(dict(second)) is None  # an equal answer is not that answer
    assert client.answer_text(client.receive(5, check_seq=False)) is None  # a raw line's


@pytest.mark.parametrize(
    "line",
    [
        b' {"seq":3,' + STATE_TEXT,  # blank before the seq
        b'{"seq": 3,' + STATE_TEXT,
        b'{"ok":true,"seq":3,"state":{"phase":"lobby"}}',  # the seq elsewhere
        b'{"seq":3.0,' + STATE_TEXT,
    ],
)
def test_an_answer_that_does_not_begin_with_the_seq_asked_for_has_no_text(line: bytes) -> None:
    client = _Lines(line)
    answer = client.receive(3)
    assert answer["ok"] is True
    assert client.answer_text(answer) is None


def test_an_answer_text_that_passed_passes_again_without_a_look() -> None:
    response_schemas._PASSED.resize(response_schemas._PASSED.size)
    valid = {"seq": 1, "ok": True, "events": []}
    text = b'"ok":true,"events":[]}'
    assert schema_problems("act", valid, text) == []
    # Kept by its text: the text is the answer's own, so its value passes as it did.
    assert schema_problems("act", {"seq": 2, "ok": True, "events": 7}, text) == []
    # Without a text, or under another command's schema, it is looked at.
    assert schema_problems("act", {"seq": 2, "ok": True, "events": 7}) != []
    assert schema_problems("state", {"seq": 2, "ok": True, "events": []}, text) != []


def test_an_answer_that_fails_is_reported_each_time() -> None:
    response_schemas._PASSED.resize(response_schemas._PASSED.size)
    wrong = {"seq": 1, "ok": True, "events": 7}
    text = b'"ok":true,"events":7}'
    found = schema_problems("act", wrong, text)
    assert found == ["event.schema.json#/$defs/events/type: 7 is not of type 'array' (at $.events)"]
    assert schema_problems("act", wrong, text) == found


def _seq_schemas(node: Any) -> list[Any]:
    if isinstance(node, dict):
        found = [node["properties"]["seq"]] if "seq" in node.get("properties", {}) else []
        return found + [s for value in node.values() for s in _seq_schemas(value)]
    if isinstance(node, list):
        return [s for value in node for s in _seq_schemas(value)]
    return []


def test_the_schemas_ask_of_an_answers_seq_only_that_it_is_an_integer() -> None:
    # What lets an answer's verdict be kept by its text after the seq (schema_problems):
    # any integer seq passes alike.
    found = []
    for name in ("response-ok.schema.json", "response-error.schema.json"):
        found += _seq_schemas(json.loads((ROOT / "schema" / "protocol" / name).read_text()))
    assert found == [{"type": "integer"}, {"type": ["integer", "null"]}]


def test_states_of_one_text_are_unchanged_unless_it_holds_nan() -> None:
    text = b'"ok":true,"state":{"phase":"play"}}'
    assert _unchanged(({"phase": "play"}, text), ({"phase": "play"}, text)) == []
    # Different texts: the states are compared (2 and 2.0 are one number).
    assert _unchanged(({"n": 2}, b'"n":2}'), ({"n": 2.0}, b'"n":2.0}')) == []
    assert _unchanged(({"n": 2}, b'"n":2}'), ({"n": 3}, b'"n":3}')) == ["n: before 2, after 3"]
    assert _unchanged(({"n": 2}, None), ({"n": 3}, None)) == ["n: before 2, after 3"]
    # NaN equals nothing, not even NaN: one text holding it is still a change.
    nan_text = b'"ok":true,"state":{"n":NaN}}'
    assert _unchanged(({"n": math.nan}, nan_text), ({"n": math.nan}, nan_text)) == [
        "n: before NaN, after NaN"
    ]


_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(_json_values)
def test_a_request_is_encoded_as_the_json_encoder_encodes_it(value: Any) -> None:
    assert client_module.compact_json(value) == client_module._ENCODER.encode(value)


def test_a_value_that_fails_to_encode_fails_alike_and_leaves_no_mark() -> None:
    circular: dict[str, Any] = {"a": []}
    circular["a"].append(circular)
    for bad in (circular, {"a": [1], "b": {1, 2}}):
        with pytest.raises((ValueError, TypeError)) as want:
            client_module._ENCODER.encode(bad)
        with pytest.raises(type(want.value)) as got:
            client_module.compact_json(bad)
        assert str(got.value) == str(want.value)
    # The failed value, mended, is encoded: no mark of the failure is left to call it circular.
    del bad["b"]
    assert client_module.compact_json(bad) == '{"a":[1]}'
