"""Issue 40's seat 0 starting every hand (next_starter first_starter), which no shipped
profile plays: the reference starts each hand at deal.first_starter whoever won or called,
passes it to the next seat in play once that seat is out, and its variant
(tests/data/variants/) passes its oracle transcript as written and fails it at the base's
round_winner."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.spec.profiles import load_profile
from jhyap_core import table as core
from jhyap_core.cards import parse_card, parse_cards
from reference_engine.actions import Call, PickDeck, ThrowCards
from reference_engine.game import Game
from reference_engine.rules import NextStarter
from tests.cli_helpers import run_variant_switched, run_variants
from tests.conftest import ROOT

VARIANTS = ROOT / "tests" / "data" / "variants"
VARIANT = VARIANTS / "dhumbal-first-starter-every-hand.yaml"
TRANSCRIPTS = VARIANTS / "starter-transcripts"


def test_the_first_starter_starts_whoever_won_or_called() -> None:
    for winner, caller in ((1, 1), (2, 1), (None, None)):
        assert core.next_starter("first_starter", 3, [0, 1, 2], 2, caller, winner, [], 0) == 0
    assert core.next_starter("first_starter", 4, [0, 1, 2, 3], 0, 1, 1, [], 6) == 2
    # Seat 0 out this hand: the table passes the start to the next seat in play after it.
    assert core.next_starter("first_starter", 3, [0, 1, 2], 1, 1, 1, [0], 0) == 0


def test_the_reference_starts_the_second_hand_at_seat_0() -> None:
    game = Game(load_profile(VARIANT), seats=3)
    assert game.rules.turn.next_starter is NextStarter.FIRST_STARTER
    hands = [
        parse_cards(["Kc", "Kd", "Qc", "Qd", "Jc"]),
        parse_cards(["Ac", "2c", "3c", "Ad", "2d"]),
        parse_cards(["Kh", "Ks", "Qh", "Qs", "Jd"]),
    ]
    dealt = {c for h in hands for c in h} | {parse_card("5s")}
    stock = [c for c in game.full_deck if c not in dealt]
    game.deal(game.full_deck, (hands, parse_card("5s"), stock))
    game.act(0, ThrowCards(tuple(parse_cards(["Kc", "Kd"]))))
    game.act(0, PickDeck())
    events = game.act(1, Call())
    assert events[-1]["winner"] == 1
    assert (game.starter, game.state()["starter"]) == (0, 0)


@pytest.mark.e2e
def test_the_variant_passes_its_transcript_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run_variants(TRANSCRIPTS, [VARIANT], capsys)
    assert status == 0
    assert out.splitlines()[-1].startswith("== 1 passed (1 case)")


@pytest.mark.e2e
def test_the_transcript_fails_at_the_round_winner(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run_variant_switched(
        TRANSCRIPTS,
        VARIANT,
        "rules: {next_starter: first_starter}",
        "rules: {next_starter: round_winner}",
        tmp_path,
        capsys,
    )
    assert status == 1
    assert "starter: expected 0, got 1" in out
