"""Results remembered by identity (conformance/spec/memo.py)."""

from __future__ import annotations

import json
from typing import Any

from conformance.spec.memo import by_identities, by_identity, by_identity_and_key


def test_a_result_is_remembered_for_the_same_object_only() -> None:
    calls: list[dict[str, Any]] = []

    @by_identity(size=2)
    def keys(value: dict[str, Any]) -> list[str]:
        calls.append(value)
        return sorted(value)

    first, equal, third = {"a": 1}, {"a": 1}, {"b": 2}
    assert keys(first) is keys(first)
    assert keys(equal) == ["a"]  # equal but another object: asked again
    assert [c is first for c in calls] == [True, False]
    keys(third)  # a third object past the size: the remembered ones are dropped
    keys(first)
    assert len(calls) == 4


def test_a_result_of_two_arguments_is_remembered_for_the_same_pair_only() -> None:
    calls: list[tuple[dict[str, Any], dict[str, Any]]] = []

    @by_identities(size=2)
    def merged(first: dict[str, Any], second: dict[str, Any]) -> list[str]:
        calls.append((first, second))
        return sorted({**first, **second})

    a, b, equal_b = {"a": 1}, {"b": 2}, {"b": 2}
    assert merged(a, b) is merged(a, b)
    assert merged(a, equal_b) == ["a", "b"]  # an equal second object: asked again
    assert merged(b, a) == ["a", "b"]  # the same objects the other way round: asked again
    assert len(calls) == 3
    merged(a, b)  # past the size: the first pair was dropped
    assert len(calls) == 4


def test_a_result_is_remembered_by_the_object_and_the_key_of_the_value() -> None:
    calls: list[tuple[dict[str, Any], dict[str, Any]]] = []

    @by_identity_and_key(json.dumps, size=2)
    def merged(first: dict[str, Any], second: dict[str, Any]) -> list[str]:
        calls.append((first, second))
        return sorted({**first, **second})

    a, equal_a, b = {"a": 1}, {"a": 1}, {"b": 2}
    assert merged(a, b) is merged(a, {"b": 2})  # another value with the same key: remembered
    assert merged(equal_a, b) == ["a", "b"]  # an equal but other object: asked again
    assert merged(a, {"c": 3}) == ["a", "c"]  # another key: asked again
    assert len(calls) == 3
    merged(a, b)  # past the size: the first pair was dropped
    assert len(calls) == 4
