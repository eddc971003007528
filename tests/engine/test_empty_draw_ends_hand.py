"""Issue 40's empty deck that ends the hand only when someone must draw from it
(deck_runs_out_when draw_finds_deck_empty), which no shipped profile plays: under a
deck_runs_out that ends the hand, the reference plays on once the deck is empty and ends the
hand at a draw from it; the variant (tests/data/variants/) passes its oracle transcript as
written and fails it under the default last_card_taken."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.spec.profiles import load_profile
from jhyap_core.cards import parse_card, parse_cards
from reference_engine.actions import PickDeck, PickOffer, ThrowCards
from reference_engine.game import Game
from reference_engine.rules import DeckRunsOutWhen
from tests.cli_helpers import run_variant_switched, run_variants
from tests.conftest import ROOT

VARIANTS = ROOT / "tests" / "data" / "variants"
VARIANT = VARIANTS / "dhumbal-deck-out-ends-at-draw.yaml"
TRANSCRIPTS = VARIANTS / "empty-draw-transcripts"


def test_the_hand_goes_on_past_the_last_card_and_ends_at_a_draw() -> None:
    game = Game(load_profile(VARIANT), seats=2)
    assert game.rules.reshuffle.deck_runs_out_when is DeckRunsOutWhen.DRAW_FINDS_DECK_EMPTY
    hands = [
        parse_cards(["Kc", "Qc", "Jc", "Tc", "9c"]),
        parse_cards(["Kd", "Qd", "Jd", "Td", "9d"]),
    ]
    dealt = {c for h in hands for c in h} | {parse_card("Ac")}
    rest = [c for c in game.full_deck if c not in dealt]
    game.deal(game.full_deck, (hands, parse_card("Ac"), rest))
    # Every card but one goes out of play at once, as the harness's short decks do.
    game.out_of_play.extend(game.deck[:-1])
    del game.deck[:-1]
    game.act(0, ThrowCards((parse_card("Kc"),)))
    events = game.act(0, PickDeck())  # the deck's last card
    assert [e["type"] for e in events] == ["picked", "out_of_play"]
    assert (game.state()["phase"], game.state()["deck_size"]) == ("call_or_throw", 0)
    game.act(1, ThrowCards((parse_card("Kd"),)))
    assert [e["type"] for e in game.act(1, PickOffer(parse_card("Kc")))] == ["picked"]
    game.act(0, ThrowCards((parse_card("Qc"),)))
    events = game.act(0, PickDeck())
    assert [e["type"] for e in events] == ["round_ended"]
    assert (events[0]["outcome"], events[0]["deltas"]) == ("deck_ran_out", [0, 0])


@pytest.mark.e2e
def test_the_variant_passes_its_transcript_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run_variants(TRANSCRIPTS, [VARIANT], capsys)
    assert status == 0
    assert out.splitlines()[-1].startswith("== 1 passed (1 case)")


@pytest.mark.e2e
def test_the_transcript_fails_where_the_last_card_ends_the_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run_variant_switched(
        TRANSCRIPTS,
        VARIANT,
        "deck_runs_out_when: draw_finds_deck_empty}",
        "deck_runs_out_when: last_card_taken}",
        tmp_path,
        capsys,
    )
    assert status == 1
    assert "round_ended" in out
