"""An answer line is read as :mod:`json` reads it (bounded in depth), though orjson finds
most of them: every text below decodes to the same value, or fails the same way."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.harness.responses import ProtocolViolation, _loads, decode_response
from jhyap_core import bounded_json

TEXTS = [
    '{"seq":1,"ok":true,"events":[{"type":"dealt"}]}',
    '{"a":1,"b":2,"a":3}',  # the last of two equal keys, at the first one's place
    "-0",
    "1e400",  # json reads infinity; orjson refuses it
    "NaN",
    '"\\ud800"',  # a lone surrogate: json keeps it, orjson refuses it
    "18446744073709551616",  # beyond 64 bits: orjson would read a float
    "-9223372036854775809",
    "0.12345678901234567890123",
    ' {"a" : [1 , 2]} \n',
    "[" * 65 + "]" * 65,
    "[" * 2000 + "]" * 2000,
    "[1,2",
    '{"a":1}x',
    "",
    '"a\x01b"',
]


def _outcome(loads: Any, text: str) -> tuple[str, str]:
    try:
        value = loads(text)
    except ValueError as exc:
        return type(exc).__name__, str(exc)
    # repr tells 1 from 1.0, keeps key order; nan is nan.
    return type(value).__name__, repr(value)


@pytest.mark.parametrize("text", TEXTS)
def test_an_answer_decodes_as_json_decodes_it(text: str) -> None:
    assert _outcome(_loads, text) == _outcome(bounded_json.loads, text)


def test_a_long_integer_stays_an_integer_in_an_answer() -> None:
    answer = decode_response(b'{"seq":0,"ok":true,"n":18446744073709551616}', 0)
    assert answer == {"seq": 0, "ok": True, "n": 18446744073709551616}
    assert type(answer["n"]) is int


def test_an_answer_too_deep_is_said_so() -> None:
    with pytest.raises(ProtocolViolation) as raised:
        decode_response(b"[" * 70 + b"]" * 70, 0)
    assert str(raised.value) == "response nested deeper than 64 levels: " + "[" * 70 + "]" * 70


_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(_json_values)
def test_any_json_value_decodes_as_json_decodes_it(value: Any) -> None:
    text = json.dumps(value, ensure_ascii=False)
    got, want = _loads(text), json.loads(text)
    assert repr(got) == repr(want)
