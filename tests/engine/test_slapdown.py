"""Issue 40's slapdown (throws.slapdown), which no shipped profile plays: its variant
(tests/data/variants/bga-yaniv-slapdown.yaml) passes its oracle transcripts as written, the
same transcripts fail where the parameter is left at its default, and the table procedure
opens, closes and refuses a slapdown as docs/protocol.md says."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jhyap_core.vocabulary import ErrorCode, JhyapError
from reference_engine import Call, Game, PickDeck, SlapDown, ThrowCards, parse_card, parse_cards
from reference_engine.game import ReferencePlay
from tests.cli_helpers import run_variant_switched, run_variants
from tests.conftest import ROOT, profile_document

VARIANTS = ROOT / "tests" / "data" / "variants"
TRANSCRIPTS = VARIANTS / "slapdown-transcripts"
VARIANT = VARIANTS / "bga-yaniv-slapdown.yaml"


@pytest.mark.e2e
def test_the_variant_passes_its_transcripts_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run_variants(TRANSCRIPTS, [VARIANT], capsys)
    assert status == 0
    assert out.splitlines()[-1].startswith("== 2 passed (2 cases)")


@pytest.mark.e2e
def test_the_transcripts_fail_without_the_parameter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run_variant_switched(
        TRANSCRIPTS, VARIANT, "slapdown: same_rank_as_single", "slapdown: none", tmp_path, capsys
    )
    assert status == 1
    assert out.splitlines()[-1].startswith("== 2 failed (2 cases)")
    assert "slapdown_not_allowed" in out


def _game(slapdown: str) -> Game:
    profile: dict[str, Any] = profile_document("bga-yaniv")
    profile = {**profile, "rules": {**profile["rules"]}}
    profile["rules"]["throws"] = {**profile["rules"]["throws"], "slapdown": slapdown}
    game = Game(profile, seats=2)
    deck = list(game.full_deck)
    hands = [
        parse_cards(["7c", "9s", "Qh", "Kd", "2d"]),
        parse_cards(["Ac", "3d", "5h", "8s", "Jc"]),
    ]
    up = parse_card("4c")
    stock = parse_cards(["7h", "6d"])
    placed = [c for h in hands for c in h] + [up, *stock]
    rest = [c for c in deck if c not in placed]
    game.deal(deck, ([list(h) for h in hands], up, [*stock, *rest]))
    game.act(0, ThrowCards((parse_card("7c"),)))
    game.act(0, PickDeck())
    return game


def test_a_slapdown_is_offered_after_a_draw_of_the_single_s_rank() -> None:
    game = _game("same_rank_as_single")
    legal = game.legal()
    assert legal is not None
    assert legal["seat"] == 1
    assert legal["slapdown"] == {"seat": 0, "card": "7h"}
    assert game.act(0, SlapDown(parse_card("7h"))) == [
        {"type": "slapped_down", "seat": 0, "card": "7h"},
        {"type": "out_of_play", "cards": ["7c"]},
    ]
    state = game.state()
    assert (state["offer"], state["offer_kind"], state["out_of_play"]) == (
        ["7h"],
        "single",
        ["4c", "7c"],
    )
    assert (state["to_act"], state["turns_taken"], state["hands"][0]) == (
        1,
        1,
        ["2d", "9s", "Qh", "Kd"],
    )
    legal = game.legal()
    assert legal is not None and "slapdown" not in legal


@pytest.mark.parametrize(
    ("slapdown", "seat", "card"),
    [("none", 0, "7h"), ("same_rank_as_single", 1, "7h"), ("same_rank_as_single", 0, "2d")],
)
def test_a_wrong_slapdown_is_refused_and_changes_nothing(
    slapdown: str, seat: int, card: str
) -> None:
    game = _game(slapdown)
    before = game.state()
    with pytest.raises(JhyapError) as refused:
        game.act(seat, SlapDown(parse_card(card)))
    assert refused.value.code is ErrorCode.SLAPDOWN_NOT_ALLOWED
    assert game.state() == before


def test_the_next_seat_s_act_closes_the_slapdown() -> None:
    game = _game("same_rank_as_single")
    game.act(1, ThrowCards((parse_card("Jc"),)))
    with pytest.raises(JhyapError) as refused:
        game.act(0, SlapDown(parse_card("7h")))
    assert refused.value.code is ErrorCode.SLAPDOWN_NOT_ALLOWED


def test_an_emptied_hand_must_call_whatever_the_call_rules() -> None:
    game = _game("same_rank_as_single")
    game.hands[0] = [parse_card("7h")]  # as if the seat had held only the 7c it threw
    game.act(0, SlapDown(parse_card("7h")))
    game.act(1, ThrowCards((parse_card("Jc"),)))
    game.act(1, PickDeck())
    # A lock that would refuse seat 0's call (one turn of its own so far): it does not apply.
    locked = ReferencePlay(game.rules.with_values({"calling.min_own_turns": 5}))
    game.configure(game.profile, game.table_rules, locked)
    assert locked.call_refusal(game, 1) is not None
    legal = game.legal()
    assert legal is not None
    assert (legal["seat"], legal["call"], legal["throws"]) == (0, True, [])
    events = game.act(0, Call())
    assert events[0] == {"type": "called", "seat": 0, "value": 0}
