"""The schema checks (answers, transcripts, profiles): jsonschema-rs passes what jsonschema
passes, the verdicts and messages are jsonschema's."""

from __future__ import annotations

import copy
import datetime
import json
import math
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.harness import response_schemas
from conformance.harness.ahead import start_message
from conformance.harness.response_schemas import answer_check, schema_problems
from conformance.harness.runner import build_cases
from conformance.spec.schema_check import SchemaCheck
from conformance.spec.transcript import load_corpus
from conformance.spec.transcript_profiles import shipped_documents
from reference_engine.server import COMMANDS, Session

ODD_VALUES: tuple[Any, ...] = (
    None, True, False, 0, 1, -1, 1.0, 2.5, float("nan"), float("inf"), "", "Ah", "1x", "x-",
    [], {}, ["Ah"], ["Ah", "Ah"], {"x-a": 1}, {"a": 1}, "Ah\n", "deck\n", 2**70,
)  # fmt: skip


def _ref(cmd: str, response: Any) -> str:
    if isinstance(response, dict) and response.get("ok") is True:
        return f"response-ok.schema.json#/$defs/{cmd}"
    return "response-error.schema.json"


@cache
def responses() -> list[tuple[str, dict[str, Any]]]:
    """Real answers of the reference engine to a sample of the corpus, as JSON data."""
    transcripts, _ = load_corpus()
    cases = build_cases(transcripts, shipped_documents())[::4]
    found: list[tuple[str, dict[str, Any]]] = []
    for case in cases:
        assert case.resolved is not None
        session = Session()
        requests: list[dict[str, Any]] = [
            {"cmd": "hello", "protocol": "1.1"},
            start_message(case.transcript, case.resolved),
        ]
        for step in case.transcript.steps:
            requests.append({"cmd": "state"})
            if step.request is not None:
                requests += [dict(step.request), {"cmd": "legal"}]
        requests += [{"cmd": "state"}, {"cmd": "nonsense"}, {"cmd": "stop"}]
        for seq, request in enumerate(requests):
            answer = session.handle({"seq": seq, **request})
            found.append((str(request["cmd"]), json.loads(json.dumps(answer))))
    return found


def _beyond_ecma(value: Any) -> bool:
    """Whether ``value`` holds what jsonschema-rs refuses and jsonschema may pass: NaN or an
    infinity (no JSON number), a string ending in a newline (before which Python's ``$``
    matches, ECMA-262's not)."""
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, str):
        return value.endswith("\n")
    if isinstance(value, dict):
        return any(_beyond_ecma(k) or _beyond_ecma(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_beyond_ecma(item) for item in value)
    return False


def _whole_float(value: Any) -> bool:
    """Whether ``value`` holds a float that is a whole number (2.0)."""
    if isinstance(value, float):
        return value.is_integer()
    if isinstance(value, dict):
        return any(_whole_float(item) for item in value.values())
    if isinstance(value, list):
        return any(_whole_float(item) for item in value)
    return False


def _assert_agree(check: SchemaCheck, value: Any, why: Any) -> None:
    """jsonschema-rs passes only what the library passes, and exactly that unless ``value``
    is beyond ECMA-262 or (under strict integers) holds a whole float, which the fast check
    declines wherever it is, for the library to decide; the check's verdict is the
    library's."""
    library_valid = check.library.is_valid(value)
    fast_valid = check.passes_fast(value)
    if fast_valid:
        assert library_valid, why
    if check.strict_integers and _whole_float(value):
        assert fast_valid is False, why
    elif not _beyond_ecma(value):
        assert fast_valid == library_valid, why
    assert (check.errors(value) == []) == library_valid, why


# -- answers -------------------------------------------------------------------------------


def test_every_protocol_schema_builds() -> None:
    for cmd in COMMANDS:
        assert answer_check(f"response-ok.schema.json#/$defs/{cmd}").fast.is_valid(7) is False
    assert answer_check("response-error.schema.json").fast.is_valid(7) is False


def test_the_reference_engines_answers_pass_both() -> None:
    sample = responses()
    assert len(sample) > 500
    for cmd, response in sample:
        check = answer_check(_ref(cmd, response))
        assert check.fast.is_valid(response), (cmd, response)
        assert check.library.is_valid(response), (cmd, response)
        assert schema_problems(cmd, response) == [], (cmd, response)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


def _draw_path(data: st.DataObject, value: Any) -> tuple[Any, ...]:
    paths = _paths(value)
    return paths[data.draw(st.integers(0, len(paths) - 1), label="path")]


MUTATIONS = st.sampled_from(("replace", "delete", "add", "duplicate"))


def _mutate(response: Any, path: tuple[Any, ...], how: str, odd: Any) -> Any:
    mutated = copy.deepcopy(response)
    if not path:
        return odd if how == "replace" else mutated
    parent: Any = mutated
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    if how == "replace":
        parent[last] = copy.deepcopy(odd)
    elif how == "delete":
        del parent[last]
    elif how == "add" and isinstance(parent, dict):
        parent[odd if isinstance(odd, str) else "extra"] = 1
    elif how == "add":
        parent.insert(last, copy.deepcopy(odd))
    elif how == "duplicate" and isinstance(parent, list):
        parent.insert(last, copy.deepcopy(parent[last]))
    return mutated


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), MUTATIONS, st.sampled_from(ODD_VALUES))
def test_jsonschema_rs_and_the_library_agree_on_broken_answers(
    data: st.DataObject, how: str, odd: Any
) -> None:
    sample = responses()
    cmd, response = sample[data.draw(st.integers(0, len(sample) - 1), label="response")]
    path = _draw_path(data, response)
    for checked_as in (cmd, data.draw(st.sampled_from(COMMANDS), label="checked as")):
        mutated = _mutate(response, path, how, odd)
        _assert_agree(answer_check(_ref(checked_as, mutated)), mutated, (checked_as, mutated))


