"""Every rule-parameter mutant of tests/mutants/rules.py is caught by the property check it
names (tests/engine/test_rule_model.py), and every rule parameter of the schema has a mutant."""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import Phase

from conformance.spec.profiles import profile_schema
from reference_engine import JhyapError
from tests.engine.test_rule_model import run_check
from tests.mutants.rules import MUTANTS, applied

# Derandomized, without shrinking: the same examples every run, stopping at the first failure.
# "The same" within one set of loaded modules and their source: Hypothesis also draws
# constants it finds in the project's imported modules, so a test run alone draws other
# examples than the whole suite, and an edit of any module can move the example that kills.
# Counted at the last change (examples drawn until the kill, the checks' own seeds): every
# mutant dies by example 485 with every test module loaded, as a worker loads them, but
# out_at_the_threshold lives to 631 with only this module's imports. A kill costs the same
# whatever the budget (the examples past it are never drawn), so the budget keeps a wide
# margin: only a mutant that lives pays for it, and that fails the test.
KILL_EXAMPLES = int(os.environ.get("JHYAP_KILL_EXAMPLES", "2000"))


def _leaves(node: dict[str, Any], prefix: str = "") -> list[str]:
    found: list[str] = []
    for key, sub in (node.get("properties") or {}).items():
        assert isinstance(sub, dict)
        if "properties" in sub and key not in ("card_values",):
            found += _leaves(sub, f"{prefix}{key}.")
        else:
            found.append(prefix + key)
    return found


def test_every_rule_parameter_has_a_mutant() -> None:
    parameters = set(_leaves(profile_schema()["$defs"]["rules"]))
    parameters |= {"card_values.X"}
    covered = {m.parameter for m in MUTANTS.values()}
    # Money and the timer are groups whose members each have a mutant.
    parameters -= {"money", "turn_timer"}
    parameters |= {"money.dollars_per_point", "money.settlement", "turn_timer.seconds"}
    parameters |= {"turn_timer.on_expiry"}
    assert sorted(parameters - covered) == []


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_the_mutant_is_killed(name: str) -> None:
    mutant = MUTANTS[name]
    # Caught means a disagreement with the model or a refusal of what the model allows, not a
    # crash of the mutant's own code.
    with applied(name), pytest.raises((AssertionError, JhyapError)):
        run_check(mutant.killed_by, KILL_EXAMPLES, derandomize=True, phases=[Phase.generate])
