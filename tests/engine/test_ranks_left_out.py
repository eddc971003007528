"""deck.ranks_left_out (issue 28): a pack without some ranks, in the engine, in validate and
in the harness's deck headers; its oracle transcript passes and has teeth."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.spec.decks import deck_header, deck_names, deck_words, table_deck
from jhyap_core.cards import full_deck
from reference_engine import JhyapError
from reference_engine.game import Game
from reference_engine.rules import Rules
from tests.mutants.rules import applied

VARIANTS = Path(__file__).resolve().parents[1] / "data" / "variants"
NO_KINGS = VARIANTS / "dhumbal-no-kings.yaml"
ORACLE = VARIANTS / "dimension-transcripts" / "dhumbal-no-kings.yaml"


def _dhumbal(**deck: object) -> dict[str, Any]:
    from conformance.spec.profiles import load_profile

    document = load_profile("dhumbal")
    document["rules"]["deck"] = {**document["rules"]["deck"], **deck}
    return document


def test_a_pack_without_kings_holds_48_cards_and_no_king() -> None:
    pack = full_deck(1, 0, [13])
    assert len(pack) == 48
    assert not [c for c in pack if c.rank == 13]
    assert len(full_deck(2, 2, [12, 13])) == 2 * (44 + 2)


def test_the_engine_deals_48_cards_and_refuses_52() -> None:
    game = Game(_dhumbal(cards=48, ranks_left_out=["K"]), 2)
    with pytest.raises(JhyapError) as refused:
        game.deal(full_deck())
    assert refused.value.code == "invalid_deck"
    assert "48 cards: 1 pack(s) of 48 with 0 joker(s) each" in refused.value.message
    events = game.deal(full_deck(1, 0, [13]))
    assert events[1]["deck_size"] == 48 - 11


@pytest.mark.parametrize(
    ("deck", "message"),
    [
        ({"cards": 52, "ranks_left_out": ["K"]}, "rules.deck.cards: 52, but a pack without K"),
        ({"cards": 48}, "rules.deck.cards: 48, but a pack without any rank left out holds 52"),
        ({"cards": 48, "ranks_left_out": ["Z"]}, "rules.deck.ranks_left_out: a list of ranks"),
        ({"cards": 44, "ranks_left_out": ["K", "K"]}, "rules.deck.ranks_left_out: each rank once"),
    ],
)
def test_the_engine_refuses_a_count_that_does_not_fit(
    deck: dict[str, object], message: str
) -> None:
    with pytest.raises(JhyapError) as refused:
        Rules.from_profile(_dhumbal(**deck))
    assert message in refused.value.message


def test_validate_refuses_a_count_that_does_not_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text(NO_KINGS.read_text("utf-8").replace("cards: 48", "cards: 44"), "utf-8")
    assert main(["validate", str(broken)]) == 1
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert "44 cards, but a pack of 52 without K holds 48" in out


def test_the_harness_deck_key_names_the_ranks_left_out() -> None:
    rules = _dhumbal(cards=48, ranks_left_out=["K", "Q"])["rules"]
    assert table_deck(rules, 2) == (1, 0, "QK")
    assert table_deck(_dhumbal()["rules"], 2) == (1, 0)
    assert deck_header((1, 0, "QK")) == {"packs": 1, "jokers": 0, "left_out": ["Q", "K"]}
    assert deck_words((2, 1, "K")) == "2 packs of 49 cards without K, 1 joker each"
    assert deck_words((1, 2)) == "1 pack of 54 cards, 2 jokers"
    assert deck_words((1, 0)) == "1 pack of 52 cards, no jokers"
    assert len(deck_names(1, 0, "K")) == 48


def _oracle_alone(tmp_path: Path) -> str:
    """A folder holding only the no-kings oracle (its neighbours name other variants)."""
    folder = tmp_path / "oracle"
    folder.mkdir()
    shutil.copy(ORACLE, folder / ORACLE.name)
    return str(folder)


@pytest.mark.e2e
def test_the_no_kings_oracle_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    oracle = _oracle_alone(tmp_path)
    status = main(["run", "-q", "--profile", str(NO_KINGS), "--transcripts", oracle])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "== 1 passed (1 case)" in out


def test_the_no_kings_oracle_is_refused_for_a_full_pack(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    full = tmp_path / "dhumbal-no-kings.yaml"
    stated = "{deck: {cards: 48, ranks_left_out: [K]}}"
    text = NO_KINGS.read_text("utf-8")
    assert stated in text
    full.write_text(text.replace(stated, "{deck: {cards: 52, ranks_left_out: []}}"), "utf-8")
    oracle = _oracle_alone(tmp_path)
    status = main(["run", "-q", "--profile", str(full), "--transcripts", oracle])
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert status != 0
    assert "plays 2 seats with 1 pack of 52 cards, no jokers" in out


def test_an_engine_that_keeps_the_kings_is_caught() -> None:
    with applied("ranks_left_out_kept"):
        game = Game(_dhumbal(cards=48, ranks_left_out=["K"]), 2)
        with pytest.raises(JhyapError):
            game.deal(full_deck(1, 0, [13]))
