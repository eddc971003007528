"""Combinations of rule parameters that make no sense: jhyap validate refuses each in one line
naming both parameters (conformance/spec/combinations.py)."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT, profile_document

pytestmark = pytest.mark.e2e

CASES = [
    # (base profile, changes to rules, the one line's field, both parameters it names)
    (
        "dashain",
        {"reshuffle": {"kept_aside": "offer_and_throw"}},
        "rules.reshuffle",
        ("reshuffle.kept_aside", "reshuffle.moment"),
    ),
    (
        "dashain",
        {"reshuffle": {"moment": "when_draw_finds_deck_empty"}},
        "rules.reshuffle",
        ("reshuffle.kept_aside", "reshuffle.moment"),
    ),
    (
        "dashain",
        {"reshuffle": {"moment": "at_throw_after_deck_emptied"}},
        "rules.reshuffle",
        ("reshuffle.kept_aside", "reshuffle.moment"),
    ),
    (
        "dhumbal",
        {"reshuffle": {"moment": "when_deck_emptied", "kept_aside": "offer_and_throw"}},
        "rules.reshuffle",
        ("reshuffle.kept_aside", "reshuffle.moment"),
    ),
    (
        "dashain",
        {"scoring": {"drop_at_multiples_of": 50}},
        "rules.scoring.drop_at_multiples_of",
        ("scoring.drop_at_multiples_of", "scoring.kind"),
    ),
    (
        "dashain",
        {"scoring": {"cuts": [{"at": 50, "to": 0}]}},
        "rules.scoring.cuts",
        ("scoring.cuts", "scoring.kind"),
    ),
    (
        "everestbuzz",
        {"scoring": {"halve_at_multiples_of": 50}},
        "rules.scoring.halve_at_multiples_of",
        ("scoring.halve_at_multiples_of", "scoring.kind"),
    ),
    (
        "dhumbal",
        {
            "money": {
                "dollars_per_point": "0.05",
                "settlement": "largest_debtor_pays_largest_creditor",
            }
        },
        "rules.money",
        ("money", "scoring.kind"),
    ),
    (
        "everestbuzz",
        {"call": {"limit": 0, "inclusive": False}},
        "rules.call.inclusive",
        ("call.inclusive", "call.limit"),
    ),
]


def _merge(into: dict[str, Any], changes: dict[str, Any]) -> None:
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


@pytest.mark.parametrize(("base", "changes", "field", "named"), CASES)
def test_validate_refuses_the_pair_in_one_line(
    base: str, changes: dict[str, Any], field: str, named: tuple[str, str], tmp_path: Path
) -> None:
    doc = copy.deepcopy(profile_document(base))
    _merge(doc["rules"], changes)
    doc["options"] = [o for o in doc["options"] if not str(o["sets"]).startswith("call.")]
    doc["clauses"] = [
        c for c in doc["clauses"] if not any(p.startswith("options.") for p in c["params"])
    ]
    doc.pop("readings", None)
    path = tmp_path / f"{base}.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "conformance", "validate", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    # Leaving out clauses leaves parameters uncited; every other problem is the pair's line.
    lines = [
        line
        for line in result.stdout.splitlines()
        if ".yaml:" in line
        and not line.endswith("not cited by any clause")
        and "(cite as options." not in line
    ]
    assert len(lines) == 1, result.stdout
    assert f": {field}: " in lines[0]
    assert all(name in lines[0] for name in named), lines[0]
