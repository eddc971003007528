"""Every rule-parameter mutant of tests/mutants/rules.py is caught by the property check it
names (tests/engine/test_rule_model.py), and every rule parameter of the schema has a mutant."""

from __future__ import annotations

import os

import pytest
from hypothesis import Phase, given

from jhyap_core.json_types import Json
from reference_engine import JhyapError
from reference_engine.parameters import registry
from tests.engine.test_rule_model import drawn_profiles_are_valid, rule_settings, run_check
from tests.mutants.rules import MUTANTS, applied
from tests.strategies import Focus, Table, tables

# Derandomized, without shrinking: the same examples every run, stopping at the first failure.
# "The same" within one set of loaded modules and their source: Hypothesis also draws
# constants it finds in the project's imported modules, so a test run alone draws other
# examples than the whole suite, and an edit of any module can move the example that kills.
# Each mutant's check draws profiles holding its focus (the values under which it misplays,
# tests/strategies.py's Focus), so that the kill does not wait for a draw of them.
# Counted at the last change (examples drawn until the kill, the checks' own seeds, as
# bench/mutant_kills.py counts them): every mutant dies by example 21 (king_valued_as_queen,
# which misplays under most profiles and has no focus) with every test module loaded, as a
# worker loads them, and with only this module's imports; without the focus, they took up
# to 785. A kill costs the same whatever the budget (the examples past it are never drawn),
# so the budget keeps a wide margin: only a mutant that lives pays for it, and that fails
# the test.
KILL_EXAMPLES = int(os.environ.get("JHYAP_KILL_EXAMPLES", "200"))


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
        run_check(
            mutant.killed_by,
            KILL_EXAMPLES,
            mutant.focus,
            derandomize=True,
            phases=[Phase.generate],
        )


# Each focus once, however many mutants share it.
FOCUSES = list({repr(m.focus): m.focus for m in MUTANTS.values() if m.focus is not None}.values())


def _at(rules: dict[str, Json], path: str) -> Json:
    value: Json = rules
    for part in path.split("."):
        assert isinstance(value, dict), path
        value = value[part]
    return value


@pytest.mark.parametrize("focus", FOCUSES, ids=repr)
def test_a_focus_draws_valid_tables_that_hold_it(focus: Focus) -> None:
    # A focused profile the engine refuses would pass for a kill (a JhyapError); and a focus
    # that held nothing would be no focus.
    held = focus.reach()

    @rule_settings(2)
    @given(tables(focus=focus))
    def holds(table: Table) -> None:
        drawn_profiles_are_valid(table)
        rules = table.profile["rules"]
        assert isinstance(rules, dict)
        for path, values in held.items():
            assert _at(rules, path) in values, (path, values)
        for option in table.profile["options"]:
            assert isinstance(option, dict)
            sets = option["sets"]
            assert not set(sets if isinstance(sets, list) else [sets]) & set(held), option

    holds()
