"""The protocol's JSON Schemas (schema/protocol/) as the harness checks answers with them:
on unless ``--no-validate-protocol``; each violation names the schema file and keyword."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any, Final

import jsonschema
import referencing
import referencing.jsonschema

from reference_engine.kept import Kept

from ..spec import data

if TYPE_CHECKING:  # jsonschema-rs is imported when an answer is first checked
    from ..spec.schema_check import SchemaCheck

SCHEMA_BASE: Final = "https://jhyap-conformance.org/schema/protocol/"
# The schema errors worded for one answer: the library takes milliseconds for each item of
# a list, so an answer of 100,000 bad events would take minutes to word in full.
MAX_SCHEMA_ERRORS: Final = 50


@cache
def _documents() -> tuple[tuple[str, dict[str, Any]], ...]:
    """(``$id``, contents) of every protocol schema file."""
    found = []
    for path in sorted((data.schema_dir() / "protocol").glob("*.schema.json")):
        contents = json.loads(path.read_text("utf-8"))
        _index_locations(contents, path.name, "")
        found.append((contents["$id"], contents))
    return tuple(found)


@cache
def schema_registry() -> referencing.Registry[Any]:
    """The protocol schemas for the jsonschema library (which words the errors)."""
    return referencing.Registry().with_resources(
        (uri, referencing.jsonschema.DRAFT202012.create_resource(contents))
        for uri, contents in _documents()
    )


# Every subschema object of the loaded schemas, by identity, to its file and JSON pointer:
# validation errors carry the subschema itself, and this names where it is written.
_LOCATIONS: dict[int, str] = {}
_KEEP_ALIVE: list[Any] = []


def _index_locations(node: Any, file: str, pointer: str) -> None:
    if isinstance(node, dict):
        _LOCATIONS[id(node)] = f"{file}#{pointer}"
        _KEEP_ALIVE.append(node)
        for key, value in node.items():
            escaped = str(key).replace("~", "~0").replace("/", "~1")
            _index_locations(value, file, f"{pointer}/{escaped}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            _index_locations(value, file, f"{pointer}/{i}")


@cache
def _validator(ref: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator({"$ref": SCHEMA_BASE + ref}, registry=schema_registry())


@cache
def answer_check(ref: str) -> SchemaCheck:
    """The check of an answer against the schema at ``ref`` (in schema/protocol/)."""
    # lazy: start-up speed
    from ..spec.schema_check import schema_check

    return schema_check(_validator(ref), _documents())


def _location(error: jsonschema.ValidationError, ref: str) -> str:
    """The failing keyword as ``file#/pointer``: ``event.schema.json#/$defs/dealt/required``."""
    where = _LOCATIONS.get(id(error.schema))
    if where is not None:
        return f"{where}/{error.validator}"
    return f"{ref.split('#')[0]}#/" + "/".join(str(p) for p in error.absolute_schema_path)


def _leaves(error: jsonschema.ValidationError) -> list[jsonschema.ValidationError]:
    """The errors that explain ``error``: inside a oneOf, those of the branch it meant."""
    if not error.context:
        return [error]
    branches: dict[int, list[jsonschema.ValidationError]] = {}
    for sub in error.context:
        branches.setdefault(int(sub.relative_schema_path[0]), []).append(sub)
    # The branch whose "type" discriminator matched is the one the engine meant.
    meant = [
        errs
        for errs in branches.values()
        if not any(e.validator == "const" and list(e.relative_path) == ["type"] for e in errs)
    ]
    if len(meant) == 1:
        return [leaf for sub in meant[0] for leaf in _leaves(sub)]
    return [error]


def _message(error: jsonschema.ValidationError) -> str:
    wanted = error.schema.get("contains") if isinstance(error.schema, dict) else None
    if error.validator == "contains" and isinstance(wanted, dict) and "const" in wanted:
        # jsonschema's own message does not say which item is missing.
        return f"{error.instance!r} does not list {wanted['const']!r}"
    return error.message


_ERROR_REF: Final = "response-error.schema.json"
_OK_REFS: dict[str, str] = {}  # by command: the schema of its accepted answer


# Answers that passed, by schema and by their line after the seq (the answer text, see
# EngineClient.answer_text): an engine answers many requests alike (the state before and
# after a refusal, an accepted set_option, ...). The line decodes to the same value but
# for the seq, an integer, which is all the schemas ask of it (see answer_text).
_PASSED: Final[Kept[bool]] = Kept(4096)
_PASSED_TEXT_BYTES: Final = 4096  # longer answers are checked each time, not kept


def schema_problems(cmd: str, response: Mapping[str, Any], text: bytes | None = None) -> list[str]:
    """Where ``response`` (to ``cmd``) breaks schema/protocol/: ``schema path: message (at
    instance path)`` for each violation, the schema path naming the file and keyword.
    ``text``: the answer's line after its seq (:attr:`.EngineClient.answer_text`), when
    known; an answer whose text passed before passes without a look."""
    ref = _OK_REFS.get(cmd) if response.get("ok") is True else _ERROR_REF
    if ref is None:
        ref = _OK_REFS[cmd] = f"response-ok.schema.json#/$defs/{cmd}"
    key = (ref, text) if text is not None and len(text) <= _PASSED_TEXT_BYTES else None
    if key is not None and _PASSED.get(key):
        return []
    check = answer_check(ref)
    if check.passes_fast(response):
        if key is not None:
            _PASSED.put(key, True)
        return []  # the usual answer: no error list to make
    errors = check.errors(response, MAX_SCHEMA_ERRORS + 1)
    if not errors:
        return []
    problems = []
    for error in errors[:MAX_SCHEMA_ERRORS]:
        for leaf in _leaves(error):
            problems.append(f"{_location(leaf, ref)}: {_message(leaf)} (at {leaf.json_path})")
    found = sorted(set(problems))
    if len(errors) > MAX_SCHEMA_ERRORS:
        found.append(f"... and more (the first {MAX_SCHEMA_ERRORS} schema errors are shown)")
    return found
