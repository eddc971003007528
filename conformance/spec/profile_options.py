"""The checks of one host option against the rules it sets.

An option names the rule parameter(s) it sets (``sets``, relative to ``rules``), its
values (a list, or a range), its default and, for several parameters or values that
stand for others, a ``map``. :func:`check_option` checks one option on its own: a
range that steps to its max, values in the option's type, parameters that exist, a
map covering every value, and a default that sets the rules to what they are. It
returns the values worth trying one by one against the whole profile.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction

from jhyap_core.profile import OptionSpec, OptionType
from jhyap_core.vocabulary import OptionError

from .json_types import Json
from .profile_schema import Report, show
from .yamlsafe import DataPath

MAX_MAPPED_RANGE = 1000
_GRID_CHECK_LIMIT = 100


def lookup(rules: Mapping[str, Json], path: str) -> tuple[bool, Json, str | None]:
    """(found, value, the null group on the way if any) for a path relative to rules."""
    node: Json = rules
    walked: list[str] = []
    for key in path.split("."):
        if node is None and walked:
            return False, None, ".".join(walked)
        if not isinstance(node, Mapping) or key not in node:
            return False, None, None
        node = node[key]
        walked.append(key)
    return True, node, None


def same_value(a: Json, b: Json, decimal: bool) -> bool:
    if decimal:
        try:
            return Decimal(str(a)) == Decimal(str(b))
        except ArithmeticError:
            return False
    return type(a) is type(b) and a == b


def grid(spec: OptionSpec) -> list[Json] | None:
    """Every value of a range option, or None when there are too many (or no upper bound)."""
    assert spec.range is not None
    if spec.range.get("max") is None:
        return None
    low, high, step = (Decimal(str(spec.range[k])) for k in ("min", "max", "step"))
    count = int((high - low) / step) + 1
    if count > MAX_MAPPED_RANGE:
        return None
    points = [low + step * i for i in range(count)]
    if spec.type is OptionType.INTEGER:
        return [int(p) for p in points]
    return [spec.normalize(str(p)) for p in points]


def _check_range(spec: OptionSpec, base: DataPath, report: Report) -> bool:
    assert spec.range is not None
    if spec.range.get("max") is None:
        if Decimal(str(spec.range["step"])) <= 0:
            report.add((*base, "range", "step"), "must be above 0")
            return False
        return True
    low, high, step = (Decimal(str(spec.range[k])) for k in ("min", "max", "step"))
    ok = True
    if step <= 0:
        report.add((*base, "range", "step"), "must be above 0")
        ok = False
    if low > high:
        report.add(
            (*base, "range", "min"), f"min {spec.range['min']} is above max {spec.range['max']}"
        )
        ok = False
    # Exact at any size (Decimal's % refuses a quotient over its 28 digits).
    if ok and (Fraction(high) - Fraction(low)) % Fraction(step) != 0:
        report.add((*base, "range", "max"), "max is not min plus a whole number of steps")
        ok = False
    return ok


def check_option(
    index: int,
    raw: Mapping[str, Json],
    document: Mapping[str, Json],
    report: Report,
) -> list[Json] | None:
    """Check one option; the values to try it with, or None if it has problems."""
    base: DataPath = ("options", index)
    spec = OptionSpec.from_dict(raw)
    rules = document["rules"]
    ok = True
    if "changes" in raw and raw["locked_when_open"] != (raw["changes"] != "between_hands"):
        report.add(
            (*base, "locked_when_open"),
            f"changes {raw['changes']} needs locked_when_open "
            f"{'false' if raw['changes'] == 'between_hands' else 'true'}",
        )
    if spec.range is not None:
        ok = _check_range(spec, base, report)
    if spec.type is OptionType.DECIMAL and spec.values is not None:
        for j, v in enumerate(spec.values):
            try:
                spec.normalize(v)
            except OptionError:
                report.add((*base, "values", j), f'write {show(v)} with two decimals, e.g. "0.50"')
                ok = False
    default: Json = None
    if ok:
        try:
            default = spec.normalize(spec.default)
        except OptionError as exc:
            report.add((*base, "default"), exc.message)
            ok = False
    targets = spec.targets
    rule_values: list[Json] = []
    for path in targets:
        found, rule_value, null_group = lookup(rules, path)
        if null_group is not None:
            report.add(
                (*base, "sets"),
                f"rules.{null_group} is null (not played), so no option can set {path}",
            )
            return None
        if not found:
            report.add((*base, "sets"), f"no rule parameter {path} in rules")
            return None
        if isinstance(rule_value, dict):
            report.add((*base, "sets"), f"{path} is a group of parameters, not one parameter")
            return None
        rule_values.append(rule_value)
    if len(targets) > 1 and spec.map is None:
        report.add((*base, "map"), "an option that sets several parameters needs a map")
        return None
    choices: list[Json] | None = None
    if spec.values is not None:
        choices = list(spec.values)
    elif ok:
        choices = grid(spec)
    if spec.map is not None:
        if choices is None:
            if ok:
                report.add(
                    (*base, "map"), f"a map cannot cover more than {MAX_MAPPED_RANGE} values"
                )
            return None
        keys = {str(v).lower() for v in choices}
        for v in choices:
            if str(v).lower() not in spec.map:
                report.add((*base, "map"), f"no entry for the value {show(v)}")
                ok = False
        for key in spec.map:
            if key not in keys:
                report.add((*base, "map", key), "not one of the option's values")
                ok = False
    if not ok:
        return None
    if len(targets) > 1:
        assert spec.map is not None
        for key, entry in spec.map.items():
            if not isinstance(entry, list) or len(entry) != len(targets):
                report.add(
                    (*base, "map", key),
                    f"must list {len(targets)} values, one per parameter in sets",
                )
                ok = False
        if not ok:
            return None
    wanted_values = spec.parameter_values(default)
    decimal = spec.type is OptionType.DECIMAL and spec.map is None
    for path, rule_value, wanted in zip(targets, rule_values, wanted_values, strict=True):
        if not same_value(rule_value, wanted, decimal):
            report.add(
                (*base, "default"),
                f"default {show(default)} sets {path} to {show(wanted)}, "
                f"but rules.{path} is {show(rule_value)}",
            )
            return None
    if spec.range is not None and (choices is None or len(choices) > _GRID_CHECK_LIMIT):
        top = spec.range.get("max")
        if top is None:  # unbounded: try the minimum and a value far above it
            top = Decimal(str(spec.range["min"])) + 100 * Decimal(str(spec.range["step"]))
            top = int(top) if spec.type is OptionType.INTEGER else str(top)
        choices = [spec.normalize(spec.range["min"]), spec.normalize(top)]
    return choices
