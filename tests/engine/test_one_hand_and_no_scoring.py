"""game_end.kind one_hand and scoring.kind none (issue 28): a one-hand game, and a game with
no scoring whose result is the winner and the hand values; their oracles pass and have teeth."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cli import main
from conformance.spec.profiles import load_profile
from reference_engine import JhyapError
from reference_engine.game_end import hand_standings, hand_winners
from reference_engine.rules import Rules

VARIANTS = Path(__file__).resolve().parents[1] / "data" / "variants"
ORACLES = VARIANTS / "dimension-transcripts"
ONE_HAND = {
    # variant id: its rules line, and the line with the dimension set back to dhumbal's
    "dhumbal-one-hand-no-scoring": (
        "{scoring: {kind: none}, game_end: {kind: one_hand, out_above: null}}",
        "{scoring: {kind: penalty}, game_end: {kind: elimination, out_above: 100}}",
    ),
    "dhumbal-one-hand": (
        "{game_end: {kind: one_hand, out_above: null}}",
        "{game_end: {kind: elimination, out_above: 100}}",
    ),
}


@pytest.mark.e2e
def test_the_one_hand_oracles_pass(capsys: pytest.CaptureFixture[str]) -> None:
    files = ",".join(str(VARIANTS / f"{name}.yaml") for name in ONE_HAND)
    status = main(
        ["run", "-q", "--profile", files, "--transcripts", str(ORACLES), "-k", "one-hand"]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    assert "== 3 passed as written, 3 passed derived (6 cases)" in out


@pytest.mark.parametrize("name", sorted(ONE_HAND))
@pytest.mark.e2e
def test_each_one_hand_oracle_fails_without_its_rule(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stated, default = ONE_HAND[name]
    text = (VARIANTS / f"{name}.yaml").read_text("utf-8")
    assert f"rules: {stated}" in text
    broken = tmp_path / f"{name}.yaml"
    broken.write_text(text.replace(stated, default), "utf-8")
    # The transcripts written for this variant: two for no scoring, one for one hand.
    pick = {"dhumbal-one-hand-no-scoring": "no-scoring", "dhumbal-one-hand": "one-hand-beaten"}
    status = main(
        ["run", "-q", "--profile", str(broken), "--transcripts", str(ORACLES), "-k", pick[name]]
    )
    out = capsys.readouterr().out
    assert status == 1, out
    written = {"dhumbal-one-hand-no-scoring": 2, "dhumbal-one-hand": 1}[name]
    assert f"== {written} failed ({written} case" in out


def test_a_hand_without_a_call_is_won_by_every_lowest_hand() -> None:
    last = {"winner": None, "hand_values": [12, 7, None, 7]}  # seat 2 is out
    assert hand_winners(last) == [1, 3]
    assert hand_standings(last) == [1, 3, 0, 2]
    assert hand_standings({"winner": 2, "hand_values": [10, 39, 9]}) == [2, 0, 1]


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        (
            {"scoring": {"kind": "none"}},  # an elimination game with no totals
            "rules.game_end.kind: scoring.kind none goes with game_end.kind one_hand only: "
            "with no totals kept, nothing decides a game of several hands",
        ),
        (
            {"scoring": {"kind": "none", "cuts": [{"at": 50, "to": 0}]}, "game_end": "one"},
            "rules.scoring.cuts: scoring.cuts needs scoring.kind penalty, not none",
        ),
    ],
)
def test_the_engine_refuses_no_scoring_outside_a_one_hand_game(
    rules: dict[str, object], message: str
) -> None:
    # The engine's words are jhyap validate's (reference_engine/parameters.py CONSTRAINTS).
    document = load_profile("dhumbal")
    document["rules"]["scoring"].update(rules["scoring"])
    if "game_end" in rules:
        document["rules"]["game_end"] = {"kind": "one_hand", "rounds": None, "out_above": None}
    with pytest.raises(JhyapError) as refused:
        Rules.from_profile(document)
    assert refused.value.message == message


def test_validate_refuses_no_scoring_outside_a_one_hand_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.yaml"
    text = (VARIANTS / "dhumbal-one-hand-no-scoring.yaml").read_text("utf-8")
    broken.write_text(text.replace("kind: one_hand, out_above: null", "kind: elimination"), "utf-8")
    assert main(["validate", str(broken)]) == 1
    captured = capsys.readouterr()
    assert "scoring.kind none goes with game_end.kind one_hand only" in captured.out + captured.err
