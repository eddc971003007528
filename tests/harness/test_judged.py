"""What each case judged (Outcome.judged), and why a case that judged nothing never passes.

The fast tests replay on the reference engine in this process (conformance.harness.inprocess);
the one marked e2e runs a fake engine process (tests/fake_engines/never_your_turn.py).
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.harness.cases import unplayable_reason
from conformance.harness.derive import Mode
from conformance.harness.inprocess import ReferenceClient
from conformance.harness.outcome import CaseStatus, Judged, total_judged
from conformance.harness.replay import expected_moves, replay
from conformance.harness.runner import RunConfig, build_cases, exit_status
from conformance.spec.transcript import load_corpus, load_transcript, rebuild
from conformance.spec.transcript_profiles import shipped_documents, with_profile_files
from jhyap_core.profile import resolve
from tests.cli_helpers import run_reference_in_process
from tests.conftest import ROOT

CORPUS = ROOT / "conformance" / "transcripts"
NO_JOKER_SETS = CORPUS / "bga-yaniv-no-joker-sets.yaml"
SEAT_ONE_STARTS = ROOT / "tests" / "data" / "variants" / "dashain-first-starter-1.yaml"
NEVER_YOUR_TURN = ROOT / "tests" / "fake_engines" / "never_your_turn.py"


class NeverYourTurn(ReferenceClient):
    """The reference engine in this process, refusing every move with not_your_turn."""

    CODE = "not_your_turn"

    def send(self, message: Mapping[str, Any], *, timeout: float | None = None) -> dict[str, Any]:
        if message.get("cmd") != "act":
            return super().send(message)
        seq = self.next_seq
        self._seq += 1
        error = {"code": self.CODE, "message": "it is never your turn"}
        return {"seq": seq, "ok": False, "error": error}


class NeverLegal(NeverYourTurn):
    """The reference engine in this process, refusing every move with illegal_throw."""

    CODE = "illegal_throw"


def replayed(path: Path, client: ReferenceClient | None = None) -> Any:
    """The outcome of the transcript at ``path`` under its first profile, in this process."""
    documents = shipped_documents()
    transcript = load_transcript(path, documents)
    profile = transcript.profiles[0]
    client = client if client is not None else ReferenceClient()
    resolved = resolve(documents[profile], transcript.options)
    return replay(client, client.handshake(), transcript, profile, resolved)


def test_the_reference_judges_each_step_of_a_known_transcript() -> None:
    outcome = replayed(NO_JOKER_SETS)
    assert outcome.status == CaseStatus.PASSED
    # A deal and five moves accepted, two throws refused, one legal answer.
    assert outcome.judged == Judged(accepted=6, moves=5, refusals=2, states=1)


def test_a_failed_case_counts_what_it_judged_up_to_its_failing_step() -> None:
    outcome = replayed(NO_JOKER_SETS, NeverYourTurn())
    assert outcome.status == CaseStatus.FAILED
    assert outcome.step == 3  # the first refusal expected is illegal_throw, not not_your_turn
    assert outcome.judged == Judged(accepted=1, moves=0, refusals=1, states=1)


def test_judged_counts_add_up_and_say_themselves() -> None:
    one = Judged(accepted=1, moves=1, refusals=2, states=3)
    assert one + Judged(accepted=1233, moves=986, refusals=208, states=887) == Judged(
        1234, 987, 210, 890
    )
    assert (one + one).words() == "judged 2 accepted actions (2 moves), 4 refusals, 6 states"
    assert Judged(1234, 987, 1, 0).words() == (
        "judged 1,234 accepted actions (987 moves), 1 refusal, 0 states"
    )
    assert Judged().nothing and not Judged(states=1).nothing


def test_a_legal_difference_names_the_throws_missing_and_extra(tmp_path: Path) -> None:
    text = NO_JOKER_SETS.read_text("utf-8")
    written = "[4h, 6h, X], [4h, X, X], [6h, X, X], [9c, X, X], [4h, 6h, X, X]]"
    assert written in text
    # The transcript now expects the pair of jokers the rules refuse, and lacks 9c X X.
    path = tmp_path / NO_JOKER_SETS.name
    path.write_text(
        text.replace(written, "[X, X], [4h, 6h, X], [4h, X, X], [6h, X, X], [4h, 6h, X, X]]"),
        "utf-8",
    )
    outcome = replayed(path)
    assert outcome.status == CaseStatus.FAILED
    assert outcome.differences == ("throws: missing [X X]; extra [9c X X]",)
    assert outcome.judged == Judged(accepted=1, moves=0, refusals=0, states=1)


def test_the_same_throws_in_another_order_are_said_as_such(tmp_path: Path) -> None:
    text = NO_JOKER_SETS.read_text("utf-8")
    written = "throws: [[4h], [6h], [9c], [X],"
    path = tmp_path / NO_JOKER_SETS.name
    path.write_text(text.replace(written, "throws: [[6h], [4h], [9c], [X],"), "utf-8")
    outcome = replayed(path)
    assert outcome.differences == (
        "throws: the same 9 in another order: expected [6h], [4h], [9c], [X], [4h 6h X], "
        "[4h X X], [6h X X], [9c X X], [4h 6h X X]; got [4h], [6h], [9c], [X], [4h 6h X], "
        "[4h X X], [6h X X], [9c X X], [4h 6h X X]",
    )


def seat_one_cases(*ids: str) -> list[Any]:
    documents, (pid,) = with_profile_files(shipped_documents(), [str(SEAT_ONE_STARTS)])
    transcripts, problems = load_corpus(None, documents)
    assert problems == []
    chosen = [t for t in transcripts if t.id in ids]
    assert sorted(t.id for t in chosen) == sorted(ids)
    return build_cases(chosen, documents, [pid])


def refused_from_the_first(code: str) -> Any:
    """alankar-dhumbal-card-pick-rule under the seat-one ruleset, derived as if its seats
    were not moved round: its first move refused with ``code``, nothing after it."""
    (case,) = seat_one_cases("alankar-dhumbal-card-pick-rule")
    written = load_transcript(CORPUS / "alankar-dhumbal-card-pick-rule.yaml", shipped_documents())
    assert written.steps[0].request is not None
    deal = {"deal": {"order": written.steps[0].request["deck"]}}  # as a derived deal is
    steps = [deal, {**written.raw["steps"][1], "expect": {"error": code}}]
    derived = rebuild(written, {**written.raw, "steps": steps}, [13, 19])
    moves = expected_moves(written)
    return replace(case, transcript=derived, mode=Mode.DERIVED, moves=moves), moves


def test_a_derived_case_whose_every_expected_move_is_refused_is_not_applicable() -> None:
    # The transcript's first move (by seat 0) refused not_your_turn: the derived case
    # would judge none of its moves, for want of a seat the ruleset gives it. (The
    # ruleset's cases are re-seated, tests/harness/test_reseat.py: this one is made.)
    case, moves = refused_from_the_first("not_your_turn")
    assert unplayable_reason(case.transcript, moves, case.note) == (
        "this ruleset cannot set up the transcript's moves: seat 0 throws Kc "
        "(expects not_your_turn) at line 19 (re-seated: the ruleset's first hand starts at "
        "seat 1, the transcript's at seat 0: each seat s of the transcript plays as seat "
        "(s + 1) mod 2; option card_pick_rule = true left out (unknown option "
        "'card_pick_rule'; this profile's options: dollars_per_point, call_limit, "
        "first_round_jhyap, turn_timer))"
    )


def test_a_case_whose_every_expected_move_is_refused_judged_nothing() -> None:
    # Replayed all the same (as a case built another way could be), it is empty, never passed.
    case, moves = refused_from_the_first("not_your_turn")
    assert len(moves) == 4
    config = RunConfig(engine="in-process", jobs=1)
    (outcome,) = run_reference_in_process([case], config).outcomes
    assert outcome.status == CaseStatus.EMPTY
    assert not outcome.ok
    assert exit_status([outcome]) == 1
    assert outcome.judged == Judged(accepted=1, moves=0, refusals=1, states=0)
    assert (outcome.step, outcome.line) == (2, 19)
    assert outcome.reason == (
        "judged no accepted move: the transcript expects 4 accepted moves; the case ends at "
        "step 2 (line 19): seat 0 throws Kc, refused with not_your_turn"
    )


def test_a_case_whose_first_move_a_rule_refuses_judged_that_rule() -> None:
    # The same first move refused by a rule, as an engine whose throws forbid a single
    # king refuses it: the refusal compared is what the case judges, not empty.
    case, _ = refused_from_the_first("illegal_throw")
    assert unplayable_reason(case.transcript, case.moves, "") is None
    documents, _ = with_profile_files(shipped_documents(), [str(SEAT_ONE_STARTS)])
    client = NeverLegal()
    outcome = replay(
        client,
        client.handshake(),
        case.transcript,
        case.profile,
        resolve(documents[case.profile], {}),
        moves=case.moves,
    )
    assert outcome.status == CaseStatus.PASSED
    assert outcome.judged == Judged(accepted=1, moves=0, refusals=1, states=0)


def test_a_transcript_made_of_refusals_still_passes_when_it_judged_them() -> None:
    # A table the rules refuse: the start's refusal is what it judges.
    (case,) = seat_one_cases("dashain-table-of-seven-refused")
    (outcome,) = run_reference_in_process([case], RunConfig(engine="in-process")).outcomes
    assert outcome.status == CaseStatus.PASSED
    assert outcome.judged == Judged(accepted=0, moves=0, refusals=1, states=0)


def test_a_case_that_compared_nothing_at_all_is_empty() -> None:
    # dhumbal seats six: the transcript's refused table of six is accepted, and the derived
    # case, its start no longer refused, has no step left to judge.
    documents = shipped_documents()
    (transcript,) = [
        t for t in load_corpus(None, documents)[0] if t.id == "everestbuzz-table-of-six-refused"
    ]
    (na,) = build_cases([transcript], documents, ["dhumbal"])
    assert na.mode is Mode.NOT_APPLICABLE
    assert na.note == (
        "this ruleset refuses none of what the transcript expects refused: nothing is left "
        "to judge (the reference engine "
        "leaves the transcript at the start: expected start to be refused with invalid_seats, "
        "the engine accepted it)"
    )
    case = replace(na, mode=Mode.DERIVED)
    (outcome,) = run_reference_in_process([case], RunConfig(engine="in-process")).outcomes
    assert outcome.status == CaseStatus.EMPTY
    assert outcome.judged == Judged()
    assert outcome.reason == "judged nothing: no accepted action, refusal or state was compared"
    assert total_judged([outcome, outcome]) == Judged()


@pytest.mark.e2e
def test_an_engine_refusing_every_move_passes_nothing_that_expects_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Under the ruleset whose first hand starts at seat 1, the cases are re-seated: each
    # expects the moves accepted, and fails on the engine's refusal.
    report = tmp_path / "report.json"
    engine = shlex.join([sys.executable, str(NEVER_YOUR_TURN)])
    status = main(
        ["run", "-q", "--engine", engine, "--profile", str(SEAT_ONE_STARTS), "--json", str(report)]
    )
    out = capsys.readouterr().out
    assert status == 1
    data = json.loads(report.read_text("utf-8"))
    assert data["summary"]["judged"]["moves"] == 0
    assert data["summary"]["empty"] == 0  # not one case judged nothing: each failed
    assert data["summary"]["passed"] > 0  # the transcripts of refusals alone, judged
    assert data["summary"]["modes"]["reseated"] > 0
    assert " accepted actions (0 moves), " in out.splitlines()[-1]
    documents, (pid,) = with_profile_files(shipped_documents(), [str(SEAT_ONE_STARTS)])
    transcripts, _ = load_corpus(None, documents)
    cases = {case.transcript.id: case for case in build_cases(transcripts, documents, [pid])}
    for result in data["results"]:
        case = cases[result["id"]]
        assert result["judged"]["moves"] == 0
        if result["outcome"] == "not_applicable":
            continue
        # A case that expects a move accepted fails; one passes only when it expects none.
        if expected_moves(case.transcript):
            assert result["outcome"] == "failed", result["id"]
        if result["outcome"] == "passed":
            assert expected_moves(case.transcript) == (), result["id"]
            assert result["judged"] != {"accepted": 0, "moves": 0, "refusals": 0, "states": 0}
    # Of transcripts that expect moves, not one passes.
    chosen = ["-k", "dashain-complete-game", "-k", "alankar-dhumbal-deal-passes-on"]
    status = main(["run", "-q", "--engine", engine, "--profile", str(SEAT_ONE_STARTS), *chosen])
    out = capsys.readouterr().out
    assert status == 1
    assert out.splitlines()[-1].startswith("== 2 failed derived (re-seated) (2 cases) in ")
    judged = " s; judged 2 accepted actions (0 moves), 2 refusals, 2 states =="
    assert out.splitlines()[-1].endswith(judged)
