"""Issue 40's call allowed only after N of one's own turns (call.min_own_turns), which no
shipped profile plays: its variants (tests/data/variants/) pass their oracle transcripts as
written, the same transcripts fail where the parameter is left at its default, and the
engine's count of a seat's own turns agrees with the first-round lock it generalises."""

from __future__ import annotations

from pathlib import Path

import pytest

from jhyap_core.profile import resolve
from reference_engine import calling
from reference_engine.rules import FirstRoundCall, Rules
from tests.cli_helpers import run_variants
from tests.conftest import ROOT, profile_document

VARIANTS = ROOT / "tests" / "data" / "variants"
TRANSCRIPTS = VARIANTS / "call-timing-transcripts"
FILES = ("dhumbal-call-after-two-turns.yaml", "everestbuzz-call-after-one-turn.yaml")


@pytest.mark.e2e
def test_each_variant_passes_its_transcript_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run_variants(TRANSCRIPTS, [VARIANTS / name for name in FILES], capsys)
    assert status == 0
    assert out.splitlines()[-1].startswith("== 2 passed as written, 2 passed derived (4 cases)")


@pytest.mark.e2e
@pytest.mark.parametrize("name", FILES)
def test_the_transcript_fails_without_the_new_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    text = (VARIANTS / name).read_text("utf-8")
    override = "rules: {call: {min_own_turns: "
    assert override in text
    # The same id, the parameter back at its default: the first refused call is accepted.
    start = text.index(override) + len(override)
    (tmp_path / name).write_text(text[:start] + "0" + text[start + 1 :], "utf-8")
    others = [VARIANTS / n for n in FILES if n != name]
    status, out = run_variants(TRANSCRIPTS, [tmp_path / name, *others], capsys)
    assert status == 1
    assert "1 failed as written" in out.splitlines()[-1]
    assert "call_too_early" in out


def _rules(first_round: FirstRoundCall, min_own_turns: int) -> Rules:
    base = Rules.from_profile(resolve(profile_document("dhumbal")))
    return base.with_values(
        {"calling.first_round": first_round, "calling.min_own_turns": min_own_turns}
    )


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_the_first_round_lock_is_one_own_turn(players: int) -> None:
    # At the start of its turn the seat to act has had turns_taken // players turns of its
    # own, so "every player has had a turn" and "one turn of one's own" refuse the same calls.
    locked = _rules(FirstRoundCall.AFTER_EVERY_PLAYER_HAD_A_TURN, 0)
    one_turn = _rules(FirstRoundCall.ALLOWED, 1)
    both = _rules(FirstRoundCall.AFTER_EVERY_PLAYER_HAD_A_TURN, 2)
    refused = [
        [calling.call_refusal(3, taken, players, r) is not None for taken in range(3 * players)]
        for r in (locked, one_turn, both)
    ]
    assert refused[0] == refused[1] == [True] * players + [False] * 2 * players
    assert refused[2] == [True] * 2 * players + [False] * players
