"""The profile JSON Schema, and its errors said in words.

Every problem of a profile file is a :class:`Problem`: the file, the line, the field
(``options[0].default``) and a message written for the person who wrote the file. The
schema's own errors are explained here (:func:`explain`), one line per unknown or
missing key; :class:`Report` collects them for one document, finding each field's line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Final

from reference_engine.parameters import registry

from . import data, yamlsafe
from .json_types import Json
from .yamlsafe import DataPath, PathPart

if TYPE_CHECKING:  # jsonschema is imported when a profile is checked, not to read a cached one
    from jsonschema import ValidationError
    from jsonschema.protocols import Validator

    from .schema_check import SchemaCheck

SCHEMA_FILE = "profile.schema.json"
DECIMAL_PATTERN = r"^[0-9]+(\.[0-9]{1,2})?$"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a file: where it is and what is wrong."""

    file: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.field}: {self.message}"


class ProfileFileError(Exception):
    """A profile file that cannot be used; ``problems`` says why."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        first = str(self.problems[0]) if self.problems else "invalid profile"
        more = len(self.problems) - 1
        super().__init__(first + (f" (and {more} more problems)" if more > 0 else ""))


def stringify_keys(value: Json) -> Json:
    """The data with every mapping key as text (``false`` for the boolean key false)."""
    kind = value.__class__
    if kind is dict or (kind is not list and isinstance(value, dict)):
        assert isinstance(value, dict)
        return {
            k if k.__class__ is str else yamlsafe.key_text(k): (
                v if v.__class__ in _LEAVES else stringify_keys(v)
            )
            for k, v in value.items()
        }
    if kind is list or isinstance(value, list):
        assert isinstance(value, list)
        return [v if v.__class__ in _LEAVES else stringify_keys(v) for v in value]
    return value


# Sent even at their default: the joker's value belongs to the map of card values, which
# engines read as one value (a binding may declare the whole map it plays), and it has been in
# the format from its first version, so no engine declines it as a parameter it does not know.
ALWAYS_SENT: Final = frozenset({"card_values.X"})


def sent_profile(resolved: Mapping[str, Json]) -> dict[str, Json]:
    """The resolved profile as ``start`` sends it: each rule parameter at its schema default
    (a value other than null) left out, which the format reads the same (docs/protocol.md,
    "start"), so that an engine written before a parameter existed does not decline a
    table that plays it as the engine does."""
    rules = resolved.get("rules")
    if not isinstance(rules, Mapping):
        return dict(resolved)
    # Copied only along the paths a default is left out of: the rest is shared with
    # ``resolved`` (a deep copy of every profile cost a replay more than its judging).
    kept: dict[str, Any] = dict(rules)
    copies = {id(kept)}
    for sections, leaf, default in _left_out():
        node: Any = kept
        for key in sections:
            child = node.get(key) if isinstance(node, dict) else None
            if isinstance(child, dict) and id(child) not in copies:
                child = node[key] = dict(child)
                copies.add(id(child))
            node = child
        value = node.get(leaf) if isinstance(node, dict) else None
        # True is not 1: only the default itself is left out.
        if isinstance(node, dict) and type(value) is type(default) and value == default:
            del node[leaf]
    return {**resolved, "rules": kept}


@cache
def _left_out() -> tuple[tuple[tuple[str, ...], str, Json], ...]:
    """(sections, leaf, default) of every rule parameter ``start`` leaves out at its default."""
    found = []
    for path, default in rule_defaults().items():
        if default is None or path in ALWAYS_SENT:
            continue
        *sections, leaf = path.split(".")
        found.append((tuple(sections), leaf, default))
    return tuple(found)


# Values with no keys inside: kept as they are, without a call (most of a file).
_LEAVES = frozenset({str, int, float, bool, type(None)})


@cache
def profile_schema() -> dict[str, Json]:
    """The profile JSON Schema."""
    text = (data.schema_dir() / SCHEMA_FILE).read_text(encoding="utf-8")
    schema: dict[str, Json] = json.loads(text)
    return schema


@cache
def rule_defaults() -> dict[str, Json]:
    """The schema's default of every optional rule parameter, by path relative to rules
    (the registry's, reference_engine/parameters.py)."""
    return registry().defaults()


def _strict_integer(checker: Any, instance: object) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


def _anchored_pattern(
    validator: Validator, pattern: str, instance: object, schema: Mapping[str, Json]
) -> Iterator[ValidationError]:
    # Python's "$" also matches before a final newline; JSON Schema's does not.
    # lazy: start-up speed
    from jsonschema import ValidationError

    if not isinstance(instance, str):
        return
    if re.search(pattern, instance) is None or (pattern.endswith("$") and instance.endswith("\n")):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


@cache
def profile_validator() -> Validator:
    # lazy: start-up speed
    import jsonschema

    base = jsonschema.validators.validator_for(profile_schema())
    checker = base.TYPE_CHECKER.redefine("integer", _strict_integer)
    cls = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        base, validators={"pattern": _anchored_pattern}, type_checker=checker
    )
    validator: Validator = cls(profile_schema())
    return validator


