"""Each occurrence of a card on offer is one card (issue 21): pickable, legal, kept aside."""

from __future__ import annotations

import copy
from typing import Any

from jhyap_core.cards import names
from jhyap_core.table import Throw
from jhyap_core.vocabulary import ThrowKind
from reference_engine import Game, Phase, PickDeck, ThrowCards, parse_cards
from tests.conftest import profile_document


def _table(pick: str, kept_aside: str = "current_offer") -> Game:
    doc: dict[str, Any] = copy.deepcopy(profile_document("yaniv-israel"))  # two packs at 4
    rules = doc["rules"]
    rules["pick"]["from_offer"] = pick
    rules["throws"]["run"]["wrap"] = False  # runs stop at the king here: Qs X X is J Q K
    if kept_aside != "current_offer":
        rules["reshuffle"].update(moment="when_draw_finds_deck_empty", kept_aside=kept_aside)
    game = Game(doc, 4)
    game.deal(list(game.full_deck))
    return game


def _offer(game: Game, cards: str, kind: ThrowKind) -> None:
    game.offer = Throw(tuple(parse_cards(cards.split())), kind)


def test_two_jokers_on_offer_are_both_pickable() -> None:
    game = _table("any")
    _offer(game, "X X", ThrowKind.SET)
    assert game.state()["pickable"] == ["X", "X"]


def test_first_or_last_lists_two_copies_of_a_card() -> None:
    game = _table("first_or_last_placed")
    _offer(game, "Ah Ah", ThrowKind.SET)
    assert game.state()["pickable"] == ["Ah", "Ah"]
    _offer(game, "Ah Ad Ah", ThrowKind.SET)
    assert game.state()["pickable"] == ["Ah", "Ah"]


def test_a_joker_at_a_run_end_and_one_in_its_middle() -> None:
    game = _table("run_ends")
    # 4h X 6h X: the first joker stands for 5h, the second extends the run to 7h.
    _offer(game, "4h X 6h X", ThrowKind.RUN)
    assert game.state()["pickable"] == ["4h", "X"]
    # Qs X X: one joker above the queen (the king), the other below it (the jack).
    _offer(game, "Qs X X", ThrowKind.RUN)
    assert game.state()["pickable"] == ["X", "X"]


def test_legal_lists_one_pick_for_two_copies() -> None:
    game = _table("any")
    _offer(game, "X X", ThrowKind.SET)
    game.act(0, ThrowCards((game.hands[0][0],)))
    legal = game.legal_actions()
    assert legal is not None
    assert legal.to_json()["picks"] == [{"from": "deck"}, {"from": "offer", "card": "X"}]


def test_kept_aside_by_occurrence_and_a_run_cut_to_its_ends() -> None:
    game = _table("run_ends", "pickable_and_throw")
    _offer(game, "4h X 6h X", ThrowKind.RUN)
    # Empty the deck into out of play, so the next draw finds it empty.
    game.out_of_play = list(game.deck)
    game.deck = []
    for card in parse_cards(["4h", "X", "6h", "X"]):
        game.out_of_play.remove(card)
    held = game.hands[0][0]
    game.act(0, ThrowCards((held,)))
    before = names(game.out_of_play)
    events = game.act(0, PickDeck())
    assert [e["type"] for e in events] == ["reshuffle_needed"]
    assert game.phase is Phase.AWAITING_RESHUFFLE
    state = game.state()  # the offer is the run's two ends: both may still be taken
    assert (state["offer"], state["pickable"], state["offer_kind"]) == (
        ["4h", "X"],
        ["4h", "X"],
        "run",
    )
    # The run's middle, 6h and the joker standing for 5h, joins the new deck: one joker, not two.
    assert sorted(names(game.out_of_play)) == sorted([*before, "X", "6h"])
