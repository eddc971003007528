"""The game result: winners are always the first seats of the standings (issue 21)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from jhyap_core.cards import DECK
from reference_engine import Call, Game, Phase, parse_cards
from tests.conftest import profile_document


def _penalty_rounds(rounds: int) -> dict[str, Any]:
    """EverestBuzz's table turned to penalty scoring over a fixed number of rounds."""
    doc = copy.deepcopy(profile_document("everestbuzz"))
    doc["options"] = []
    rules = doc["rules"]
    rules["scoring"].update(
        kind="penalty", beaten_call="caller_hand_plus_penalty", beaten_penalty=20
    )
    rules["call"]["first_round"] = "allowed"
    rules["game_end"].update(kind="fixed_rounds", rounds=rounds)
    return doc


def _call_with(game: Game, hands: list[str]) -> list[dict[str, Any]]:
    game.deal(list(DECK))
    game.hands = [parse_cards(h.split()) for h in hands]
    assert game.to_act is not None
    return game.act(game.to_act, Call())


def test_penalty_fixed_rounds_lowest_total_wins() -> None:
    game = Game(_penalty_rounds(1), 3)
    # Seat 0 calls with 2 against 9 and 13: seats 1 and 2 score their hands.
    events = _call_with(game, ["Ac Ad", "9c", "Kc"])
    result = events[-1]
    assert result["type"] == "game_ended"
    assert result["scores"] == [0, 9, 13]
    assert result["standings"] == [0, 1, 2]
    assert result["winners"] == [0]
    assert game.phase is Phase.GAME_OVER


def test_penalty_fixed_rounds_shared_lowest_total() -> None:
    game = Game(_penalty_rounds(2), 3)
    _call_with(game, ["Ac", "9c", "Kc"])  # seat 0 calls with 1: scores [0, 9, 13]
    # Seat 1 starts and calls with 4 against 5 and 9: a won call, seats 0 and 2 score.
    events = _call_with(game, ["9d", "4c", "5c"])
    result = events[-1]
    assert result["scores"] == [9, 9, 18]
    assert result["standings"] == [0, 1, 2]
    assert result["winners"] == [0, 1]


def test_transfer_fixed_rounds_highest_tally_wins() -> None:
    game = Game(profile_document("everestbuzz"), 3)  # transfer scoring, three rounds
    # Each starter calls at once with the lowest hand: a won call every round.
    for hands in (["Ac", "9c", "Kc"], ["Kd", "Ad", "9d"], ["2h", "Kh", "Ah"]):
        events = _call_with(game, hands)
    result = events[-1]
    assert result["type"] == "game_ended"
    assert result["scores"] == [7, 0, -7]
    assert result["standings"] == [0, 1, 2]
    assert result["winners"] == [0]


@pytest.mark.e2e
def test_the_penalty_rounds_oracle_passes_under_its_variant() -> None:
    # The oracle transcript needs a ruleset no shipped profile plays: a variant of EverestBuzz.
    import subprocess
    import sys

    from tests.conftest import ROOT

    variants = ROOT / "tests" / "data" / "variants"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "conformance",
            "run",
            "-q",
            "--profile",
            str(variants / "penalty-rounds.yaml"),
            "--transcripts",
            str(variants / "transcripts"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "== 1 passed (1 case)" in result.stdout
