"""conformance.harness.compare: expected against actual, with the exact difference lines."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from conformance.harness import compare
from conformance.harness.compare import (
    checked_fields,
    compare_check,
    compare_events,
    compare_states,
    diff_values,
    strip_vendor,
)

PICKED = {"type": "picked", "seat": 0, "from": "deck", "card": "2c"}
OUT = {"type": "out_of_play", "cards": ["Ks"]}


# -- values ------------------------------------------------------------------------------


def test_equal_values_have_no_difference() -> None:
    assert diff_values("x", {"a": [1, 2], "b": "c"}, {"a": [1, 2], "b": "c", "d": 4}) == []


def test_objects_compare_only_the_expected_keys_recursively() -> None:
    expected = {"a": {"b": 1}}
    assert diff_values("r", expected, {"a": {"b": 1, "c": 2}, "z": 0}) == []
    assert diff_values("r", expected, {"a": {"b": 2}}) == ["r.a.b: expected 1, got 2"]
    assert diff_values("r", expected, {"a": {}}) == ["r.a.b: expected 1, got nothing (missing)"]
    assert diff_values("r", expected, {"a": [1]}) == ['r.a: expected {"b": 1}, got [1]']


def test_lists_compare_whole_and_in_order() -> None:
    assert diff_values("c", ["4h", "5h"], ["5h", "4h"]) == [
        'c: expected ["4h", "5h"], got ["5h", "4h"]'
    ]
    assert diff_values("c", ["4h"], ["4h", "5h"]) == ['c: expected ["4h"], got ["4h", "5h"]']
    assert diff_values("c", [], None) == ["c: expected [], got null"]


def test_objects_inside_lists_compare_element_by_element() -> None:
    expected = [{"from": 1, "to": 0, "points": 64}]
    actual = [{"from": 1, "to": 2, "points": 64, "dollars": "3.20"}]
    assert diff_values("settlement", expected, actual) == ["settlement[0].to: expected 0, got 2"]


def test_booleans_are_not_numbers_but_int_and_float_agree() -> None:
    assert diff_values("v", True, 1) == ["v: expected true, got 1"]
    assert diff_values("v", 1, True) == ["v: expected 1, got true"]
    assert diff_values("v", 0, False) == ["v: expected 0, got false"]
    assert diff_values("v", 2, 2.0) == []
    assert diff_values("v", None, 0) == ["v: expected null, got 0"]
    assert diff_values("v", "10", 10) == ['v: expected "10", got 10']


def test_vendor_fields_are_ignored_and_stripped_from_reports() -> None:
    assert strip_vendor({"a": [{"x-b": 1, "c": 2}], "x-d": 3}) == {"a": [{"c": 2}]}
    assert diff_values("e", {"a": 1}, {"a": 1, "x-debug": {}}) == []
    assert diff_values("e", [{"a": 1}], [{"a": 1, "x-debug": 5}]) == []


# -- events ------------------------------------------------------------------------------


def test_events_equal() -> None:
    assert compare_events([{"type": "picked", "card": "2c"}, OUT], [PICKED, OUT]) == []


def test_event_field_differs() -> None:
    assert compare_events([{"type": "picked", "card": "3c"}, OUT], [PICKED, OUT]) == [
        'events[0].card: expected "3c", got "2c"'
    ]


def test_event_count_differs() -> None:
    assert compare_events([{"type": "picked"}], [PICKED, OUT]) == [
        "events: expected 1 event [picked], got 2 [picked, out_of_play]"
    ]
    assert compare_events([{"type": "picked"}, OUT], [PICKED]) == [
        "events: expected 2 events [picked, out_of_play], got 1 [picked]"
    ]


def test_event_type_differs_reports_only_the_type() -> None:
    assert compare_events([{"type": "thrown", "seat": 1}], [PICKED]) == [
        'events[0].type: expected "thrown", got "picked"'
    ]


def test_event_cards_are_compared_in_order() -> None:
    expected = [{"type": "thrown", "cards": ["4h", "5h", "6h"]}]
    actual = [{"type": "thrown", "seat": 0, "cards": ["6h", "5h", "4h"], "kind": "run"}]
    assert compare_events(expected, actual) == [
        'events[0].cards: expected ["4h", "5h", "6h"], got ["6h", "5h", "4h"]'
    ]


def test_events_that_are_not_a_list() -> None:
    assert compare_events([OUT], {"type": "out_of_play"}) == [
        'events: expected a list of 1 event, got {"type": "out_of_play"}'
    ]
    assert compare_events([OUT], ["out_of_play"]) == [
        'events[0]: expected {"type": "out_of_play", "cards": ["Ks"]}, got "out_of_play"'
    ]


def test_nested_event_fields() -> None:
    expected = [{"type": "round_ended", "scores": [64, -64], "hand_values": [9, 64]}]
    actual = [
        {"type": "round_ended", "scores": [64, -64], "hand_values": [9, 65], "outcome": "won_call"}
    ]
    assert compare_events(expected, actual) == [
        "events[0].hand_values: expected [9, 64], got [9, 65]"
    ]


# -- checks ------------------------------------------------------------------------------

STATE = {
    "phase": "pick",
    "to_act": 1,
    "hands": [["Ac", "As"], ["2c", "Kd"], []],
    "hand_values": [2, 15, 0],
    "scores": [0, 5, -5],
    "out_of_play": ["Ks", "Qd"],
    "multi_throwers": [0, 2],
    "offer": ["4h", "5h", "6h"],
    "deck_size": 40,
    "last_round": {"round": 1, "outcome": "won_call", "caller": 0, "scores": [0, 5, -5]},
    "result": {"winners": [], "settlement": [{"from": 2, "to": 1, "points": 5, "dollars": "0.25"}]},
}


def test_check_passes() -> None:
    check = {
        "phase": "pick",
        "to_act": 1,
        "offer": ["4h", "5h", "6h"],
        "hands": [["As", "Ac"], ["Kd", "2c"], []],
        "out_of_play": ["Qd", "Ks"],
        "multi_throwers": [2, 0],
        "scores": {2: -5},
        "hand_values": {"1": 15},
        "last_round": {"caller": 0},
        "result": {"winners": []},
        "settlement": [{"from": 2, "to": 1, "points": 5, "dollars": "0.25"}],
    }
    assert compare_check(check, STATE) == []


def test_check_scalar_and_ordered_list() -> None:
    assert compare_check({"to_act": 0, "offer": ["6h", "5h", "4h"]}, STATE) == [
        "to_act: expected 0, got 1",
        'offer: expected ["6h", "5h", "4h"], got ["4h", "5h", "6h"]',
    ]


def test_check_hands_as_sets_with_missing_and_extra() -> None:
    assert compare_check({"hands": {1: ["2c", "Kh"]}}, STATE) == [
        'hands[1]: expected ["2c", "Kh"], got ["2c", "Kd"] (missing Kh; extra Kd)'
    ]


def test_check_per_seat_list_must_cover_every_seat() -> None:
    assert compare_check({"scores": [0, 5]}, STATE) == [
        "scores: expected [0, 5], got [0, 5, -5] (2 seats expected, 3 given)"
    ]
    assert compare_check({"scores": [0, 5, 5]}, STATE) == ["scores[2]: expected 5, got -5"]


def test_check_per_seat_mapping_with_an_unknown_seat() -> None:
    assert compare_check({"hand_values": {"7": 3}}, STATE) == [
        "hand_values[7]: expected 3, got no such seat (the engine lists 3 seats)"
    ]


def test_check_sets() -> None:
    assert compare_check({"out_of_play": ["Ks"], "multi_throwers": [0, 1]}, STATE) == [
        'out_of_play: expected ["Ks"], got ["Ks", "Qd"] (extra Qd)',
        "multi_throwers: expected [0, 1], got [0, 2] (missing 1; extra 2)",
    ]
    assert compare_check({"out_of_play": ["Ks", "Ks", "Qd"]}, STATE) == [
        'out_of_play: expected ["Ks", "Ks", "Qd"], got ["Ks", "Qd"] '
        "(the same elements, repeated differently)"
    ]


def test_check_last_round_and_result_compare_the_keys_given() -> None:
    assert compare_check({"last_round": {"caller": 1, "winner": 1}}, STATE) == [
        "last_round.caller: expected 1, got 0",
        "last_round.winner: expected 1, got nothing (missing)",
    ]
    assert compare_check({"last_round": None}, STATE) == [
        'last_round: expected null, got {"round": 1, "outcome": "won_call", "caller": 0, '
        '"scores": [0, 5, -5]}'
    ]


def test_check_settlement_comes_from_the_result() -> None:
    assert compare_check({"settlement": []}, STATE) == [
        'settlement: expected [], got [{"from": 2, "to": 1, "points": 5, "dollars": "0.25"}]'
    ]
    assert compare_check({"settlement": None}, {**STATE, "result": None}) == [
        "settlement: expected null, got no game result (result is null)"
    ]


def test_check_field_missing_from_the_state() -> None:
    assert compare_check({"turns_taken": 2}, STATE) == [
        "turns_taken: expected 2, got nothing (the state has no such field)"
    ]
    assert compare_check({"phase": "pick"}, None) == ["state: expected an object, got null"]


def test_checked_fields_shapes_the_actual_values_like_the_check() -> None:
    check = {"hands": {"1": ["2c"]}, "to_act": 0, "last_round": {"caller": 1}, "settlement": []}
    assert checked_fields(check, STATE) == {
        "hands": {"1": ["2c", "Kd"]},
        "to_act": 1,
        "last_round": {"caller": 0},
        "settlement": [{"from": 2, "to": 1, "points": 5, "dollars": "0.25"}],
    }


# -- states ------------------------------------------------------------------------------


def test_states_equal_ignoring_vendor_fields() -> None:
    assert compare_states(STATE, {**STATE, "x-debug": {"t": 1}}) == []


def test_state_field_diff() -> None:
    after = {**STATE, "deck_size": 39, "hands": [["Ac", "As"], ["2c"], []]}
    del after["phase"]
    after["extra"] = 1
    assert compare_states(STATE, after) == [
        'phase: before "pick", after (absent)',
        'hands: before [["Ac", "As"], ["2c", "Kd"], []], after [["Ac", "As"], ["2c"], []]',
        "deck_size: before 40, after 39",
        "extra: before (absent), after 1",
    ]


def test_state_booleans_differ_from_numbers() -> None:
    assert compare_states({"a": [1]}, {"a": [True]}) == ["a: before [1], after [true]"]


def test_states_that_serialise_alike_or_not_compare_as_the_walk_says() -> None:
    # alike in text: equal; unlike in text but equal as JSON values: still equal
    assert compare_states({"a": 2, "b": [1]}, {"a": 2, "b": [1]}) == []
    assert compare_states({"a": 2, "b": 1}, {"b": 1.0, "a": 2.0}) == []
    # NaN serialises alike but equals nothing
    assert compare_states({"a": math.nan}, {"a": math.nan}) == ["a: before NaN, after NaN"]
    assert compare_states({"a": True}, {"a": 1}) == ["a: before true, after 1"]


# JSON values as the harness sees them, with the kinds the rules tell apart (1, 1.0, true).
_SCALARS = st.sampled_from([0, 1, 2, 1.0, 2.0, True, False, None, "a", "b", "x-a"])
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "x-v", "type"]), inner, max_size=3)
    ),
    max_leaves=12,
)


@given(_VALUES, _VALUES)
def test_the_short_cuts_find_what_the_walk_finds(expected: Any, actual: Any) -> None:
    assert diff_values("v", expected, actual) == compare._diff_values("v", expected, actual)
    assert diff_values("v", expected, expected) == []
    before, after = strip_vendor(expected), strip_vendor(actual)
    if isinstance(expected, dict) and isinstance(actual, dict):
        same = compare._deep_equal(before, after)  # field by field, vendor fields left out
    else:
        same = before == after
    assert (compare_states(expected, actual) == []) == same


@given(
    st.lists(st.dictionaries(st.sampled_from(["type", "a"]), _VALUES, max_size=2), max_size=3),
    st.lists(st.dictionaries(st.sampled_from(["type", "a"]), _VALUES, max_size=2), max_size=3),
)
def test_equal_events_by_the_short_cut_are_equal_by_the_walk(
    expected: list[dict[str, Any]], actual: list[dict[str, Any]]
) -> None:
    found = compare_events(expected, actual)
    walked = [] if len(expected) == len(actual) else ["count"]
    for want, got in zip(expected, actual, strict=False):
        if want.get("type") != got.get("type"):
            walked.append("type")
        else:
            walked.extend(compare._diff_values("e", want, got))
    assert (found == []) == (walked == [])
