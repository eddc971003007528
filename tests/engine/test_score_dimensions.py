"""The scoring and game-end dimensions of issue 28, and issue 40's points multiplier, that no
shipped profile plays: their variants (tests/data/variants/) pass their oracle transcripts as
written, and the same transcripts fail where the variant's parameter is left at its default."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_helpers import run_variant_switched, run_variants
from tests.conftest import ROOT

pytestmark = pytest.mark.e2e

VARIANTS = ROOT / "tests" / "data" / "variants"
FAMILY = VARIANTS / "family-transcripts"
FILES = (
    "bga-yaniv-lowest-seat-wins-ties.yaml",
    "yaniv-israel-drop-50-at-multiples.yaml",
    "dhumbal-points-doubled.yaml",
    "everestbuzz-points-tripled.yaml",
)


def test_each_variant_passes_its_transcript_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run_variants(FAMILY, [VARIANTS / name for name in FILES], capsys)
    assert status == 0
    assert out.splitlines()[-1].startswith(
        "== 4 passed as written, 10 passed derived, 2 not applicable (16 cases)"
    )


@pytest.mark.parametrize(
    ("name", "override", "wrong"),
    [
        (
            FILES[0],
            "rules: {showdown: {winner_among_lowest: lowest_seat}}",
            "winner: expected 0, got 2",
        ),
        (
            FILES[1],
            "rules: {scoring: {cuts: [], drop_at_multiples_of: 50}}",
            "scores: expected [0, 50], got [0, 100]",
        ),
        (
            FILES[2],
            "rules: {scoring: {points_multiplier: 2}}",
            "deltas: expected [0, 78, 72], got [0, 39, 36]",
        ),
        (
            FILES[3],
            "rules: {scoring: {points_multiplier: 3}}",
            "deltas: expected [225, -117, -108], got [75, -39, -36]",
        ),
    ],
)
def test_the_transcript_fails_without_the_new_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, override: str, wrong: str
) -> None:
    # The same id, the parameter back at its default: the transcript must now fail as written.
    default = override.replace(
        "winner_among_lowest: lowest_seat", "winner_among_lowest: first_after_caller"
    )
    default = default.replace("drop_at_multiples_of: 50", "drop_at_multiples_of: null")
    default = default.replace("points_multiplier: 2", "points_multiplier: 1")
    default = default.replace("points_multiplier: 3", "points_multiplier: 1")
    others = [VARIANTS / n for n in FILES if n != name]
    status, out = run_variant_switched(
        FAMILY, VARIANTS / name, override, default, tmp_path, capsys, others
    )
    assert status == 1
    assert "1 failed as written" in out.splitlines()[-1]
    assert wrong in out
