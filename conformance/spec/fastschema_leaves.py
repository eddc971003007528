"""The leaves of a compiled JSON Schema (see :mod:`.fastschema`): checks of one type,
string, number or scalar, the library's type semantics, and the dialects."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from jsonschema.validators import Draft202012Validator

Check = Callable[[Any], bool]


class Unsupported(Exception):
    """A keyword this compiler does not handle: leave the schema to the library."""


# Keywords that assert something in the library's draft 2020-12 validator; any other
# key (title, description, $defs, enumDescriptions, ...) asserts nothing.
ASSERTING = frozenset(Draft202012Validator.VALIDATORS)


def is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def is_strict_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


TYPES: dict[str, Check] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": is_integer,
    "number": is_number,
}


def always(value: Any) -> bool:
    return True


def never(value: Any) -> bool:
    return False


def all_of(checks: list[Check]) -> Check:
    if not checks:
        return always
    if len(checks) == 1:
        return checks[0]
    parts = tuple(checks)

    def check(value: Any) -> bool:
        for part in parts:  # noqa: SIM110 (a plain loop: this is the hot path)
            if not part(value):
                return False
        return True

    return check


@dataclass(frozen=True)
class Dialect:
    """Where a validator departs from the library's draft 2020-12 defaults.

    ``strict_integers``: 1.0 is not an integer. ``anchored_patterns``: a pattern's
    final ``$`` does not match before a trailing newline (as in JSON Schema, unlike
    Python's ``re``)."""

    strict_integers: bool = False
    anchored_patterns: bool = False


LIBRARY = Dialect()


# For a string check, the strings it has passed: a list of only those (card names, in
# every state) passes at once, with one set operation instead of a call per item.
KNOWN_GOOD: dict[Check, set[str]] = {}


def simple_scalar(schema: Mapping[str, Any], dialect: Dialect) -> Check | None:
    """One function for the commonest leaves, ``{"type": "integer", "minimum": 0}`` and
    ``{"type": "string", "pattern": ...}``: the same verdicts, fewer calls."""
    asserting = {k for k in schema if k in ASSERTING}
    if asserting == {"type", "minimum"} and schema["type"] == "integer":
        low = schema["minimum"]
        if not is_number(low):
            return None
        integer = is_strict_integer if dialect.strict_integers else is_integer

        def integer_at_least(value: Any) -> bool:
            if value.__class__ is int:
                return not value < low
            return integer(value) and not value < low

        return integer_at_least
    if asserting == {"type", "pattern"} and schema["type"] == "string":
        pattern = re.compile(schema["pattern"])
        unanchored = dialect.anchored_patterns and schema["pattern"].endswith("$")
        memo: dict[str, bool] = {}
        good: set[str] = set()  # the strings seen to match, for whole lists at once

        def string_matching(value: Any) -> bool:
            found = memo.get(value) if value.__class__ is str else None
            if found is None:
                if not isinstance(value, str):
                    return False
                found = pattern.search(value) is not None
                if unanchored and value.endswith("\n"):
                    found = False
                if len(memo) < _MEMO_SIZE:
                    memo[value] = found
                    if found:
                        good.add(value)
            return found

        KNOWN_GOOD[string_matching] = good
        return string_matching
    return None


def all_known(known: set[str] | None, items: list[Any]) -> bool:
    """Whether every item is a string already seen to pass (never a false yes: only
    strings equal strings, and a list or dict item is unhashable)."""
    if known is None:
        return False
    try:
        return known.issuperset(items)
    except TypeError:
        return False


def type_check(types: Any, dialect: Dialect) -> Check:
    names = types if isinstance(types, list) else [types]
    table = TYPES | {"integer": is_strict_integer} if dialect.strict_integers else TYPES
    try:
        tests = tuple(table[name] for name in names)
    except (KeyError, TypeError):
        raise Unsupported(f"type {types!r}") from None
    # The exact classes JSON decoding yields pass at once; anything else (1.0 for an
    # integer, a subclass) takes the library's tests.
    exact = frozenset(cls for name in names for cls in _EXACT_CLASSES[name])

    def check(value: Any) -> bool:
        if value.__class__ in exact:
            return True
        for test in tests:  # noqa: SIM110 (a plain loop: this is the hot path)
            if test(value):
                return True
        return False

    return check


_EXACT_CLASSES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "boolean": (bool,),
    "null": (type(None),),
    "integer": (int,),
    "number": (int, float),
}


def string_checks(schema: Mapping[str, Any], dialect: Dialect) -> list[Check]:
    checks: list[Check] = []
    if "pattern" in schema:
        checks.append(pattern_check(schema["pattern"], dialect))
    if "minLength" in schema:
        low = schema["minLength"]
        checks.append(lambda v: not isinstance(v, str) or len(v) >= low)
    if "maxLength" in schema:
        high = schema["maxLength"]
        checks.append(lambda v: not isinstance(v, str) or len(v) <= high)
    return checks


_MEMO_SIZE = 4096


def pattern_check(text: str, dialect: Dialect) -> Check:
    pattern = re.compile(text)
    unanchored = dialect.anchored_patterns and text.endswith("$")
    # The same few strings (card names, amounts) come back in every response.
    memo: dict[str, bool] = {}

    def check(value: Any) -> bool:
        if not isinstance(value, str):
            return True
        found = memo.get(value)
        if found is None:
            found = pattern.search(value) is not None and not (unanchored and value.endswith("\n"))
            if len(memo) < _MEMO_SIZE:
                memo[value] = found
        return found

    return check


def number_checks(schema: Mapping[str, Any]) -> list[Check]:
    checks: list[Check] = []
    if "minimum" in schema:
        low = schema["minimum"]
        checks.append(lambda v: not is_number(v) or not v < low)
    if "maximum" in schema:
        high = schema["maximum"]
        checks.append(lambda v: not is_number(v) or not v > high)
    if "exclusiveMinimum" in schema:
        above = schema["exclusiveMinimum"]
        checks.append(lambda v: not is_number(v) or not v <= above)
    if "exclusiveMaximum" in schema:
        below = schema["exclusiveMaximum"]
        checks.append(lambda v: not is_number(v) or not v >= below)
    if "multipleOf" in schema:
        step = schema["multipleOf"]
        if not is_integer(step) or isinstance(step, float):
            # The library divides by a float divisor; only whole divisors are compiled.
            raise Unsupported(f"multipleOf {step!r}")
        checks.append(lambda v: not is_number(v) or v % step == 0)
    return checks
