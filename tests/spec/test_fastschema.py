"""The compiled schemas (responses, transcripts, profiles) agree with jsonschema."""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

import jsonschema
import pytest
import referencing
import referencing.jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.harness import replay, response_schemas
from conformance.harness.runner import build_cases
from conformance.spec.fastschema import compile_schema
from conformance.spec.selection import shipped_documents
from conformance.spec.transcript import load_corpus
from reference_engine.server import COMMANDS, Session

OK_COMMANDS = COMMANDS  # every command's answer has a success schema
ODD_VALUES: tuple[Any, ...] = (
    None, True, False, 0, 1, -1, 1.0, 2.5, float("nan"), "", "Ah", "1x", "x-", [], {},
    ["Ah"], ["Ah", "Ah"], {"x-a": 1}, {"a": 1},
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
            {"cmd": "hello", "protocol": "1.0"},
            replay.start_message(case.transcript, case.resolved),
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


def _library_valid(cmd: str, response: Any) -> bool:
    return not list(response_schemas._validator(_ref(cmd, response)).iter_errors(response))


def _compiled(cmd: str, response: Any) -> bool:
    check = response_schemas._fast_check(_ref(cmd, response))
    assert check is not None
    return check(response)


def test_every_protocol_schema_compiles() -> None:
    for cmd in OK_COMMANDS:
        assert response_schemas._fast_check(f"response-ok.schema.json#/$defs/{cmd}") is not None
    assert response_schemas._fast_check("response-error.schema.json") is not None


def test_the_reference_engines_answers_pass_both() -> None:
    sample = responses()
    assert len(sample) > 500
    for cmd, response in sample:
        if cmd == "nonsense":
            continue
        assert _compiled(cmd, response), (cmd, response)
        assert _library_valid(cmd, response), (cmd, response)


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


def _mutate(response: dict[str, Any], path: tuple[Any, ...], how: str, odd: Any) -> Any:
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
def test_compiled_and_library_agree_on_broken_answers(
    data: st.DataObject, how: str, odd: Any
) -> None:
    sample = responses()
    cmd, response = sample[data.draw(st.integers(0, len(sample) - 1), label="response")]
    path = _draw_path(data, response)
    for ref_cmd in (cmd, data.draw(st.sampled_from(OK_COMMANDS), label="checked as")):
        mutated = _mutate(response, path, how, odd)
        assert _compiled(ref_cmd, mutated) == _library_valid(ref_cmd, mutated), (
            ref_cmd,
            mutated,
        )


def test_schema_problems_keeps_the_librarys_messages() -> None:
    answer = {"seq": 1, "ok": True, "events": [{"type": "called", "seat": -1, "value": 3}]}
    assert response_schemas.schema_problems("act", answer) == [
        "common.schema.json#/$defs/seat/minimum: -1 is less than the minimum of 0 "
        "(at $.events[0].seat)"
    ]


def _registry(schema: dict[str, Any]) -> referencing.Registry[Any]:
    resource = referencing.jsonschema.DRAFT202012.create_resource(schema)
    return referencing.Registry().with_resource(schema["$id"], resource)


@pytest.mark.parametrize(
    ("schema", "instances"),
    [
        ({"type": "integer"}, [1, 1.0, True, "1", None]),
        ({"enum": [1, "a"]}, [1, 1.0, True, "a", "b"]),
        ({"const": [0, False]}, [[0, False], [False, 0], [0.0, False]]),
        ({"uniqueItems": True}, [[1, True], [1, 1.0], [[1], [True]], [{"a": 1}, {"a": 1}]]),
        (
            {
                "properties": {"a": True},
                "anyOf": [{"properties": {"b": {"type": "string"}}}, {"required": ["c"]}],
                "unevaluatedProperties": False,
            },
            [{"a": 1, "b": "x"}, {"a": 1, "b": 2, "c": 3}, {"b": 2}, {"d": 1}, {"c": 1, "b": "x"}],
        ),
        (
            {
                "if": {"properties": {"k": {"const": 1}}},
                "then": {"required": ["t"]},
                "else": {"required": ["e"]},
            },
            [{"k": 1, "t": 0}, {"k": 1}, {"k": 2, "e": 0}, {"k": 2}, 7],
        ),
        (
            {"contains": {"const": 1}, "minContains": 2, "maxContains": 3},
            [[1], [1, 1], [1, 1, 1, 1], [], "x"],
        ),
        ({"oneOf": [{"minimum": 2}, {"maximum": 5}]}, [1, 3, 6, "x"]),
        (
            {
                "$ref": "#/$defs/base",
                "properties": {"b": True},
                "unevaluatedProperties": False,
                "$defs": {
                    "base": {
                        "properties": {"a": {"type": "integer"}},
                        "patternProperties": {"^x-": True},
                    }
                },
            },
            [{"a": 1, "b": 2}, {"a": 1, "c": 1}, {"x-y": 1}, {"a": "s"}, {"y-x": 1}, []],
        ),
        (
            {
                "oneOf": [
                    {"$ref": "#/$defs/one"},
                    {"required": ["kind"], "properties": {"kind": {"const": "two"}}},
                ],
                "$defs": {
                    "one": {
                        "type": "object",
                        "required": ["kind", "n"],
                        "properties": {"kind": {"const": "one"}, "n": {"type": "integer"}},
                    }
                },
            },
            [
                {"kind": "one", "n": 1},
                {"kind": "one"},
                {"kind": "two"},
                {"kind": "three"},
                {"kind": 1},
                {},
                [],
                "two",
            ],
        ),
    ],
)
def test_keywords_agree_with_the_library(schema: dict[str, Any], instances: list[Any]) -> None:
    schema = {"$id": "urn:test", **schema}
    check = compile_schema("urn:test", _registry(schema))
    assert check is not None
    library = jsonschema.Draft202012Validator(schema)
    for instance in instances:
        assert check(instance) == library.is_valid(instance), instance


def test_a_keyword_not_compiled_leaves_the_schema_to_the_library() -> None:
    schema = {"$id": "urn:test", "unevaluatedItems": False}
    assert compile_schema("urn:test", _registry(schema)) is None


# -- the file schemas: transcripts, profiles and declared-readings files -------------------

FILE_ODD_VALUES: tuple[Any, ...] = (
    *ODD_VALUES, 3.0, -0.5, "dhumbal\n", "Ah\n", "dhumbal.deal.order\n", "x" * 300, [1.0],
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


def _file_checks(kind: str) -> tuple[Any, Any]:
    """(compiled check, library validator) of a kind of file, in its own dialect."""
    from conformance.spec import profiles, transcript

    if kind == "transcript":
        return transcript._fast_schema_check(), transcript._schema_validator()
    declared = kind == "declared"
    validator = profiles._declared_validator() if declared else profiles._validator()
    return profiles._fast_check(declared), validator


def test_the_file_schemas_compile_and_pass_every_shipped_file() -> None:
    documents = file_documents()
    assert {kind for kind, _ in documents} == {"transcript", "profile", "declared"}
    for kind, value in documents:
        check, validator = _file_checks(kind)
        assert check is not None, kind
        assert check(value), (kind, value.get("id"))
        assert validator.is_valid(value), (kind, value.get("id"))


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), MUTATIONS, st.sampled_from(FILE_ODD_VALUES))
def test_compiled_and_library_agree_on_broken_files(
    data: st.DataObject, how: str, odd: Any
) -> None:
    documents = file_documents()
    kind, value = documents[data.draw(st.integers(0, len(documents) - 1), label="file")]
    path = _draw_path(data, value)
    mutated = _mutate(value, path, how, odd)
    check, validator = _file_checks(kind)
    assert check(mutated) == validator.is_valid(mutated), (kind, path, how, odd)


@pytest.mark.parametrize(
    ("dialect", "instance", "valid"),
    [
        ("library", 1.0, True),
        ("strict", 1.0, False),
        ("strict", 1, True),
        ("library", "ab\n", True),
        ("strict", "ab\n", False),
        ("strict", "ab", True),
    ],
)
def test_a_dialect_is_as_strict_as_its_validator(dialect: str, instance: Any, valid: bool) -> None:
    from conformance.spec.fastschema import LIBRARY, Dialect, compile_document

    chosen = (
        LIBRARY if dialect == "library" else Dialect(strict_integers=True, anchored_patterns=True)
    )
    schema = {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string", "pattern": "^a.$"}]}
    check = compile_document(schema, chosen)
    assert check is not None
    assert check(instance) is valid


def test_a_refused_file_gets_the_librarys_messages_word_for_word(tmp_path: Any) -> None:
    from conformance.spec.transcript import check_transcript_file, corpus_files

    source = next(p for p in corpus_files() if p.name == "shared-card-values.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text(source.read_text("utf-8").replace("seats: 5", "seats: 'five'", 1), "utf-8")
    problems = check_transcript_file(broken)
    assert [p.message for p in problems] == ["'five' is not of type 'integer'"]
