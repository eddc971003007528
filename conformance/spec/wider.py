"""Wider options: host options an engine offers more values of than its profile.

A declared file (``extends``) may say, under ``wider_options:``, that the engine offers
values of a profile's option beyond the profile's own: ``dollars_per_point: {range: {min:
"0", max: null, step: null}}`` for any amount, not only whole cents. The profile's values
stay offered, so this is no variant: the claim is still conformance to the base, and the
transcripts still test every value the profile has. Only a step that expects a value the
engine offers beyond the profile to be refused (``invalid_option_value``) cannot hold for
this engine: the case is not applicable, with the option and value named
(docs/readings.md, "An engine that offers more").
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from jhyap_core.profile import OptionSpec, OptionType, option_specs

from .json_types import Json

KEY = "wider_options"
REFUSED = "invalid_option_value"
# Plain decimal notation of any precision: the wider values of a decimal option.
_PLAIN_DECIMAL = re.compile(r"[0-9]+(\.[0-9]+)?")


def problems(
    wider: Mapping[str, Json], specs: Mapping[str, OptionSpec]
) -> Iterator[tuple[str, str]]:
    """(option name, message) for each wider option that names no option of the profile, or
    whose values are not of the option's type."""
    for name, given in wider.items():
        spec = specs.get(name)
        if spec is None:
            known = ", ".join(specs) or "none"
            yield name, f"no option {name} to widen; the profile's options: {known}"
            continue
        if spec.type is OptionType.BOOLEAN:
            yield name, f"option {name} is on or off: it has no more values to offer"
            continue
        if "range" in given and spec.type is OptionType.CHOICE:
            yield name, f"option {name} is a choice: widen it with values, not a range"
            continue
        for value in _bounds(given):
            if not _of_type(spec.type, value):
                yield name, f"{value!r} is not a value of {spec.type} option {name}"


def _bounds(given: Mapping[str, Json]) -> list[Json]:
    if "values" in given:
        return list(given["values"])
    bounds = given["range"]
    return [v for v in (bounds.get("min"), bounds.get("max"), bounds.get("step")) if v is not None]


def _of_type(kind: OptionType, value: Json) -> bool:
    if kind is OptionType.INTEGER:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is OptionType.DECIMAL:
        return isinstance(value, str) and _PLAIN_DECIMAL.fullmatch(value) is not None
    return isinstance(value, str) and bool(value)


def _number(value: Json) -> Decimal | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, str) and _PLAIN_DECIMAL.fullmatch(value):
        try:
            return Decimal(value)
        except InvalidOperation:  # pragma: no cover - the pattern admits only numbers
            return None
    return None


def offers(given: Mapping[str, Json], value: Json, kind: OptionType) -> bool:
    """Whether a wider option of type ``kind`` (its ``values`` or ``range``) holds ``value``:
    a value of the option's type (a decimal as a string in plain notation) within them."""
    if not _of_type(kind, value):
        return False
    if "values" in given:
        wanted = _number(value)
        for item in given["values"]:
            if item == value and type(item) is type(value):
                return True
            if kind is OptionType.DECIMAL and wanted is not None and _number(item) == wanted:
                return True
        return False
    number = _number(value)
    if number is None:
        return False
    bounds = given["range"]
    low, high, step = (_number(bounds.get(k)) for k in ("min", "max", "step"))
    if low is None or number < low or (high is not None and number > high):
        return False
    # Exact at any size (Decimal's % refuses a quotient over its 28 digits).
    return step is None or step == 0 or (Fraction(number) - Fraction(low)) % Fraction(step) == 0


def wider_of(document: Mapping[str, Json]) -> Mapping[str, Json]:
    """The wider options a resolved declared profile carries (none for any other)."""
    derived = document.get("derived_from")
    found = derived.get(KEY) if isinstance(derived, Mapping) else None
    return found if isinstance(found, Mapping) else {}


def beyond_the_profile(transcript: Any, document: Mapping[str, Json]) -> str:
    """Why ``transcript`` cannot hold for an engine offering the wider options of
    ``document``: the first refusal it expects of a value the engine offers ("" if none)."""
    wider = wider_of(document)
    if not wider:
        return ""
    specs = option_specs(document)
    asked: list[tuple[int, Mapping[str, Json]]] = []
    if transcript.start_error == REFUSED:
        asked.append((transcript.line, transcript.options))
    for step in transcript.steps:
        if step.expect.error != REFUSED:
            continue
        if step.kind == "start" and step.start_options:
            asked.append((step.line, step.start_options))
        elif step.kind == "set_option" and step.request is not None:
            asked.append((step.line, {step.request.get("name"): step.request.get("value")}))
    for line, options in asked:
        for name, value in options.items():
            spec = specs.get(name)
            if name in wider and spec is not None and offers(wider[name], value, spec.type):
                return (
                    f"line {line} expects option {name} = {value!r} refused ({REFUSED}); "
                    f"this engine offers it beyond the profile (wider_options)"
                )
    return ""


__all__ = ["KEY", "beyond_the_profile", "offers", "problems", "wider_of"]