BROKEN_ANSWERS: list[tuple[str, dict[str, Any], list[str]]] = [
    (
        "act",
        {"seq": 1, "ok": True, "events": [{"type": "called", "seat": -1, "value": 3}]},
        [
            "common.schema.json#/$defs/seat/minimum: -1 is less than the minimum of 0 "
            "(at $.events[0].seat)"
        ],
    ),
    (
        "act",
        {"seq": 1, "ok": True, "events": [{"type": "picked", "seat": 0, "from": "deck"}]},
        [
            "event.schema.json#/$defs/picked/required: 'card' is a required property "
            "(at $.events[0])"
        ],
    ),
    (
        "act",
        {"seq": 1, "ok": True, "events": [{"type": "shouted", "seat": 0}]},
        [
            "event.schema.json#/oneOf: {'type': 'shouted', 'seat': 0} is not valid under any of "
            "the given schemas (at $.events[0])"
        ],
    ),
    (
        "act",
        {"seq": "1", "ok": True, "events": []},
        [
            "response-ok.schema.json#/$defs/envelope/properties/seq/type: '1' is not of type "
            "'integer' (at $.seq)"
        ],
    ),
    (
        "state",
        {"seq": 1, "ok": True, "state": None, "extra": 2},
        [
            "response-ok.schema.json#/$defs/state/unevaluatedProperties: Unevaluated properties "
            "are not allowed ('extra' was unexpected) (at $)",
            "state.schema.json#/type: None is not of type 'object' (at $.state)",
        ],
    ),
    (
        "act",
        {"seq": 1, "ok": False, "error": {"message": "m"}},
        [
            "response-error.schema.json#/properties/error/required: 'code' is a required "
            "property (at $.error)"
        ],
    ),
    (
        "legal",
        {"seq": 1, "ok": True, "legal": {"seat": 0, "actions": "all"}},
        [
            "legal.schema.json#/anyOf: {'seat': 0, 'actions': 'all'} is not valid under any of "
            "the given schemas (at $.legal)"
        ],
    ),
]


@pytest.mark.parametrize(("cmd", "answer", "problems"), BROKEN_ANSWERS)
def test_a_broken_answers_problems_word_for_word(
    cmd: str, answer: dict[str, Any], problems: list[str]
) -> None:
    assert schema_problems(cmd, answer) == problems


def test_where_jsonschema_rs_is_stricter_the_librarys_verdict_stands() -> None:
    # A card ending in a newline matches the library's "^...$" (Python's "$"), not ECMA's.
    answer: dict[str, Any] = {"seq": 1, "ok": True, "events": [{"type": "picked", "seat": 0,
                                                "from": "deck", "card": "Ah\n"}]}  # fmt: skip
    check = answer_check(_ref("act", answer))
    assert check.fast.is_valid(answer) is False
    assert check.library.is_valid(answer) is True
    assert schema_problems("act", answer) == []


def test_the_schemas_refs_resolve_in_the_protocol_files_only() -> None:
    # The documents handed to jsonschema-rs are the files the library's registry holds.
    uris = [uri for uri, _ in response_schemas._documents()]
    assert uris == sorted(uris)
    assert len(uris) == 9
    assert all(uri.startswith(response_schemas.SCHEMA_BASE) for uri in uris)


# -- the file schemas: transcripts, profiles and declared-readings files -------------------

FILE_ODD_VALUES: tuple[Any, ...] = (
    *ODD_VALUES, 3.0, -0.5, "dhumbal\n", "dhumbal.deal.order\n", "x" * 300, [1.0],
)  # fmt: skip


