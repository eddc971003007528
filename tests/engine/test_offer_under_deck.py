"""Issue 40's offers recycled under the deck instead of a reshuffle (deck_runs_out
offer_under_deck), which no shipped profile plays: the reference puts a covered offer's
untaken cards under the deck at once, as placed (the first placed nearest the top), so the
deck never runs out; its variant (tests/data/variants/) passes its oracle transcript as
written and fails it under the base's reshuffle."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.spec.profiles import load_profile
from jhyap_core.cards import parse_card, parse_cards
from reference_engine.actions import PickDeck, PickOffer, ThrowCards
from reference_engine.game import Game
from reference_engine.rules import DeckRunsOut
from tests.cli_helpers import run_variant_switched, run_variants
from tests.conftest import ROOT

VARIANTS = ROOT / "tests" / "data" / "variants"
VARIANT = VARIANTS / "dhumbal-offer-under-deck.yaml"
TRANSCRIPTS = VARIANTS / "under-deck-transcripts"


def test_the_covered_offer_goes_under_the_deck_as_placed() -> None:
    game = Game(load_profile(VARIANT), seats=2)
    assert game.rules.reshuffle.deck_runs_out is DeckRunsOut.OFFER_UNDER_DECK
    hands = [
        parse_cards(["4c", "5c", "6c", "Kd", "Qd"]),
        parse_cards(["Kh", "Ks", "Qh", "Qs", "Jd"]),
    ]
    dealt = {c for h in hands for c in h} | {parse_card("9s")}
    stock = parse_cards(["2h", "3h"]) + [
        c for c in game.full_deck if c not in dealt and c.name not in ("2h", "3h")
    ]
    game.deal(game.full_deck, (hands, parse_card("9s"), stock))
    game.act(0, ThrowCards(tuple(parse_cards(["6c", "4c", "5c"]))))
    events = game.act(0, PickDeck())
    assert events[-1] == {"type": "under_deck", "cards": ["9s"]}
    game.act(1, ThrowCards(tuple(parse_cards(["Kh", "Ks"]))))
    events = game.act(1, PickOffer(parse_card("4c")))
    # The run's other cards go under as placed: 6c first (nearest the top), then 5c.
    assert events[-1] == {"type": "under_deck", "cards": ["6c", "5c"]}
    state = game.state()
    assert state["deck"][0] == "3h"
    assert state["deck"][-3:] == ["9s", "6c", "5c"]
    assert (state["deck_size"], state["out_of_play"]) == (41 - 1 + 1 + 2, [])


def test_the_deck_never_runs_out() -> None:
    # Two seats drawing every turn from a deck of one card: each draw sends the covered
    # offer under the deck, so the deck stays at one card or more and no reshuffle is due.
    game = Game(load_profile(VARIANT), seats=2)
    game.deal(game.full_deck)
    for _ in range(60):
        seat = game.state()["to_act"]
        hand = game.state()["hands"][seat]
        game.act(seat, ThrowCards((parse_card(hand[0]),)))
        game.act(seat, PickDeck())
        state = game.state()
        assert state["deck_size"] >= 41 and state["out_of_play"] == []
        assert state["phase"] == "call_or_throw"


@pytest.mark.e2e
def test_the_variant_passes_its_transcript_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run_variants(TRANSCRIPTS, [VARIANT], capsys)
    assert status == 0
    assert out.splitlines()[-1].startswith("== 1 passed (1 case)")


@pytest.mark.e2e
def test_the_transcript_fails_under_the_reshuffle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run_variant_switched(
        TRANSCRIPTS,
        VARIANT,
        "rules: {deck_runs_out: offer_under_deck}",
        "rules: {deck_runs_out: reshuffle}",
        tmp_path,
        capsys,
    )
    assert status == 1
    assert "under_deck" in out and "out_of_play" in out
