"""JSON Schemas (draft 2020-12) compiled into plain Python predicates.

The jsonschema library walks a schema anew for every instance and builds an error
object for every subschema that fails, even inside an ``anyOf`` that passes; on the
protocol's responses that costs milliseconds each. A predicate compiled once from
the same schema answers only "valid or not", in a fraction of that, with the
library's own semantics (its type checker, its ``equal`` and ``uniq``, its rules
for ``unevaluatedProperties``). Callers use it as a fast path: when it says invalid,
the library finds the errors and words the messages, so nothing is looser and every
message is the same. A schema using a keyword not compiled here is not compiled at
all (:func:`compile_schema` returns None) and the library does all the work.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from jsonschema._utils import equal, uniq  # the library's own comparisons
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from .fastschema_leaves import (
    ASSERTING,
    KNOWN_GOOD,
    LIBRARY,
    Check,
    Dialect,
    Unsupported,
    all_known,
    all_of,
    always,
    never,
    number_checks,
    simple_scalar,
    string_checks,
    type_check,
)

if TYPE_CHECKING:
    from referencing._core import Resolver

KeysOf = Callable[[dict[str, Any]], set[str]]
F = TypeVar("F", Check, KeysOf)


_COMPILED = frozenset(
    {
        "$ref", "type", "const", "enum",
        "required", "properties", "patternProperties", "additionalProperties",
        "unevaluatedProperties", "propertyNames", "minProperties", "maxProperties",
        "dependentRequired", "dependentSchemas",
        "items", "prefixItems", "contains", "minItems", "maxItems", "uniqueItems",
        "pattern", "minLength", "maxLength",
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
        "allOf", "anyOf", "oneOf", "not", "if",
    }
)  # fmt: skip


class _Compiler:
    """Compiles the schemas of one registry; each subschema once (by identity)."""

    def __init__(self, dialect: Dialect = LIBRARY) -> None:
        self.dialect = dialect
        self._checks: dict[int, Check] = {}
        self._keys: dict[int, KeysOf] = {}
        self._keep: list[Any] = []  # the memo keys are ids: keep their schemas alive

    def check(self, schema: Any, resolver: Resolver[Any]) -> Check:
        if schema is True:
            return always
        if schema is False:
            return never
        if not isinstance(schema, dict):
            raise Unsupported(f"schema {schema!r}")
        return self._once(self._checks, schema, lambda: self._compile(schema, resolver))

    def _once(self, table: dict[int, Any], schema: dict[str, Any], build: Callable[[], F]) -> F:
        """What ``build`` makes of ``schema``, made once; while it is being made, a
        placeholder that calls it stands in, so that recursive references terminate."""
        key = id(schema)
        found: F | None = table.get(key)
        if found is not None:
            return found
        cell: list[Any] = []
        table[key] = lambda value: cell[0](value)
        self._keep.append(schema)
        made = build()
        cell.append(made)
        table[key] = made
        return made

    def _compile(self, schema: dict[str, Any], resolver: Resolver[Any]) -> Check:
        unknown = sorted(k for k in schema if k in ASSERTING and k not in _COMPILED)
        if unknown:
            raise Unsupported(", ".join(unknown))
        simple = simple_scalar(schema, self.dialect)
        if simple is not None:
            return simple
        if "$id" in schema:  # a resource of its own: its references resolve against it
            resolver = resolver.in_subresource(DRAFT202012.create_resource(schema))
        checks: list[Check] = []
        if "$ref" in schema:
            resolved = resolver.lookup(schema["$ref"])
            checks.append(self.check(resolved.contents, resolved.resolver))
        # "type": "object" (or "array") is folded into the object (array) check below.
        kind = schema.get("type")
        if "type" in schema and kind not in ("object", "array"):
            checks.append(type_check(kind, self.dialect))
        if "const" in schema:
            const = schema["const"]
            checks.append(lambda value: bool(equal(value, const)))
        if "enum" in schema:
            enum = list(schema["enum"])
            checks.append(lambda value: any(equal(each, value) for each in enum))
        obj = self._object_check(schema, resolver, only=kind == "object")
        if obj is not None:
            checks.append(obj)
        elif kind == "object":
            checks.append(type_check(kind, self.dialect))
        arr = self._array_check(schema, resolver, only=kind == "array")
        if arr is not None:
            checks.append(arr)
        elif kind == "array":
            checks.append(type_check(kind, self.dialect))
        checks.extend(string_checks(schema, self.dialect))
        checks.extend(number_checks(schema))
        checks.extend(self._combinators(schema, resolver))
        return all_of(checks)

    # -- objects ----------------------------------------------------------------------

    def _object_check(
        self, schema: dict[str, Any], resolver: Resolver[Any], *, only: bool
    ) -> Check | None:
        """The object keywords of ``schema``; ``only``: anything but an object fails."""
        required = tuple(schema.get("required", ()))
        properties = {
            name: self.check(sub, resolver) for name, sub in schema.get("properties", {}).items()
        }
        patterns = [
            (re.compile(p), self.check(sub, resolver))
            for p, sub in schema.get("patternProperties", {}).items()
            if sub is not True  # {"^x-": true} checks nothing (but frees those keys below)
        ]
        additional = (
            self.check(schema["additionalProperties"], resolver)
            if "additionalProperties" in schema
            else None
        )
        joined = "|".join(schema.get("patternProperties", {}))
        extra_pattern = re.compile(joined) if joined else None
        unevaluated = (
            self.check(schema["unevaluatedProperties"], resolver)
            if "unevaluatedProperties" in schema
            else None
        )
        evaluated = self.keys(schema, resolver) if unevaluated is not None else None
        static = _static_keys(schema, resolver) if unevaluated is not None else None
        static_names, static_patterns = static if static is not None else (frozenset(), ())
        names = self.check(schema["propertyNames"], resolver) if "propertyNames" in schema else None
        min_props = schema.get("minProperties")
        max_props = schema.get("maxProperties")
        dependent = dict(schema.get("dependentRequired", {}))
        if not (
            required
            or properties
            or patterns
            or additional is not None
            or unevaluated is not None
            or names is not None
            or min_props is not None
            or max_props is not None
            or dependent
        ):
            return None

        def check(value: Any) -> bool:
            if not isinstance(value, dict):
                return not only
            for name in required:
                if name not in value:
                    return False
            # One pass over the instance: its own schema for each listed property, the
            # matching patterns' for every key, additionalProperties' for the rest.
            for name, item in value.items():
                sub = properties.get(name)
                if sub is not None:
                    if not sub(item):
                        return False
                elif (
                    additional is not None
                    and (extra_pattern is None or extra_pattern.search(name) is None)
                    and not additional(item)
                ):
                    return False
                for pattern, matching in patterns:
                    if pattern.search(name) and not matching(item):
                        return False
            if names is not None and not all(names(name) for name in value):
                return False
            if min_props is not None and len(value) < min_props:
                return False
            if max_props is not None and len(value) > max_props:
                return False
            for name, needs in dependent.items():
                if name in value and any(each not in value for each in needs):
                    return False
            if unevaluated is not None and static is not None:
                # The evaluated keys are fixed names and patterns: no sets to build.
                for name, item in value.items():
                    if name in static_names or any(p.search(name) for p in static_patterns):
                        continue
                    if not unevaluated(item):
                        return False
            elif unevaluated is not None and evaluated is not None:
                seen = evaluated(value)
                for name, item in value.items():
                    if name not in seen and not unevaluated(item):
                        return False
            return True

        return check

    def keys(self, schema: Any, resolver: Resolver[Any]) -> KeysOf:
        """The property names ``schema`` evaluates in an object, as the library counts them
        for ``unevaluatedProperties`` (jsonschema's find_evaluated_property_keys_by_schema)."""
        if not isinstance(schema, dict):
            return lambda value: set()
        return self._once(self._keys, schema, lambda: self._compile_keys(schema, resolver))

    def _compile_keys(self, schema: dict[str, Any], resolver: Resolver[Any]) -> KeysOf:
        if "$dynamicRef" in schema or "dependentSchemas" in schema:
            raise Unsupported("$dynamicRef or dependentSchemas under unevaluatedProperties")
        parts: list[KeysOf] = []
        if "$ref" in schema:
            resolved = resolver.lookup(schema["$ref"])
            parts.append(self.keys(resolved.contents, resolved.resolver))
        properties = schema.get("properties")
        if isinstance(properties, dict):
            listed = set(properties)
            parts.append(lambda value: listed & value.keys())
        for keyword in ("additionalProperties", "unevaluatedProperties"):
            if schema.get(keyword) is not None:
                sub = self.check(schema[keyword], resolver)
                parts.append(
                    lambda value, sub=sub: {k for k, v in value.items() if sub(v)}  # type: ignore[misc]
                )
        if "patternProperties" in schema:
            compiled = [re.compile(p) for p in schema["patternProperties"]]
            parts.append(lambda value: {k for k in value if any(p.search(k) for p in compiled)})
        for keyword in ("allOf", "oneOf", "anyOf"):
            for sub in schema.get(keyword, []):
                valid, inner = self.check(sub, resolver), self.keys(sub, resolver)
                parts.append(
                    lambda value, valid=valid, inner=inner: (  # type: ignore[misc]
                        inner(value) if valid(value) else set()
                    )
                )
        if "if" in schema:
            condition = self.check(schema["if"], resolver)
            if_keys = self.keys(schema["if"], resolver)
            then_keys = self.keys(schema["then"], resolver) if "then" in schema else None
            else_keys = self.keys(schema["else"], resolver) if "else" in schema else None

            def branch(value: dict[str, Any]) -> set[str]:
                if condition(value):
                    found = if_keys(value)
                    return found | then_keys(value) if then_keys is not None else found
                return else_keys(value) if else_keys is not None else set()

            parts.append(branch)
        members = tuple(parts)

        def evaluated(value: dict[str, Any]) -> set[str]:
            seen: set[str] = set()
            for part in members:
                seen |= part(value)
            return seen

        return evaluated

    # -- arrays -----------------------------------------------------------------------

    def _array_check(
        self, schema: dict[str, Any], resolver: Resolver[Any], *, only: bool
    ) -> Check | None:
        """The array keywords of ``schema``; ``only``: anything but an array fails."""
        prefix = [self.check(sub, resolver) for sub in schema.get("prefixItems", [])]
        items = self.check(schema["items"], resolver) if "items" in schema else None
        contains = self.check(schema["contains"], resolver) if "contains" in schema else None
        min_contains = schema.get("minContains", 1)
        max_contains = schema.get("maxContains")
        min_items, max_items = schema.get("minItems"), schema.get("maxItems")
        unique = bool(schema.get("uniqueItems"))
        if not (
            prefix
            or items is not None
            or contains is not None
            or min_items is not None
            or max_items is not None
            or unique
        ):
            return None
        start = len(prefix)
        known = KNOWN_GOOD.get(items) if items is not None else None

        def check(value: Any) -> bool:
            if not isinstance(value, list):
                return not only
            for sub, item in zip(prefix, value, strict=False):
                if not sub(item):
                    return False
            if items is not None and not (start == 0 and all_known(known, value)):
                for item in value[start:] if start else value:
                    if not items(item):
                        return False
            if contains is not None:
                matches = sum(1 for item in value if contains(item))
                if matches < min_contains:
                    return False
                if max_contains is not None and matches > max_contains:
                    return False
            if min_items is not None and len(value) < min_items:
                return False
            if max_items is not None and len(value) > max_items:
                return False
            return not unique or bool(uniq(value))

        return check

    # -- combinators ------------------------------------------------------------------

    def _combinators(self, schema: dict[str, Any], resolver: Resolver[Any]) -> list[Check]:
        checks: list[Check] = []
        if "allOf" in schema:
            checks.extend(self.check(sub, resolver) for sub in schema["allOf"])
        if "anyOf" in schema:
            any_of = tuple(self.check(sub, resolver) for sub in schema["anyOf"])
            checks.append(
                self._discriminated(schema["anyOf"], any_of, resolver, one=False)
                or (lambda value: any(sub(value) for sub in any_of))
            )
        if "oneOf" in schema:
            one_of = tuple(self.check(sub, resolver) for sub in schema["oneOf"])
            checks.append(
                self._discriminated(schema["oneOf"], one_of, resolver, one=True)
                or (lambda value: sum(1 for sub in one_of if sub(value)) == 1)
            )
        if "dependentSchemas" in schema:
            dependents = tuple(
                (name, self.check(sub, resolver))
                for name, sub in schema["dependentSchemas"].items()
            )
            checks.append(
                lambda value: (
                    not isinstance(value, dict)
                    or all(name not in value or sub(value) for name, sub in dependents)
                )
            )
        if "not" in schema:
            negated = self.check(schema["not"], resolver)
            checks.append(lambda value: not negated(value))
        if "if" in schema:
            condition = self.check(schema["if"], resolver)
            then = self.check(schema["then"], resolver) if "then" in schema else always
            else_ = self.check(schema["else"], resolver) if "else" in schema else always
            checks.append(lambda value: then(value) if condition(value) else else_(value))
        return checks

    def _discriminated(
        self, branches: list[Any], checks: tuple[Check, ...], resolver: Resolver[Any], *, one: bool
    ) -> Check | None:
        """For branches told apart by a tag (each requires one same property, each with
        its own ``const`` string there, like an event's ``type``): a check that tries
        only the branch an object's tag names. Exact for both ``oneOf`` and ``anyOf``:
        every other branch fails on the tag, and at most one can pass."""
        tags: list[tuple[str, str]] = []
        for branch in branches:
            target, where = branch, resolver
            while isinstance(target, dict) and set(target) == {"$ref"}:
                resolved = where.lookup(target["$ref"])
                target, where = resolved.contents, resolved.resolver
            tag = _tag_of(target)
            if tag is None:
                return None
            tags.append(tag)
        names = {name for name, _ in tags}
        values = [value for _, value in tags]
        if len(names) != 1 or len(set(values)) != len(values):
            return None
        (name,) = names
        by_value = dict(zip(values, checks, strict=True))
        generic = checks

        def check(value: Any) -> bool:
            if not isinstance(value, dict):  # not tagged: every branch decides as it would
                passing = sum(1 for sub in generic if sub(value))
                return passing == 1 if one else passing > 0
            tag = value.get(name)
            if not isinstance(tag, str):
                return False  # missing, or no string: every branch's const refuses it
            branch = by_value.get(tag)
            return branch is not None and branch(value)

        return check


def _static_keys(
    schema: Any, resolver: Resolver[Any], depth: int = 0
) -> tuple[frozenset[str], tuple[re.Pattern[str], ...]] | None:
    """The names and patterns whose keys ``schema`` evaluates whatever the instance, when
    only ``properties``, ``patternProperties`` and ``$ref`` decide that (and
    ``additionalProperties``/``unevaluatedProperties`` are false, evaluating nothing);
    None when it depends on the instance (``allOf``, ``anyOf``, ``if``, ...)."""
    if not isinstance(schema, dict) or depth > 50:
        return None
    if any(k in schema for k in ("allOf", "anyOf", "oneOf", "if", "dependentSchemas")):
        return None
    if "$dynamicRef" in schema:
        return None
    for keyword in ("additionalProperties", "unevaluatedProperties"):
        if schema.get(keyword) not in (None, False):
            return None
    names: set[str] = set()
    patterns: list[re.Pattern[str]] = []
    if "$ref" in schema:
        resolved = resolver.lookup(schema["$ref"])
        inner = _static_keys(resolved.contents, resolved.resolver, depth + 1)
        if inner is None:
            return None
        names |= inner[0]
        patterns += inner[1]
    properties = schema.get("properties")
    if isinstance(properties, dict):
        names |= set(properties)
    patterns += [re.compile(p) for p in schema.get("patternProperties", {})]
    return frozenset(names), tuple(patterns)


def _tag_of(schema: Any) -> tuple[str, str] | None:
    """(property, value) when ``schema`` requires a property that must be a const string."""
    if not isinstance(schema, dict):
        return None
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return None
    for name in schema.get("required", ()):
        sub = properties.get(name)
        if isinstance(sub, dict) and isinstance(sub.get("const"), str):
            return name, sub["const"]
    return None


def library_errors(check: Check | None, validator: Any, value: Any) -> list[Any]:
    """``validator``'s errors in ``value`` (jsonschema ValidationErrors); none, without
    asking the library, when the compiled ``check`` passes ``value``: it is as strict."""
    if check is not None and check(value):
        return []
    return list(validator.iter_errors(value))


def compile_document(schema: bool | Mapping[str, Any], dialect: Dialect = LIBRARY) -> Check | None:
    """A predicate for a whole schema document (its references resolve inside it)."""
    if not isinstance(schema, Mapping):
        return None
    uri = "urn:jhyap:compiled"
    resource = DRAFT202012.create_resource({**schema, "$id": uri})
    return compile_schema(uri, Registry().with_resource(uri, resource), dialect)


def compile_schema(uri: str, registry: Registry[Any], dialect: Dialect = LIBRARY) -> Check | None:
    """A predicate for the schema at ``uri`` (a ``$ref`` target in ``registry``): True when
    an instance is valid. None when the schema uses a keyword not compiled here."""
    try:
        resolved = registry.resolver().lookup(uri)
        return _Compiler(dialect).check(resolved.contents, resolved.resolver)
    except Unsupported:
        return None


__all__ = [
    "LIBRARY",
    "Check",
    "Dialect",
    "Unsupported",
    "compile_document",
    "compile_schema",
    "library_errors",
]
