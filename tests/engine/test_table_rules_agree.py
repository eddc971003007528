"""The table procedure's parameters are read once, by jhyap_core.table.TableRules.read, for
the kit and for the reference engine alike; the reference's typed Rules hold the same
parameters in their family records. The rule mutants (tests/mutants/rules.py) reach the
procedure by ``table_of`` those records: the two agree under every shipped profile and
test variant, with each value of each option."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.spec.profiles import load_profile
from jhyap_core.profile import option_specs, resolve
from jhyap_core.table import TableRules
from reference_engine.game import Game
from reference_engine.rules import Rules
from tests.conftest import ROOT
from tests.mutants.rules import table_of

FILES = sorted([*(ROOT / "specs").glob("*.yaml"), *(ROOT / "tests/data/variants").glob("*.yaml")])


def _option_sets(document: dict[str, Any]) -> list[dict[str, Any]]:
    """No option set, then each value an option lists, alone."""
    found: list[dict[str, Any]] = [{}]
    for name, spec in option_specs(document).items():
        found += [{name: value} for value in spec.values or ()]
    return found


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_the_typed_rules_hold_the_table_rules(path: Path) -> None:
    document = load_profile(path)
    for options in _option_sets(document):
        profile = resolve(document, options)
        assert table_of(Rules.from_profile(profile)) == TableRules.read(profile["rules"])


def test_the_reference_plays_the_table_rules_the_kit_reads() -> None:
    document = load_profile(ROOT / "specs" / "dhumbal.yaml")
    game = Game(document, seats=3)
    assert game.table_rules == TableRules.read(resolve(document)["rules"])
