"""The option values the fuzzer plays: each one the option allows."""

from __future__ import annotations

import random

import pytest

from conformance.fuzz.option_values import option_samples, random_option_value
from jhyap_core.profile import OptionSpec, option_specs


def _range_option(low: int, high: int, default: int) -> OptionSpec:
    document = {
        "options": [
            {
                "name": "call_limit_0",
                "type": "integer",
                "range": {"min": low, "max": high, "step": 1},
                "default": default,
                "sets": "call.limit",
                "locked_when_open": False,
            }
        ]
    }
    return option_specs(document)["call_limit_0"]


def test_a_range_of_one_value_samples_that_value_alone() -> None:
    # tests/fuzz/test_fuzz_local.py's hypothesis run drew {min: 1, max: 1}: the samples held
    # 0 and 2, which the option refuses.
    spec = _range_option(1, 1, 1)
    assert option_samples(spec) == [1]
    rng = random.Random(3)
    assert {random_option_value(spec, rng) for _ in range(50)} == {1}


@pytest.mark.parametrize(
    ("low", "high", "default", "samples"), [(1, 2, 1, [1, 2]), (5, 15, 10, [5, 6, 10, 14, 15])]
)
def test_a_range_samples_its_edges_their_neighbours_and_its_default(
    low: int, high: int, default: int, samples: list[int]
) -> None:
    spec = _range_option(low, high, default)
    assert option_samples(spec) == samples
    for value in samples:
        assert spec.normalize(value) == value
