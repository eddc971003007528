"""Every enum in the shipped JSON Schemas explains its values (a sibling ``enumDescriptions``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = sorted((ROOT / "schema").rglob("*.json"))


def enums(node: Any, pointer: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """(JSON pointer, schema object) for every object holding an ``enum``, in document order."""
    if isinstance(node, dict):
        if "enum" in node:
            yield pointer or "/", node
        for key, value in node.items():
            yield from enums(value, f"{pointer}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from enums(value, f"{pointer}/{index}")


def enum_problems(schema: Any) -> list[str]:
    """Every enum without one non-empty description per value, in the same order."""
    problems = []
    for pointer, node in enums(schema):
        descriptions = node.get("enumDescriptions")
        if not isinstance(descriptions, list):
            problems.append(f"{pointer}: no enumDescriptions")
        elif len(descriptions) != len(node["enum"]):
            problems.append(
                f"{pointer}: {len(node['enum'])} values but {len(descriptions)} descriptions"
            )
        elif not all(isinstance(d, str) and d.strip() for d in descriptions):
            problems.append(f"{pointer}: an empty description")
    return problems


def test_the_schemas_have_enums() -> None:
    assert len(SCHEMAS) >= 10
    found = [p for path in SCHEMAS for p, _ in enums(json.loads(path.read_text("utf-8")))]
    assert len(found) >= 40


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_enum_value_is_described(path: Path) -> None:
    schema = json.loads(path.read_text(encoding="utf-8"))
    assert enum_problems(schema) == []
    Draft202012Validator.check_schema(schema)


def test_the_check_catches_missing_and_mismatched_descriptions() -> None:
    schema = {
        "properties": {
            "a": {"enum": ["x", "y"]},
            "b": {"enum": ["x", "y"], "enumDescriptions": ["only one"]},
            "c": {"items": {"enum": ["x"], "enumDescriptions": [" "]}},
            "d": {"enum": ["x"], "enumDescriptions": ["fine"]},
        }
    }
    assert enum_problems(schema) == [
        "/properties/a: no enumDescriptions",
        "/properties/b: 2 values but 1 descriptions",
        "/properties/c/items: an empty description",
    ]
