"""examples/python-loop: a console game's loop bound with the kit passes the corpus under its
declared rules, and a wrong engine behind the same binding fails it."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "python-loop"
RULES = EXAMPLE / "rules.yaml"
SELECTION = (
    "dhumbal-failed-show-tie",  # a tie beats the show; the penalty is the table's 20 (derived)
    "dhumbal-game-to-last-player",  # a whole game, with eliminations (derived)
    "dhumbal-house-rule-pickup-after-multi-throw",  # the kit's multi-thrower record
    "dhumbal-dealer-seat-before-starter",  # the declared reading (derived: the table's own seats)
    "protocol-order-of-checks",
    "shared-throws-refused",
)


def run_corpus(engine: str, *ids: str) -> dict[str, tuple[str, str]]:
    """Each selected transcript's (outcome, mode) from ``jhyap run --json -``."""
    selection = [arg for case in ids for arg in ("-k", case)]
    command = [sys.executable, "-m", "conformance", "run", "--engine", engine]
    command += ["--profile", str(RULES), *selection, "--jobs", "1", "--json", "-", "-q"]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    report: dict[str, Any] = json.loads(done.stdout)
    return {case["id"]: (case["outcome"], case["mode"]) for case in report["results"]}


@pytest.mark.e2e
def test_the_loop_engine_passes_a_selection_of_the_corpus_under_its_rules() -> None:
    engine = shlex.join([sys.executable, str(EXAMPLE / "bind.py")])
    assert run_corpus(engine, *SELECTION) == {
        "dhumbal-failed-show-tie": ("passed", "derived"),
        "dhumbal-game-to-last-player": ("passed", "derived"),
        "dhumbal-house-rule-pickup-after-multi-throw": ("passed", "as_written"),
        "dhumbal-dealer-seat-before-starter": ("passed", "derived"),
        "protocol-order-of-checks": ("passed", "as_written"),
        "shared-throws-refused": ("passed", "as_written"),
    }


@pytest.mark.e2e
def test_an_engine_that_accepts_an_illegal_throw_fails_through_the_same_binding(
    tmp_path: Path,
) -> None:
    # The game's own discard check wrongly takes any two cards as a set: the binding's
    # refusal hook and the game's loop both ask it, so nothing in the kit hides the bug.
    wrong = tmp_path / "wrong_engine.py"
    wrong.write_text(
        "import runpy, sys\n"
        f"sys.path.insert(0, {str(EXAMPLE)!r})\n"
        "import dhumbal_game as dg\n"
        "right = dg.discard_kind\n"
        "dg.discard_kind = lambda cards: 'set' if len(cards) == 2 else right(cards)\n"
        f"runpy.run_path({str(EXAMPLE / 'bind.py')!r}, run_name='__main__')\n"
    )
    outcomes = run_corpus(shlex.join([sys.executable, str(wrong)]), *SELECTION)
    assert outcomes["shared-throws-refused"] == ("failed", "as_written")
    assert outcomes["protocol-order-of-checks"] == ("failed", "as_written")
    assert outcomes["dhumbal-failed-show-tie"] == ("passed", "derived")


def test_the_binding_is_short_and_holds_no_protocol_code() -> None:
    text = (EXAMPLE / "bind.py").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 120
    for protocol_word in ("json", "seq", "stdin", "stdout", '"cmd"', "bad_request"):
        assert protocol_word not in text


# The kit's bookkeeping where it is hardest: reshuffles, timers, money, run ends and jokers
# on offer, two packs, a deck that runs out, fixed rounds, everyone out together.
BOOKKEEPING = {
    "bga-yaniv-reshuffle": "bga-yaniv",
    "dashain-turn-timer": "dashain",
    "dashain-complete-game": "dashain",
    "dashain-pick-run-ends": "dashain",
    "bga-yaniv-two-jokers-on-offer": "bga-yaniv",
    "bga-yaniv-two-packs-pair-on-offer": "bga-yaniv",
    "jhyap-encyclopedia-deck-runs-out": "jhyap-encyclopedia",
    "everestbuzz-game-friends-shared-win": "everestbuzz",
    "jhyap-encyclopedia-all-out-together": "jhyap-encyclopedia",
}
# And the other readings: a draw finding the deck empty, settlement in seat order, a timeout
# taking the lowest card of the offer.
READINGS = """profile_format: 1
id: kit-dashain
extends: dashain
readings: {reshuffle: next_draw, settlement: seat_order, timer_expiry: take_lowest}
"""
READING_CASES = (
    "shared-reshuffle-next-draw",
    "dashain-settlement-seat-order",
    "dashain-turn-timer-take-lowest",
)
OBJECT_API = shlex.join([sys.executable, str(ROOT / "tests" / "kit_engines" / "object_api.py")])


def run_object_api(ids: Iterable[str], *extra: str) -> dict[tuple[str, str], tuple[str, str]]:
    command = [sys.executable, "-m", "conformance", "run", "--engine", OBJECT_API, *extra]
    command += [arg for case in ids for arg in ("-k", case)]
    done = subprocess.run(
        [*command, "--jobs", "1", "--json", "-", "-q"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    report = json.loads(done.stdout)
    return {(c["id"], c["profile"]): (c["outcome"], c["mode"]) for c in report["results"]}


@pytest.mark.e2e
def test_an_object_api_binding_meets_the_oracles_through_the_kit(tmp_path: Path) -> None:
    """tests/kit_engines/object_api.py: the reference rule functions as an engine's object
    API; every bookkeeping step is the kit's, checked against transcripts as written."""
    assert run_object_api(BOOKKEEPING) == {
        (case, profile): ("passed", "as_written") for case, profile in BOOKKEEPING.items()
    }
    readings = tmp_path / "kit-dashain.yaml"
    readings.write_text(READINGS, encoding="utf-8")
    assert run_object_api(READING_CASES, "--profile", str(readings)) == {
        (case, "kit-dashain"): ("passed", "as_written") for case in READING_CASES
    }


@pytest.mark.e2e
def test_the_object_api_example_of_docs_kit_md_passes_the_selection(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "kit.md").read_text(encoding="utf-8")
    [block] = re.findall(r"```python\n(# object_dhumbal\.py.*?)```", text, re.DOTALL)
    script = tmp_path / "object_dhumbal.py"
    script.write_text(block, encoding="utf-8")
    outcomes = run_corpus(shlex.join([sys.executable, str(script)]), *SELECTION)
    assert outcomes == run_corpus(
        shlex.join([sys.executable, str(EXAMPLE / "bind.py")]), *SELECTION
    )
    assert {outcome for outcome, _ in outcomes.values()} == {"passed"}
