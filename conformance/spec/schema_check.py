"""A JSON Schema's check of many values: jsonschema-rs passes the valid ones, jsonschema
words the errors of the others.

The jsonschema library walks a schema anew for every instance and builds an error object
for every subschema that fails, even inside an ``anyOf`` that passes: milliseconds for one
of the protocol's answers. jsonschema-rs compiles the schema once and says "valid or not" in
microseconds. A value it passes has no errors; a value it refuses is handed to the
jsonschema validator, whose errors (and their messages) are the answer. So every message
is the library's, and the verdict too: jsonschema-rs only decides which values need no
further look.

That holds while jsonschema-rs passes no value the library validator refuses (on values as
JSON or YAML decoding yields them). Where jsonschema-rs is stricter, the library decides as
it always did and may pass the value: ECMA-262 patterns (``$`` is the end of the text, not
also before a final newline; ``\\d`` and ``\\w`` are ASCII), NaN and infinities (no JSON
numbers). Where it would be looser, it is not asked: a value holding a whole float goes to
a library validator whose integers are strict (1.0 is no integer for the profile
validator; JSON Schema counts it as one), and a value jsonschema-rs cannot read (a key that
is no string, a date) goes to the library.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, Any

import jsonschema_rs

if TYPE_CHECKING:
    from jsonschema import ValidationError
    from jsonschema.protocols import Validator


@dataclass(frozen=True, eq=False)
class SchemaCheck:
    """The check of one schema: ``fast`` passes the valid values, ``library`` (the same
    schema, in its own dialect) finds the errors of the others."""

    fast: jsonschema_rs.Validator
    library: Validator
    # The library refuses 1.0 as an integer; jsonschema-rs, as JSON Schema, takes it.
    strict_integers: bool = False

    def errors(self, value: Any, limit: int | None = None) -> list[ValidationError]:
        """The library's errors in ``value`` (its first ``limit``, when given): none,
        without asking it, when jsonschema-rs passes ``value``."""
        if self.passes_fast(value):
            return []
        # The library walks lazily: a limit bounds the work on a value of a million errors.
        return list(islice(self.library.iter_errors(value), limit))

    def passes_fast(self, value: Any) -> bool:
        """Whether jsonschema-rs passes ``value`` where it is as strict as the library."""
        if self.strict_integers and _holds_whole_float(value):
            return False
        try:
            return self.fast.is_valid(value)
        except ValueError:  # no JSON value: the library says what is wrong with it
            return False


def schema_check(
    library: Validator,
    resources: Iterable[tuple[str, Mapping[str, Any]]] = (),
    *,
    strict_integers: bool = False,
) -> SchemaCheck:
    """The check of ``library``'s schema: jsonschema-rs compiles the same schema, its
    ``$ref``s resolved in ``resources`` ((``$id``, contents) pairs), never fetched."""
    schema = library.schema if isinstance(library.schema, bool) else dict(library.schema)
    registry = jsonschema_rs.Registry([(uri, dict(contents)) for uri, contents in resources])
    fast = jsonschema_rs.validator_for(schema, registry=registry, offline=True)
    return SchemaCheck(fast, library, strict_integers)


def _holds_whole_float(value: Any) -> bool:
    if isinstance(value, float):
        return value.is_integer()
    if isinstance(value, dict):
        return any(_holds_whole_float(item) for item in value.values())
    if isinstance(value, list):
        return any(_holds_whole_float(item) for item in value)
    return False
