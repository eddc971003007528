"""Issue 40's several winners scoring 0 (scoring.beaten_others score_own_hands_but_lowest):
after a beaten call every other seat whose hand equals the lowest scores nothing, while the
one showdown.winner_among_lowest names stays the round's winner; the variant passes its
oracle transcript as written, and the same transcript fails where only the named winner is
spared (the shipped profile's score_own_hands)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.spec.profiles import load_profile
from jhyap_core.profile import resolve
from reference_engine import scoring
from reference_engine.rules import Rules
from tests.cli_helpers import run_variants
from tests.conftest import ROOT

VARIANTS = ROOT / "tests" / "data" / "variants"
TRANSCRIPTS = VARIANTS / "tied-lowest-transcripts"
VARIANT = VARIANTS / "yaniv-israel-tied-lowest-score-nothing.yaml"


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


def _run(profile: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    return run_variants(TRANSCRIPTS, [profile], capsys)


@pytest.mark.e2e
def test_the_variant_passes_its_transcript_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = _run(VARIANT, capsys)
    assert status == 0, out
    assert out.splitlines()[-1].startswith("== 1 passed (1 case)"), out


@pytest.mark.e2e
def test_the_transcript_fails_where_only_the_named_winner_is_spared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = VARIANT.read_text("utf-8")
    stated = "rules: {scoring: {beaten_others: score_own_hands_but_lowest}}"
    assert stated in text
    changed = tmp_path / VARIANT.name
    changed.write_text(text.replace(stated, "rules: {scoring: {beaten_others: score_own_hands}}"))
    status, out = _run(changed, capsys)
    assert status == 1
    assert out.splitlines()[-1].startswith("== 1 failed (1 case)"), out
    assert "deltas: expected [37, 0, 47, 0], got [37, 0, 47, 5]" in out, out
