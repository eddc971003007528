"""Every rule-parameter mutant of tests/mutants/rules.py is caught by the property check it
names (tests/engine/test_rule_model.py), and every rule parameter of the schema has a mutant."""

from __future__ import annotations

import os

import pytest
from hypothesis import Phase

from reference_engine import JhyapError
from reference_engine.parameters import registry
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


def test_every_rule_parameter_has_a_mutant() -> None:
    # The ranks' values are one parameter to mishandle (card_values); the joker's, the
    # single cards worth their own value and the jokers of a hand of jokers only are each
    # their own.
    own = ("card_values.X", "card_values.cards", "card_values.only_jokers")
    parameters = {
        "card_values" if p.section == "card_values" and p.path not in own else p.path
        for p in registry()
    }
    assert len(parameters) == 80 - 12
    covered = {m.parameter for m in MUTANTS.values()}
    assert sorted(parameters - covered) == []


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_the_mutant_is_killed(name: str) -> None:
    mutant = MUTANTS[name]
    # Caught means a disagreement with the model or a refusal of what the model allows, not a
    # crash of the mutant's own code.
    with applied(name), pytest.raises((AssertionError, JhyapError)):
        run_check(mutant.killed_by, KILL_EXAMPLES, derandomize=True, phases=[Phase.generate])
