"""Under a ruleset whose pack leaves ranks out, a transcript naming them runs with cards the
pack holds standing in for them (derived), not as not applicable (docs/readings.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cli import main
from conformance.harness.derive import Mode, NotApplicable, classify, stand_ins
from conformance.spec.profiles import load_profile
from conformance.spec.transcript import load_transcript
from conformance.spec.transcript_profiles import shipped_documents

ROOT = Path(__file__).resolve().parents[2]
NO_KINGS = ROOT / "tests" / "data" / "variants" / "dhumbal-no-kings.yaml"
CORPUS = ROOT / "conformance" / "transcripts"


def test_a_free_rank_stands_in_for_the_whole_rank() -> None:
    # Q is named, so the nearest free rank below K is J: the two kings stay a pair.
    assert stand_ins({"Kc", "Kd", "Qh", "2s"}, "K") == {"Kc": "Jc", "Kd": "Jd"}
    # Below first at equal distance; two ranks left out take two ranks.
    assert stand_ins({"Qs", "Kd", "Js"}, "QK") == {"Qs": "Ts", "Kd": "9d"}


def test_without_a_free_rank_each_card_takes_the_nearest_free_card_of_its_suit_first() -> None:
    named = {f"{rank}c" for rank in "A23456789TJQ"} | {"Kc", "Kd"}
    assert stand_ins(named, "K") == {"Kc": "Qd", "Kd": "Jd"}


def test_a_pack_with_no_card_to_spare_is_not_applicable() -> None:
    named = {f"{rank}{suit}" for rank in "A23456789TJQK" for suit in "cdhs"}
    with pytest.raises(NotApplicable) as caught:
        stand_ins(named, "K")
    assert str(caught.value) == (
        "the transcript names every card the ruleset's deck holds, and Kc besides, which its "
        "pack leaves out: no card is free to stand in for it"
    )


def test_a_transcript_naming_kings_runs_derived_with_its_own_expectations() -> None:
    variant = load_profile(NO_KINGS)
    transcript = load_transcript(CORPUS / "shared-showdown-tie-beats-caller.yaml")
    found = classify(transcript, variant["id"], variant, shipped_documents())
    assert found.mode is Mode.DERIVED
    assert found.reason == (
        "stand-in cards: the ruleset's pack holds no K, so the transcript's Kc as 8c, Kh as 8h, "
        "Ks as 8s: the transcript's own expectations, those cards renamed"
    )
    deal = found.transcript.steps[0].request
    assert deal is not None
    assert not any(card.startswith("K") for card in deal["deck"])
    assert len(deal["deck"]) == 48


@pytest.mark.e2e
def test_most_of_the_corpus_runs_without_kings(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "-q", "--profile", str(NO_KINGS)]) == 0
    out = capsys.readouterr().out
    assert "== 7 passed as written, 109 passed derived, 47 not applicable (163 cases)" in out, out[
        -2000:
    ]
