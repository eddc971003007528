"""Issue 40's deal with no turned-up card (deal.first_offer none), which no shipped profile
plays: the deal turns nothing up (the dealt event's turned_up is null, the stock follows the
hands), the first player of a hand throws and may then only draw, a pick from the absent
offer is refused with card_not_on_offer and changes nothing, and the first throw is the
offer. Its variant (tests/data/variants/) passes its oracle transcript as written and fails
it under the base's turned_up_card."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from conformance.harness.derive import laid_out
from conformance.harness.replay import _layout_differences
from conformance.spec.deal_layout import layout_from_state, layout_of, with_deal_layouts
from conformance.spec.decks import expand_deal
from conformance.spec.profiles import load_profile
from conformance.spec.transcript import load_transcript
from jhyap_core import table as core
from jhyap_core.cards import names, parse_card, parse_cards
from jhyap_core.vocabulary import ErrorCode, JhyapError, Phase
from reference_engine.actions import PickDeck, PickOffer, ThrowCards
from reference_engine.game import Game
from reference_engine.rules import FirstOffer
from tests.cli_helpers import run_variant_switched, run_variants
from tests.conftest import ROOT

VARIANTS = ROOT / "tests" / "data" / "variants"
VARIANT = VARIANTS / "alankar-dhumbal-no-first-offer.yaml"
TRANSCRIPTS = VARIANTS / "first-offer-transcripts"


def test_a_deal_without_a_turned_up_card_leaves_the_stock_after_the_hands() -> None:
    order = list("abcdefgh")
    assert core.dealt_from(order, [1, 0], 2) == ({1: ["a", "c"], 0: ["b", "d"]}, "e", list("fgh"))
    assert core.dealt_from(order, [1, 0], 2, turn_up=False) == (
        {1: ["a", "c"], 0: ["b", "d"]},
        None,
        list("efgh"),
    )


def test_the_layout_of_a_deal_without_a_turned_up_card_has_one_card_fewer_before_the_stock() -> (
    None
):
    spec = {"starter": 0, "hands": {0: ["Kc", "Kd"], 1: ["Ac", "2c"]}, "turned_up": None}
    order = expand_deal({**spec, "deck": ["4h"]})
    assert order[:5] == ["Kc", "Ac", "Kd", "2c", "4h"]
    assert len(order) == 52
    layout = layout_of(order, [["Kc", "Kd"], ["Ac", "2c"]], None)
    assert layout is not None
    assert layout["turned_up"] is None
    assert layout["stock"] == order[4:]
    assert layout_from_state({"hands": [["Kc", "Kd"], ["2c", "Ac"]], "offer": []}, order) == {
        "hands": [["Kc", "Kd"], ["Ac", "2c"]],
        "turned_up": None,
        "stock": order[4:],
    }


def test_a_deal_is_laid_out_for_a_table_with_the_other_first_offer() -> None:
    # Under none the named turned-up card joins the cards nobody was named, so the named
    # deck is drawn as written; a deal naming none, laid out for a table that turns a card
    # up, turns up the first card nobody was named (pack order: Ad after the named Ac).
    hands = {"0": ["Kc", "Kd", "Qc", "2d", "3d"], "1": ["Ac", "2c", "9h", "Ts", "Js"]}
    spec = {"starter": 0, "hands": hands, "turned_up": "5h", "deck": ["4h"]}
    assert laid_out(spec, (1, 0), 5, turns_up=False) == {**spec, "turned_up": None}
    assert laid_out({**spec, "turned_up": None}, (1, 0), 5) == {**spec, "turned_up": "Ad"}
    assert expand_deal({**spec, "turned_up": None})[10:12] == ["4h", "Ad"]


def _game(profile: dict[str, Any] | None = None, seats: int = 2) -> Game:
    return Game(profile or load_profile(VARIANT), seats=seats)


def test_the_first_player_draws_and_a_pick_from_the_absent_offer_changes_nothing() -> None:
    game = _game()
    assert game.rules.deal.first_offer is FirstOffer.NONE
    order = list(game.full_deck)
    events = game.deal(order)
    assert events[1]["turned_up"] is None
    assert events[1]["deck_size"] == 42
    state = game.state()
    assert (state["offer"], state["offer_kind"], state["pickable"]) == ([], None, [])
    assert state["deck"] == names(order[10:])
    first = game.hands[0][0]
    game.act(0, ThrowCards((first,)))
    assert game.legal() == {"seat": 0, "call": False, "throws": [], "picks": [{"from": "deck"}]}
    before = game.state()
    with pytest.raises(JhyapError) as refused:
        game.act(0, PickOffer(first))
    assert refused.value.code is ErrorCode.CARD_NOT_ON_OFFER
    assert game.state() == before
    events = game.act(0, PickDeck())
    assert events == [{"type": "picked", "seat": 0, "from": "deck", "card": str(order[10])}]
    assert game.state()["offer"] == [str(first)] and game.state()["out_of_play"] == []
    game.act(1, ThrowCards((game.hands[1][0],)))
    assert game.legal_actions() is not None
    assert game.legal_actions().pick_offer == (first,)  # type: ignore[union-attr]


def test_a_layout_must_say_no_card_is_turned_up() -> None:
    game = _game()
    hands = [
        parse_cards(["Kc", "Kd", "Qc", "2d", "3d"]),
        parse_cards(["Ac", "2c", "9h", "Ts", "Js"]),
    ]
    dealt = {c for h in hands for c in h}
    stock = [c for c in game.full_deck if c not in dealt]
    with pytest.raises(JhyapError) as refused:
        game.deal(game.full_deck, (hands, stock[0], stock[1:]))
    assert refused.value.code is ErrorCode.INVALID_DECK
    assert "turned_up (null)" in str(refused.value)
    assert game.phase is Phase.AWAITING_DEAL
    events = game.deal(game.full_deck, (hands, None, stock))
    assert events[1]["turned_up"] is None and events[1]["deck_size"] == 42


def _short_stock(first_offer: str) -> dict[str, Any]:
    """The variant for two seats of 25 cards: two cards left after the hands."""
    profile = copy.deepcopy(load_profile(VARIANT))
    profile["rules"]["seats"] = {"min": 2, "max": 2}
    profile["rules"]["hand_size"] = 25
    profile["rules"]["deal"]["first_offer"] = first_offer
    return profile


def test_the_reshuffle_after_a_hand_without_a_turned_up_card_keeps_the_current_offer() -> None:
    # Two cards after the hands: seat 0 draws one, seat 1 the last. The deck is empty with
    # seat 0's throw out of play and seat 1's throw the offer (kept_aside current_offer).
    game = _game(_short_stock("none"))
    order = list(game.full_deck)
    game.deal(order)
    assert len(game.deck) == 2
    thrown0 = game.hands[0][0]
    game.act(0, ThrowCards((thrown0,)))
    game.act(0, PickDeck())
    thrown1 = game.hands[1][0]
    game.act(1, ThrowCards((thrown1,)))
    events = game.act(1, PickDeck())
    assert events[-1] == {"type": "reshuffle_needed", "cards": [str(thrown0)]}
    state = game.state()
    assert (state["phase"], state["offer"], state["out_of_play"]) == (
        "awaiting_reshuffle",
        [str(thrown1)],
        [str(thrown0)],
    )
    assert game.reshuffle([thrown0]) == [{"type": "reshuffled", "deck_size": 1}]


def test_the_same_short_stock_with_a_turned_up_card_reshuffles_it_at_the_first_draw() -> None:
    game = _game(_short_stock("turned_up_card"))
    game.deal(list(game.full_deck))
    turned = game.state()["offer"]
    assert len(game.deck) == 1 and len(turned) == 1
    game.act(0, ThrowCards((game.hands[0][0],)))
    events = game.act(0, PickDeck())
    assert events[-1] == {"type": "reshuffle_needed", "cards": turned}


@pytest.mark.e2e
def test_the_variant_passes_its_transcript_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run_variants(TRANSCRIPTS, [VARIANT], capsys)
    assert status == 0
    assert out.splitlines()[-1].startswith("== 2 passed (2 cases)")


@pytest.mark.e2e
def test_the_transcript_fails_with_a_turned_up_card(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run_variant_switched(
        TRANSCRIPTS,
        VARIANT,
        "rules: {deal: {first_offer: none}}",
        "rules: {deal: {first_offer: turned_up_card}}",
        tmp_path,
        capsys,
    )
    assert status == 1
    assert out.count('events[1].turned_up: expected null, got "4h"') == 2
    assert out.splitlines()[-1].startswith("== 2 failed (2 cases)")


def test_a_parsed_turned_up_card_still_deals_as_before() -> None:
    game = Game(load_profile(ROOT / "specs" / "alankar-dhumbal.yaml"), seats=2)
    events = game.deal(list(game.full_deck))
    assert events[1]["turned_up"] == str(game.full_deck[10])
    assert parse_card(events[1]["turned_up"]) == game.full_deck[10]


def test_the_layout_check_wants_turned_up_null_not_absent() -> None:
    # A deal sent with its layout checks the dealt event's turned_up: under none it must be
    # there and null; an engine leaving the key out fails the deal step.
    document = load_profile(VARIANT)
    transcript = load_transcript(
        TRANSCRIPTS / "no-first-offer-first-player-draws.yaml", {document["id"]: document}
    )
    steps = with_deal_layouts(transcript.steps, transcript.seats)
    deal = next(s for s in steps if s.kind == "deal")
    assert deal.request is not None and deal.request["turned_up"] is None
    hands = deal.request["hands"]
    dealt: dict[str, Any] = {"type": "dealt", "hands": hands, "deck_size": 42}
    assert _layout_differences(deal, None, [dealt]) == [
        "dealt.turned_up: expected null, got nothing (missing)"
    ]
    assert _layout_differences(deal, None, [{**dealt, "turned_up": None}]) == []
    assert _layout_differences(deal, None, [{**dealt, "turned_up": "4h"}]) == [
        'dealt.turned_up: expected null, got "4h"'
    ]
