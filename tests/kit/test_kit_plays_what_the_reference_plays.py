"""The kit runs the reference's own table procedure (jhyap_core.table), so it plays every
procedure parameter the reference plays: a one-hand game, throws laid by rank, a deck with
ranks left out. tests/kit_engines/object_api.py (the reference rule functions behind the
kit's hooks) meets each such variant exactly as the reference engine does."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from jhyap_kit import KIT_RULES
from jhyap_kit.support import unsupported

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = ROOT / "tests" / "data" / "variants"
OBJECT_API = shlex.join([sys.executable, str(ROOT / "tests" / "kit_engines" / "object_api.py")])


def outcomes(profile: Path, engine: str | None) -> dict[str, str]:
    """Each case's outcome under ``profile`` against ``engine`` (None: the reference)."""
    command = [sys.executable, "-m", "conformance", "run", "--profile", str(profile)]
    command += ["--engine", engine] if engine else []
    done = subprocess.run(
        [*command, "--jobs", "1", "--json", "-", "-q"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    report = json.loads(done.stdout)
    return {c["id"]: c["outcome"] for c in report["results"]}


@pytest.mark.e2e
@pytest.mark.parametrize(
    "variant", ["dhumbal-one-hand", "bga-yaniv-laid-by-rank", "dhumbal-no-kings"]
)
def test_a_kit_engine_plays_the_variant_as_the_reference_does(variant: str) -> None:
    profile = VARIANTS / f"{variant}.yaml"
    kit = outcomes(profile, OBJECT_API)
    assert kit == outcomes(profile, None)
    assert set(kit.values()) <= {"passed", "not_applicable"}
    assert "passed" in kit.values()


def test_the_kit_declares_the_procedure_parameters_it_now_plays() -> None:
    rules = {
        "deck": {"cards": 48, "ranks_left_out": ["K"]},
        "reshuffle": {"moment": "at_throw_after_deck_emptied"},
        "game_end": {"kind": "one_hand", "out_above": None},
        "throws": {"laid": "by_rank"},
    }
    assert unsupported(rules, KIT_RULES) is None
    assert unsupported({"deck": {"jokers_wild": "runs"}}, KIT_RULES) == (
        "rules.deck.jokers_wild: this engine does not implement this rule parameter"
    )
