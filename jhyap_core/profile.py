"""Profiles: the rule parameters of a house ruleset, and their host options.

A *profile document* is the YAML data of ``specs/*.yaml``. Resolving it against
option values gives the *resolved profile*: the same document with every option
applied to the rule parameter it sets and an ``options`` mapping of the values.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from fractions import Fraction

from .json_types import Json
from .vocabulary import ErrorCode, OptionError, ProfileError

_DECIMAL_DIGITS = 15  # a decimal option has at most this many digits each side of the point


class OptionChanges(StrEnum):
    """When the host may change an option once the table is open."""

    BETWEEN_HANDS = "between_hands"
    BEFORE_FIRST_DEAL = "before_first_deal"
    AT_START_ONLY = "at_start_only"


class OptionType(StrEnum):
    INTEGER = "integer"
    DECIMAL = "decimal"
    BOOLEAN = "boolean"
    CHOICE = "choice"


@dataclass(frozen=True)
class OptionSpec:
    """A host option: its allowed values and the rule parameter(s) it sets.

    ``sets`` names one parameter, or several that the option sets together (a "face
    cards count 10" switch); then ``map`` gives each option value a list of values,
    one per parameter.
    """

    name: str
    type: OptionType
    default: Json
    sets: str | tuple[str, ...]
    locked_when_open: bool
    values: tuple[Json, ...] | None = None
    range: Mapping[str, Json] | None = None
    map: Mapping[str, Json] | None = None
    changes: OptionChanges = OptionChanges.BETWEEN_HANDS

    @classmethod
    def from_dict(cls, data: Mapping[str, Json]) -> OptionSpec:
        values = data.get("values")
        return cls(
            name=data["name"],
            type=OptionType(data["type"]),
            default=data["default"],
            sets=data["sets"] if isinstance(data["sets"], str) else tuple(data["sets"]),
            locked_when_open=bool(data["locked_when_open"]),
            values=tuple(values) if values is not None else None,
            range=data.get("range"),
            map={str(k).lower(): v for k, v in data["map"].items()} if data.get("map") else None,
            changes=OptionChanges(
                data.get("changes")
                or ("at_start_only" if data["locked_when_open"] else "between_hands")
            ),
        )

    def allowed_text(self) -> str:
        if self.values is not None:
            return ", ".join(_show(v) for v in self.values)
        assert self.range is not None
        if self.range.get("max") is None:
            return f"{self.range['min']} or more in steps of {self.range['step']}"
        return f"{self.range['min']} to {self.range['max']} in steps of {self.range['step']}"

    def normalize(self, value: Json) -> Json:
        """The canonical form of ``value``, or OptionError naming the allowed values."""
        bad = OptionError(
            f"option {self.name}: {_show(value)} is not allowed; allowed: {self.allowed_text()}"
        )
        if self.type is OptionType.BOOLEAN:
            if not isinstance(value, bool):
                raise bad
        elif self.type is OptionType.INTEGER:
            if isinstance(value, bool) or not isinstance(value, int):
                raise bad
        elif self.type is OptionType.DECIMAL:
            # A decimal travels as a JSON string in plain notation ("0.05"), never a number.
            if not isinstance(value, str) or not _PLAIN_DECIMAL.fullmatch(value):
                raise bad
            try:
                number = Decimal(str(value))
            except InvalidOperation:
                raise bad from None
            # Written out in full, 1e999999999 would take a gigabyte: bound the digits first.
            if not number.is_finite() or abs(number.adjusted()) >= _DECIMAL_DIGITS:
                raise bad
            if len(number.as_tuple().digits) > 2 * _DECIMAL_DIGITS:
                raise bad
            value = _decimal_text(number)
        elif not isinstance(value, str):
            raise bad
        if self.values is not None:
            if value not in self.values:
                raise bad
            return value
        assert self.range is not None
        low, step = Decimal(str(self.range["min"])), Decimal(str(self.range["step"]))
        high = self.range.get("max")
        number = Decimal(str(value))
        if number < low or (high is not None and number > Decimal(str(high))):
            raise bad
        # In fractions, exact at any size: Decimal's % is bound to its context's 28 digits
        # and refuses a larger quotient (rules.call.limit: 10**30) with InvalidOperation.
        if (Fraction(number) - Fraction(low)) % Fraction(step) != 0:
            raise bad
        return value

    @property
    def targets(self) -> tuple[str, ...]:
        """The rule parameters the option sets."""
        return (self.sets,) if isinstance(self.sets, str) else self.sets

    def parameter_value(self, value: Json) -> Json:
        """The rule parameter value that option value ``value`` stands for."""
        if self.map is None:
            return value
        return self.map[str(value).lower()]

    def parameter_values(self, value: Json) -> tuple[Json, ...]:
        """One value per parameter in ``targets`` for option value ``value``."""
        mapped = self.parameter_value(value)
        if isinstance(self.sets, str):
            return (mapped,)
        if not isinstance(mapped, list) or len(mapped) != len(self.sets):
            raise ProfileError(
                f"option {self.name}: the map entry for {_show(value)} must list "
                f"{len(self.sets)} values, one per parameter it sets"
            )
        return tuple(mapped)


_PLAIN_DECIMAL = re.compile(r"[0-9]+(\.[0-9]+)?")


def _decimal_text(number: Decimal) -> str:
    text = format(number.normalize(), "f")
    if "." not in text:
        text += ".00"
    whole, frac = text.split(".")
    return f"{whole}.{frac.ljust(2, '0')}"


def _show(value: Json) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def option_specs(document: Mapping[str, Json]) -> dict[str, OptionSpec]:
    return {o["name"]: OptionSpec.from_dict(o) for o in document.get("options") or []}


def get_path(data: Mapping[str, Json], path: str) -> Json:
    node: Json = data
    for key in path.split("."):
        if not isinstance(node, Mapping) or key not in node:
            raise KeyError(path)
        node = node[key]
    return node


def set_path(data: dict[str, Json], path: str, value: Json) -> None:
    keys = path.split(".")
    node = data
    for key in keys[:-1]:
        node = node[key]
    node[keys[-1]] = value


def parse_option_value(spec: OptionSpec, text: str) -> Json:
    """An option value given as command-line text, in the option's type."""
    if spec.type is OptionType.BOOLEAN:
        lowered = text.strip().lower()
        if lowered in ("true", "yes", "on", "1"):
            return True
        if lowered in ("false", "no", "off", "0"):
            return False
        return text
    if spec.type is OptionType.INTEGER:
        try:
            return int(text)
        except ValueError:
            return text
    return text


def copy_json(value: Json) -> Json:
    """``copy.deepcopy`` of profile data, without its memo on the plain dicts, lists
    and scalars that JSON and YAML load into (a start pays this on every table)."""
    cls = value.__class__
    # A shallow copy in C, then only the containers in it copied again: scalars, most of
    # a profile's leaves, cost nothing each.
    if cls is dict:
        mapping: dict[str, Json] = value.copy()
        for key, item in mapping.items():
            if item.__class__ not in _SCALARS:
                mapping[key] = copy_json(item)  # replaces a value: the keys stay as they are
        return mapping
    if cls is list:
        items: list[Json] = value.copy()
        for index, item in enumerate(items):
            if item.__class__ not in _SCALARS:
                items[index] = copy_json(item)
        return items
    if cls in _SCALARS:
        return value
    return copy.deepcopy(value)


_SCALARS = frozenset({str, int, float, bool, type(None)})


def resolve(
    document: Mapping[str, Json], options: Mapping[str, Json] | None = None
) -> dict[str, Json]:
    """The resolved profile: ``document`` with option values applied to its rules.

    Unknown option names raise OptionError with code ``unknown_option``; values
    outside the allowed set raise OptionError naming the allowed values. The rules and
    the options are copies; every other value is the document's own (its clauses are most
    of a profile, and nothing that plays a table edits them).
    """
    try:
        specs = option_specs(document)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ProfileError(f"profile options are malformed: {exc!r}") from None
    # Every name is checked before any value: a value means nothing without its option.
    for name in options or {}:
        if name not in specs:
            known = ", ".join(specs) or "none"
            raise OptionError(
                f"unknown option {name!r}; this profile's options: {known}",
                ErrorCode.UNKNOWN_OPTION,
            )
    chosen = {name: specs[name].normalize(value) for name, value in (options or {}).items()}
    resolved: dict[str, Json] = dict(document)
    if "rules" in resolved:
        resolved["rules"] = copy_json(resolved["rules"])  # options set values in it
    values: dict[str, Json] = {}
    for name, spec in specs.items():
        value = chosen.get(name, spec.normalize(spec.default))
        values[name] = value
        for path, parameter in zip(spec.targets, spec.parameter_values(value), strict=True):
            try:
                # A copy: a list or mapping value must not be shared with the option's map.
                set_path(resolved["rules"], path, copy_json(parameter))
            except (KeyError, TypeError):
                raise ProfileError(f"option {name} sets unknown rule parameter {path}") from None
    resolved["options"] = [dict(o) for o in document.get("options") or []]
    resolved["option_values"] = values
    return resolved
