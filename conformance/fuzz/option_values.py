"""The option values a campaign plays: every listed value, a range's edges and default,
a random allowed value, and values an option refuses."""

from __future__ import annotations

import random
from decimal import Decimal

from jhyap_core.profile import OptionSpec, OptionType

from ..spec.json_types import Json

# An unbounded range (``max: null``) is sampled up to this many steps above its minimum.
UNBOUNDED_STEPS = 100


def range_bounds(spec: OptionSpec) -> tuple[Decimal, Decimal, Decimal]:
    """The low and high values fuzzed, and the step, of a range option; an unbounded
    range is sampled up to :data:`UNBOUNDED_STEPS` steps above its minimum (or its default)."""
    assert spec.range is not None
    low, step = Decimal(str(spec.range["min"])), Decimal(str(spec.range["step"]))
    if spec.range.get("max") is not None:
        return low, Decimal(str(spec.range["max"])), step
    return low, max(low, Decimal(str(spec.default))) + step * UNBOUNDED_STEPS, step


def _range_value(spec: OptionSpec, number: Decimal) -> Json:
    return int(number) if spec.type is OptionType.INTEGER else spec.normalize(str(number))


def option_samples(spec: OptionSpec) -> list[Json]:
    """The allowed values of an option: all listed ones, or a range's edges and default."""
    if spec.values is not None:
        return list(spec.values)
    low, high, step = range_bounds(spec)
    picks = {low, high, Decimal(str(spec.default)), low + step, high - step}
    # A range of one value (min = max) has no second value on either side.
    return [_range_value(spec, number) for number in sorted(picks) if low <= number <= high]


def random_option_value(spec: OptionSpec, rng: random.Random) -> Json:
    if spec.range is not None and rng.random() < 0.3:
        low, high, step = range_bounds(spec)
        count = int((high - low) / step)
        return _range_value(spec, low + step * rng.randint(0, count))
    return rng.choice(option_samples(spec))


def invalid_option_values(spec: OptionSpec) -> list[Json]:
    """Values the option refuses: out of its set or range, and of the wrong JSON type."""
    bad: list[Json] = [None]
    bounded = spec.range is not None and spec.range.get("max") is not None
    if spec.type is OptionType.BOOLEAN:
        bad += ["true", 1, 0]
    elif spec.type is OptionType.INTEGER:
        bad += ["12", True, 1.5]
        if spec.range is not None:
            bad += [int(spec.range["min"]) - 1]
            if bounded:
                bad += [int(spec.range["max"]) + 1]
        else:
            bad += [max(spec.values or [0]) + 1, -1]
    elif spec.type is OptionType.DECIMAL:
        # A decimal travels as a string in plain notation: a JSON number or an exponent
        # is refused even when its value is allowed.
        bad += [True, "abc", "-1.00", "NaN", "5e-2", 0.05, 1]
        if spec.range is not None:
            low, step = Decimal(str(spec.range["min"])), Decimal(str(spec.range["step"]))
            bad += [str(low - step), str(low + step / 2)]
            if bounded:
                bad += [str(Decimal(str(spec.range["max"])) + step)]
    else:
        bad += [True, 3, "no-such-choice", ""]
    return bad