@cache
def file_documents() -> list[tuple[str, Any]]:
    """(kind, data) of every shipped transcript and profile, and two declared files (readings;
    rules and options)."""
    from conformance.spec import data, yamlsafe
    from conformance.spec.profiles import stringify_keys
    from conformance.spec.transcript import corpus_files

    found = [("transcript", stringify_keys(yamlsafe.load(path).data)) for path in corpus_files()]
    found += [
        ("profile", stringify_keys(yamlsafe.load(path).data))
        for path in data.shipped_profile_paths()
    ]
    found.append(
        (
            "declared",
            {
                "profile_format": 1,
                "extends": "everestbuzz",
                "id": "mine",
                "readings": {"reshuffle": "next_draw"},
            },
        )
    )
    found.append(
        (
            "declared",
            {
                "profile_format": 1,
                "extends": "dhumbal",
                "id": "seven",
                "rules": {"call": {"limit": 7}},
                "options": {
                    "call_limit": {"values": [5, 7, 10, 15], "changes": "at_start_only"},
                    "pickup_after_multi_throw": None,
                    "penalty": {
                        "type": "integer",
                        "range": {"min": 25, "max": 30, "step": 5},
                        "default": 25,
                        "sets": "scoring.beaten_penalty",
                        "map": None,
                        "locked_when_open": True,
                    },
                },
            },
        )
    )
    return found


def _file_check(kind: str) -> SchemaCheck:
    from conformance.spec import profile_schema, transcript

    if kind == "transcript":
        return transcript._schema_check()
    return profile_schema.profile_check(kind == "declared")


def test_the_file_schemas_pass_every_shipped_file() -> None:
    documents = file_documents()
    assert {kind for kind, _ in documents} == {"transcript", "profile", "declared"}
    for kind, value in documents:
        check = _file_check(kind)
        assert check.passes_fast(value), (kind, value.get("id"))
        assert check.library.is_valid(value), (kind, value.get("id"))


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), MUTATIONS, st.sampled_from(FILE_ODD_VALUES))
def test_jsonschema_rs_and_the_library_agree_on_broken_files(
    data: st.DataObject, how: str, odd: Any
) -> None:
    documents = file_documents()
    kind, value = documents[data.draw(st.integers(0, len(documents) - 1), label="file")]
    path = _draw_path(data, value)
    mutated = _mutate(value, path, how, odd)
    _assert_agree(_file_check(kind), mutated, (kind, path, how, odd))


def _profile() -> dict[str, Any]:
    """A copy of a shipped profile."""
    return dict(copy.deepcopy(next(v for kind, v in file_documents() if kind == "profile")))


def test_a_profiles_whole_float_is_no_integer() -> None:
    # jsonschema-rs counts 5.0 as an integer (JSON Schema does); the profile validator not.
    profile = _profile()
    profile["rules"]["hand_size"] = 5.0
    check = _file_check("profile")
    assert check.fast.is_valid(profile) is True
    assert check.passes_fast(profile) is False
    assert [(list(e.absolute_path), e.message) for e in check.errors(profile)] == [
        (["rules", "hand_size"], "5.0 is not of type 'integer'")
    ]


def test_a_whole_float_where_any_value_goes_is_the_librarys_to_pass() -> None:
    # A reading's choice maps parameters to any values: 3.0 is valid there, but the fast
    # check declines every whole float under strict integers, so the two verdicts differ
    # and the library's stands (the broken-files property test meets this now and then).
    profile = _profile()
    reading = next(r for r in profile["readings"] if r.get("choices"))
    choice = next(iter(reading["choices"].values()))
    choice[next(iter(choice))] = 3.0
    check = _file_check("profile")
    assert check.strict_integers is True
    assert check.library.is_valid(profile) is True
    assert check.passes_fast(profile) is False
    assert check.errors(profile) == []
    _assert_agree(check, profile, "a reading's choice of 3.0")


def test_a_profiles_pattern_ends_at_the_end_of_the_text() -> None:
    profile = _profile()
    profile["id"] = "dhumbal\n"
    assert [(list(e.absolute_path), e.message) for e in _file_check("profile").errors(profile)] == [
        (["id"], "'dhumbal\\n' does not match '^[a-z0-9]+(-[a-z0-9]+)*$'")
    ]


def test_a_value_jsonschema_rs_cannot_read_goes_to_the_library() -> None:
    check = _file_check("declared")
    value = {"profile_format": 1, "extends": "dhumbal", "id": datetime.date(2026, 1, 1)}
    with pytest.raises(ValueError, match="date"):
        check.fast.is_valid(value)
    assert [e.message for e in check.errors(value)] == [
        "datetime.date(2026, 1, 1) is not of type 'string'"
    ]


def test_a_refused_file_gets_the_librarys_messages_word_for_word(tmp_path: Any) -> None:
    from conformance.spec.transcript import check_transcript_file, corpus_files

    source = next(p for p in corpus_files() if p.name == "shared-card-values.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text(source.read_text("utf-8").replace("seats: 5", "seats: 'five'", 1), "utf-8")
    problems = check_transcript_file(broken)
    assert [p.message for p in problems] == ["'five' is not of type 'integer'"]
