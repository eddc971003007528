"""scoring.multiples_for (issue 40: drops that apply only to some seats): under own_hand a
drop or halving at a multiple applies only to a seat whose own hand added points; the variant
passes its oracle transcript as written, and the same transcript fails under any_score."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.spec.profiles import load_profile
from jhyap_core.profile import resolve
from reference_engine import scoring
from reference_engine.rules import MultiplesFor, Rules
from tests.cli_helpers import run_variant_switched, run_variants
from tests.conftest import ROOT

VARIANTS = ROOT / "tests" / "data" / "variants"
VARIANT = VARIANTS / "yaniv-israel-drop-50-own-hand.yaml"
TRANSCRIPTS = VARIANTS / "multiples-transcripts"


def _rules(**changes: object) -> Rules:
    document = resolve(load_profile("yaniv-israel"))
    document["rules"]["scoring"].update(changes)
    return Rules.from_profile(document)


@pytest.mark.parametrize(
    ("beaten_call", "values", "seat", "added"),
    [
        # A beaten caller (seat 0; seat 1 wins) under penalty_only: its hand never counts.
        ("penalty_only", {0: 7, 1: 6}, 0, False),
        # Under the hand plus the penalty its hand counts, unless it is worth 0.
        ("caller_hand_plus_penalty", {0: 7, 1: 6}, 0, True),
        ("caller_hand_plus_penalty", {0: 0, 1: 0}, 0, False),
        # Another seat scoring its own hand.
        ("penalty_only", {0: 7, 1: 6, 2: 12}, 2, True),
    ],
)
def test_whose_own_hand_added_points(
    beaten_call: str, values: dict[int, int], seat: int, added: bool
) -> None:
    rules = _rules(beaten_call=beaten_call)
    assert scoring.hand_added(seat, values, 0, 1, rules) is added


def test_only_a_seat_whose_hand_added_points_drops_at_a_multiple() -> None:
    own = _rules(beaten_call="penalty_only", drop_at_multiples_of=50, multiples_for="own_hand")
    anyone = own.with_values({"scoring.multiples_for": MultiplesFor.ANY_SCORE})
    assert [scoring.cut_score(50, scoring.cut_rules(a, own)) for a in (True, False)] == [0, 50]
    assert [scoring.cut_score(50, scoring.cut_rules(a, anyone)) for a in (True, False)] == [0, 0]
    # An exact cut applies whoever scored (yaniv-israel's 200 to 150).
    assert scoring.cut_score(200, scoring.cut_rules(False, own)) == 150


@pytest.mark.e2e
def test_the_variant_passes_its_transcript_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run_variants(TRANSCRIPTS, [VARIANT], capsys)
    assert status == 0, out
    assert out.splitlines()[-1].startswith("== 1 passed (1 case)")


@pytest.mark.e2e
def test_the_transcript_fails_where_any_score_drops(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run_variant_switched(
        TRANSCRIPTS,
        VARIANT,
        "multiples_for: own_hand",
        "multiples_for: any_score",
        tmp_path,
        capsys,
    )
    assert status == 1
    assert "events[1].scores: expected [50, 0], got [0, 0] (step 10: seat 0 calls)" in out, out
