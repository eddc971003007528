"""The table procedure's parameters are read twice: by the kit from a profile's rules
(jhyap_core.table.TableRules.read) and by the reference engine from its typed Rules
(reference_engine.game.table_rules, so that its rule mutants reach them). The two readings
agree under every shipped profile and test variant, with each value of each option."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.spec.profiles import load_profile
from jhyap_core.profile import option_specs, resolve
from jhyap_core.table import TableRules
from reference_engine.game import table_rules
from reference_engine.rules import Rules
from tests.conftest import ROOT

FILES = sorted([*(ROOT / "specs").glob("*.yaml"), *(ROOT / "tests/data/variants").glob("*.yaml")])


def _option_sets(document: dict[str, Any]) -> list[dict[str, Any]]:
    """No option set, then each value an option lists, alone."""
    found: list[dict[str, Any]] = [{}]
    for name, spec in option_specs(document).items():
        found += [{name: value} for value in spec.values or ()]
    return found


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_the_kit_and_the_reference_read_the_same_table_rules(path: Path) -> None:
    document = load_profile(path)
    for options in _option_sets(document):
        profile = resolve(document, options)
        assert table_rules(Rules.from_profile(profile)) == TableRules.read(profile["rules"])