@cache
def profile_check(declared: bool) -> SchemaCheck:
    """The schema check of a profile (or a declared-readings file): jsonschema-rs passes
    the files that pass, its validator finds the errors of the others."""
    # lazy: start-up speed
    from .schema_check import schema_check

    if declared:
        return schema_check(declared_validator())
    return schema_check(profile_validator(), strict_integers=True)


def schema_errors(value: Json, *, declared: bool = False) -> list[ValidationError]:
    """The schema's errors in ``value``; none without asking the library when
    jsonschema-rs passes it."""
    return profile_check(declared).errors(value)


def show(value: Json) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict | list):
        text = json.dumps(value, ensure_ascii=False)
        return text if len(text) <= 60 else text[:57] + "..."
    return str(value)


def kind(value: Json) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "a mapping"


_TYPE_NAMES = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean (true or false)",
    "null": "null",
}


def explain(error: ValidationError) -> list[tuple[DataPath, str]]:
    """Each schema error as (path, message): one per unknown or missing key."""
    path: DataPath = tuple(error.absolute_path)
    instance = error.instance
    schema = error.schema if isinstance(error.schema, dict) else {}
    keyword = error.validator
    expected_value: Any = error.validator_value
    if keyword in ("additionalProperties", "unevaluatedProperties") and isinstance(instance, dict):
        known = list(schema.get("properties", {}))
        expected = f"; expected one of: {', '.join(known)}" if known else ""
        return [((*path, k), f"unknown key{expected}") for k in instance if k not in known]
    if keyword == "required" and isinstance(instance, dict):
        return [((*path, k), "missing required key") for k in expected_value if k not in instance]
    if keyword == "enum":
        allowed = ", ".join(str(v) for v in expected_value)
        return [(path, f"{show(instance)} is not one of: {allowed}")]
    if keyword == "const":
        return [(path, f"must be {show(expected_value)}, not {show(instance)}")]
    if keyword == "type":
        if schema.get("pattern") == DECIMAL_PATTERN:
            return [
                (path, f'must be a decimal string such as "0.05" (quoted), not {show(instance)}')
            ]
        wanted: list[str] = expected_value if isinstance(expected_value, list) else [expected_value]
        names = " or ".join(_TYPE_NAMES.get(t, str(t)) for t in wanted)
        return [(path, f"must be {names}, not {kind(instance)} ({show(instance)})")]
    if keyword == "pattern":
        if schema.get("pattern") == DECIMAL_PATTERN:
            return [
                (path, f'{show(instance)} is not an amount such as "0.05" (at most 2 decimals)')
            ]
        if schema.get("description"):
            return [(path, f"{show(instance)} is not of the form: {schema['description']}")]
        return [(path, f"{show(instance)} does not match {expected_value}")]
    if keyword == "minimum":
        return [(path, f"{show(instance)} is below the minimum {expected_value}")]
    if keyword == "maximum":
        return [(path, f"{show(instance)} is above the maximum {expected_value}")]
    if keyword in ("minLength", "minItems", "minProperties"):
        return [(path, "must not be empty")]
    if keyword == "uniqueItems":
        return [(path, "has repeated items")]
    if keyword == "oneOf" and isinstance(instance, dict) and path[:1] == ("options",):
        if "values" in instance and "range" in instance:
            return [((*path, "range"), "give values or range, not both")]
        return [(path, "needs values or range")]
    if keyword == "not" and schema.get("not") == {} and path:
        last = path[-1]
        if last == "reason":
            return [(path, "only interpretation clauses have a reason")]
        if last == "range":
            return [(path, "only integer and decimal options have a range; use values")]
        return [(path, "not allowed here")]
    return [(path, error.message)]


SourcePath = Callable[[DataPath], DataPath]


class Report:
    """Collects problems for one document, finding each field's line.

    ``source`` turns a path in the checked data into the path of the same field in the
    file (a resolved declared profile is checked, its own file is reported on).
    """

    def __init__(self, doc: yamlsafe.YamlDocument, source: SourcePath | None = None) -> None:
        self.doc = doc
        self.source = source
        self.problems: list[Problem] = []

    def add(self, path: Sequence[PathPart], message: str) -> None:
        if self.source is not None:
            path = self.source(tuple(path))
        field = yamlsafe.format_path(path) or "(top)"
        problem = Problem(self.doc.file, self.doc.line(path), field, message)
        if problem not in self.problems:
            self.problems.append(problem)


@cache
def declared_validator() -> Validator:
    # lazy: start-up speed
    import jsonschema

    schema = {"$defs": profile_schema()["$defs"], "$ref": "#/$defs/declared"}
    cls = jsonschema.validators.validator_for(profile_schema())
    validator: Validator = cls(schema)
    return validator
