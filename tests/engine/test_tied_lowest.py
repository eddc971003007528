"""Issue 40's several winners scoring 0 (scoring.beaten_others score_own_hands_but_lowest
and score_own_hands_but_beaters): after a beaten call every other seat whose hand equals the
lowest, or every seat whose hand beats the call, scores nothing, while the one
showdown.winner_among_lowest names stays the round's winner; each variant passes its oracle
transcript as written, and the same transcript fails where only the named winner is spared
(the shipped profile's score_own_hands)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.spec.profiles import load_profile
from jhyap_core.profile import resolve
from reference_engine import scoring
from reference_engine.rules import Rules
from tests.cli_helpers import run_variant_switched, run_variants
from tests.conftest import ROOT

VARIANTS = ROOT / "tests" / "data" / "variants"
TRANSCRIPTS = VARIANTS / "tied-lowest-transcripts"
TIED = VARIANTS / "yaniv-israel-tied-lowest-score-nothing.yaml"
BEATERS = VARIANTS / "yaniv-israel-beaters-score-nothing.yaml"


def _rules(others: str, among_lowest: str = "first_after_caller") -> Rules:
    document = resolve(load_profile("yaniv-israel"))
    document["rules"]["scoring"]["beaten_others"] = others
    document["rules"]["showdown"]["winner_among_lowest"] = among_lowest
    return Rules.from_profile(document)


@pytest.mark.parametrize(
    ("others", "deltas"),
    [
        ("score_own_hands", {0: 37, 1: 0, 2: 47, 3: 5}),
        ("all_but_caller_score_own_hands", {0: 37, 1: 5, 2: 47, 3: 5}),
        ("score_own_hands_but_lowest", {0: 37, 1: 0, 2: 47, 3: 0}),
        ("score_own_hands_but_beaters", {0: 37, 1: 0, 2: 47, 3: 0}),
    ],
)
def test_what_the_others_score_on_a_beaten_call(others: str, deltas: dict[int, int]) -> None:
    shown = scoring.showdown({0: 7, 1: 5, 2: 47, 3: 5}, [1, 2, 3, 0], 0, _rules(others))
    assert (shown.outcome, shown.winner) == (scoring.Outcome.BEATEN_CALL, 1)
    assert dict(shown.deltas) == deltas


def test_a_hand_level_with_the_caller_but_not_the_lowest_still_scores() -> None:
    rules = _rules("score_own_hands_but_lowest")
    shown = scoring.showdown({0: 5, 1: 7, 2: 7, 3: 5}, [2, 3, 0, 1], 1, rules)
    assert shown.winner == 3
    assert dict(shown.deltas) == {2: 7, 3: 0, 0: 0, 1: 37}


def test_the_named_winner_follows_winner_among_lowest() -> None:
    rules = _rules("score_own_hands_but_lowest", "lowest_seat")
    shown = scoring.showdown({0: 5, 1: 7, 2: 7, 3: 5}, [2, 3, 0, 1], 1, rules)
    assert shown.winner == 0
    assert dict(shown.deltas) == {2: 7, 3: 0, 0: 0, 1: 37}


def test_a_won_call_is_scored_as_before() -> None:
    rules = _rules("score_own_hands_but_lowest")
    shown = scoring.showdown({0: 3, 1: 5, 2: 47, 3: 5}, [1, 2, 3, 0], 0, rules)
    assert (shown.outcome, shown.winner) == (scoring.Outcome.WON_CALL, 0)
    assert dict(shown.deltas) == {1: 5, 2: 47, 3: 5, 0: 0}


@pytest.mark.parametrize(
    ("tie", "deltas"),
    [
        # 7 equal to the caller's beats the call under beats_caller: it scores nothing too.
        ("beats_caller", {1: 0, 2: 0, 3: 47, 0: 37}),
        # Under caller_wins only the 5 beats it; the 7 scores its hand.
        ("caller_wins", {1: 7, 2: 0, 3: 47, 0: 37}),
    ],
)
def test_every_hand_that_beats_the_call_scores_nothing(tie: str, deltas: dict[int, int]) -> None:
    document = resolve(load_profile("yaniv-israel"))
    document["rules"]["scoring"]["beaten_others"] = "score_own_hands_but_beaters"
    document["rules"]["showdown"]["tie"] = tie
    rules = Rules.from_profile(document)
    shown = scoring.showdown({0: 7, 1: 7, 2: 5, 3: 47}, [1, 2, 3, 0], 0, rules)
    assert shown.winner == 2
    assert dict(shown.deltas) == deltas


@pytest.mark.e2e
def test_each_variant_passes_its_transcript_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run_variants(TRANSCRIPTS, [TIED, BEATERS], capsys)
    assert status == 0, out
    assert out.splitlines()[-1].startswith("== 2 passed as written, 2 passed derived (4 cases)")


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("variant", "stated", "wrong"),
    [
        (
            TIED,
            "rules: {scoring: {beaten_others: score_own_hands_but_lowest}}",
            "deltas: expected [37, 0, 47, 0], got [37, 0, 47, 5]",
        ),
        (
            BEATERS,
            "rules: {scoring: {beaten_others: score_own_hands_but_beaters}}",
            "deltas: expected [37, 0, 0, 47], got [37, 7, 0, 47]",
        ),
    ],
)
def test_the_transcript_fails_where_only_the_named_winner_is_spared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], variant: Path, stated: str, wrong: str
) -> None:
    other = BEATERS if variant == TIED else TIED
    switched = "rules: {scoring: {beaten_others: score_own_hands}}"
    status, out = run_variant_switched(
        TRANSCRIPTS, variant, stated, switched, tmp_path, capsys, [other]
    )
    assert status == 1
    assert "1 failed as written" in out.splitlines()[-1], out
    assert wrong in out, out
