"""Issue 40's reshuffle that also keeps the card under the offer (reshuffle.kept_aside
offer_and_card_under), which no shipped profile plays: when a draw takes the deck's last
card, the reference keeps the throw just made and the previous throw's top card out of the
new deck (that card waits on offer beside the throw, then goes out of play); jhyap validate
refuses the value with another moment; the variant (tests/data/variants/) passes its oracle
transcript as written and fails it under the base's current_offer."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.spec.profiles import load_profile
from jhyap_core.cards import parse_card, parse_cards
from reference_engine.actions import PickDeck, ThrowCards
from reference_engine.game import Game
from reference_engine.parameters import broken_constraints
from reference_engine.rules import KeptAside
from tests.cli_helpers import run_variant_switched, run_variants
from tests.conftest import ROOT

VARIANTS = ROOT / "tests" / "data" / "variants"
VARIANT = VARIANTS / "dhumbal-card-under-kept.yaml"
TRANSCRIPTS = VARIANTS / "card-under-transcripts"


def _emptying_pick(offer_cards: list[str]) -> tuple[Game, list[dict[str, object]]]:
    """Two seats, a deck of one card: seat 0 throws ``offer_cards``, draws; seat 1 throws
    the 2s and draws the deck's last card."""
    game = Game(load_profile(VARIANT), seats=2)
    assert game.rules.reshuffle.kept_aside is KeptAside.OFFER_AND_CARD_UNDER
    hands = [
        parse_cards([*offer_cards, "Kd", "Qd", "Jd"][:5]),
        parse_cards(["2s", "3s", "4s", "5s", "6s"]),
    ]
    dealt = {c for h in hands for c in h} | {parse_card("Ac")}
    rest = [c for c in game.full_deck if c not in dealt]
    game.deal(game.full_deck, (hands, parse_card("Ac"), rest))
    # Every card but two goes out of play at once, as the harness's short decks do.
    game.out_of_play.extend(game.deck[:-2])
    del game.deck[:-2]
    game.act(0, ThrowCards(tuple(parse_cards(offer_cards))))
    game.act(0, PickDeck())
    game.act(1, ThrowCards((parse_card("2s"),)))
    return game, game.act(1, PickDeck())


def test_the_card_under_the_throw_waits_beside_it_then_goes_out_of_play() -> None:
    game, events = _emptying_pick(["7c", "7d", "7h"])
    assert events[1] == {"type": "out_of_play", "cards": ["7c", "7d"]}
    assert events[2]["type"] == "reshuffle_needed"
    assert isinstance(events[2]["cards"], list) and "7h" not in events[2]["cards"]
    state = game.state()
    assert (state["offer"], state["thrown"], state["phase"]) == (
        ["7h"],
        ["2s"],
        "awaiting_reshuffle",
    )
    pile = list(state["out_of_play"])
    after = game.reshuffle(parse_cards(pile))
    assert after == [
        {"type": "reshuffled", "deck_size": len(pile)},
        {"type": "out_of_play", "cards": ["7h"]},
    ]
    state = game.state()
    assert (state["offer"], state["out_of_play"], state["to_act"]) == (["2s"], ["7h"], 0)


def test_validate_refuses_it_with_another_moment() -> None:
    profile = load_profile(VARIANT)
    rules = dict(profile["rules"])
    for moment in ("when_draw_finds_deck_empty", "at_throw_after_deck_emptied"):
        rules["reshuffle"] = {**rules["reshuffle"], "moment": moment}
        assert [c.message for c in broken_constraints(rules)] == [
            "reshuffle.kept_aside offer_and_card_under goes with reshuffle.moment "
            "when_deck_emptied, and only with it"
        ]


@pytest.mark.e2e
def test_the_variant_passes_its_transcript_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run_variants(TRANSCRIPTS, [VARIANT], capsys)
    assert status == 0
    assert out.splitlines()[-1].startswith("== 1 passed (1 case)")


@pytest.mark.e2e
def test_the_transcript_fails_under_current_offer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run_variant_switched(
        TRANSCRIPTS,
        VARIANT,
        "rules: {reshuffle: {kept_aside: offer_and_card_under}}",
        "rules: {reshuffle: {kept_aside: current_offer}}",
        tmp_path,
        capsys,
    )
    assert status == 1
    assert "9d" in out
