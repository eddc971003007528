"""Issue 40's beaten caller paying a multiple of their hand (scoring.beaten_call
caller_hand_times, scoring.beaten_factor) or the penalty without their hand (penalty_only):
each variant passes its oracle transcript as written, and the same transcript fails where
the caller scores their hand plus the penalty (the shipped profile's caller_hand_plus_penalty)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.spec import combinations
from conformance.spec.profiles import load_profile
from jhyap_core.profile import resolve
from reference_engine import scoring
from reference_engine.rules import BeatenCall, Rules
from tests.cli_helpers import run_variant_switched, run_variants
from tests.conftest import ROOT

VARIANTS = ROOT / "tests" / "data" / "variants"
TRANSCRIPTS = VARIANTS / "beaten-call-transcripts"
DOUBLED = VARIANTS / "yaniv-israel-asaf-hand-doubled.yaml"
FIXED = VARIANTS / "yaniv-israel-asaf-fixed-30.yaml"


def _rules(**changes: object) -> Rules:
    document = resolve(load_profile("yaniv-israel"))
    document["rules"]["scoring"].update(changes)
    return Rules.from_profile(document)


@pytest.mark.parametrize(
    ("changes", "caller_scores"),
    [
        ({}, 7 + 30),
        ({"beaten_call": "caller_hand_times", "beaten_penalty": 0}, 14),
        ({"beaten_call": "caller_hand_times", "beaten_penalty": 0, "beaten_factor": 3}, 21),
        ({"beaten_call": "penalty_only"}, 30),
    ],
)
def test_what_a_beaten_caller_scores(changes: dict[str, object], caller_scores: int) -> None:
    rules = _rules(**changes)
    shown = scoring.showdown({0: 7, 1: 6, 2: 47}, [1, 2, 0], 0, rules)
    assert dict(shown.deltas) == {0: caller_scores, 1: 0, 2: 47}


def test_a_factor_with_another_beaten_call_is_refused_by_validate() -> None:
    rules = resolve(load_profile("yaniv-israel"))["rules"]
    rules["scoring"]["beaten_factor"] = 3
    assert combinations.rule_problems(rules) == [
        (
            ("rules", "scoring", "beaten_factor"),
            "scoring.beaten_factor is read only with scoring.beaten_call caller_hand_times: "
            "leave it out (2) under any other beaten_call",
        )
    ]
    rules["scoring"].update(beaten_call="caller_hand_times", beaten_penalty=0)
    assert combinations.rule_problems(rules) == []
    # The engine plays it as written (only validate refuses it): the factor unread.
    assert _rules(beaten_factor=3).scoring.beaten_call is BeatenCall.CALLER_HAND_PLUS_PENALTY


@pytest.mark.e2e
def test_each_variant_passes_its_transcript_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run_variants(TRANSCRIPTS, [DOUBLED, FIXED], capsys)
    assert status == 0, out
    assert out.splitlines()[-1].startswith("== 2 passed as written, 2 passed derived (4 cases)")


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("variant", "stated", "default", "wrong"),
    [
        (
            DOUBLED,
            "rules: {scoring: {beaten_call: caller_hand_times, beaten_penalty: 0, "
            "beaten_factor: 2}}",
            "rules: {scoring: {beaten_call: caller_hand_plus_penalty, beaten_penalty: 0}}",
            "deltas: expected [14, 0, 47], got [7, 0, 47]",
        ),
        (
            FIXED,
            "rules: {scoring: {beaten_call: penalty_only}}",
            "rules: {scoring: {beaten_call: caller_hand_plus_penalty}}",
            "deltas: expected [30, 0, 47], got [37, 0, 47]",
        ),
    ],
)
def test_the_transcript_fails_where_the_caller_scores_hand_plus_penalty(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    variant: Path,
    stated: str,
    default: str,
    wrong: str,
) -> None:
    other = FIXED if variant == DOUBLED else DOUBLED
    status, out = run_variant_switched(
        TRANSCRIPTS, variant, stated, default, tmp_path, capsys, [other]
    )
    assert status == 1
    assert "1 failed as written" in out.splitlines()[-1], out
    assert wrong in out, out
