"""The reference server keeps the decoding of long request lines (a start's profile, sent for
every case of a ruleset): a kept decoding gives what decoding the line gives, as a value
of its own, so that no game shares mutable state with another."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.spec.profiles import resolved_profile
from jhyap_core.vocabulary import JhyapError
from reference_engine import server
from reference_engine.server import Session, decode_kept, decode_request


def _line(seq: int, message: dict[str, Any]) -> bytes:
    """A request line as the harness writes it: the seq first, compact, not ASCII-escaped."""
    body = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
    return f'{{"seq":{seq},{body[1:]}\n'.encode()


def _start(seq: int) -> bytes:
    message = {"cmd": "start", "profile": resolved_profile("dhumbal", {}), "seats": 3}
    return _line(seq, message)


@pytest.fixture(autouse=True)
def _nothing_kept() -> None:
    server._KEPT_LINES.resize(server._KEPT_LINES.size)  # forgets what earlier tests kept


def test_a_kept_start_line_decodes_as_the_line_does() -> None:
    first, second = _start(1), _start(57)
    assert len(first) > 2048  # long enough to be kept
    assert decode_kept(first) == decode_request(first)
    kept = decode_kept(second)
    assert kept == decode_request(second)
    assert kept["seq"] == 57
    assert list(kept) == ["seq", "cmd", "profile", "seats"]  # the line's order of keys


def test_kept_decodings_share_no_mutable_value() -> None:
    first = decode_kept(_start(1))
    second = decode_kept(_start(2))
    third = decode_kept(_start(3))
    assert second["profile"] is not third["profile"]
    assert second["profile"]["rules"] is not third["profile"]["rules"]
    # A game that changed what it was given changes nothing another game is given.
    first["profile"]["rules"]["seats"]["max"] = 99
    second["profile"]["rules"].clear()
    second["profile"]["name"] = "changed"
    fourth = decode_kept(_start(4))
    assert fourth == decode_request(_start(4))
    assert fourth["profile"]["rules"]["seats"]["max"] != 99
    assert third == decode_request(_start(3))


def test_two_games_from_one_kept_line_are_independent() -> None:
    session = Session()
    assert session.handle(decode_kept(_line(0, {"cmd": "hello", "protocol": "1.1"})))["ok"]
    assert session.handle(decode_kept(_start(1)))["ok"]
    game = session.game
    assert session.handle(decode_kept(_start(2)))["ok"]
    assert session.game is not game and game is not None and session.game is not None
    assert session.game.document is not game.document
    assert session.game.document == game.document


@pytest.mark.parametrize(
    "second_seq",
    [b'"seq":5', b'"se\\u0071":5', b'"\\u0073eq":5'],
    ids=["plain", "escaped", "escaped-first-letter"],
)
def test_a_line_with_a_second_seq_is_decoded_anew(second_seq: bytes) -> None:
    # JSON keeps the last of two equal keys: the seq of such a line is its second one.
    pad = b'"pad":"' + b"x" * 3000 + b'"'
    for seq in (1, 2):
        line = b'{"seq":%d,"cmd":"state",%s,%s}\n' % (seq, pad, second_seq)
        decoded = decode_kept(line)
        assert decoded == decode_request(line)
        assert decoded["seq"] == 5


def test_a_refused_long_line_is_refused_each_time_alike() -> None:
    line = b'{"seq":1,"cmd":"start","pad":"' + b"x" * 3000 + b'"'  # no closing brace
    for _ in range(2):
        with pytest.raises(JhyapError) as kept:
            decode_kept(line)
        with pytest.raises(JhyapError) as fresh:
            decode_request(line)
        assert kept.value.message == fresh.value.message
        assert kept.value.message.startswith("not JSON: ")


# Text that JSON writes plainly and with escapes, and that can spell "seq".
_TEXT = st.text(alphabet='sequ\\"/\n\x00\u00e9\u2028\U0001f600', max_size=8)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None, database=None)
@given(
    message=st.dictionaries(_TEXT, _JSON, max_size=4),
    seqs=st.lists(st.integers(0, 10**12), min_size=2, max_size=3),
)
def test_any_long_line_decodes_as_the_line_does(message: dict[str, Any], seqs: list[int]) -> None:
    message = {**message, "pad": "p" * 2048}
    for seq in seqs:
        line = _line(seq, message)
        got = decode_kept(line)
        want = decode_request(line)
        assert got == want  # no NaN: equal values compare equal
        assert json.dumps(got) == json.dumps(want)  # and their keys are in the same order
