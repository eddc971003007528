"""Derived cases under a ruleset that seats the transcript otherwise: re-seated, judged to
their end (conformance.harness.derive); and which refusals make a derived case not
applicable (a setup's) or judge it (a rule's: conformance.harness.outcome.Refusal).

Everything here replays on the reference engine in this process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conformance.harness.cases import setup_refusal, unplayable_reason
from conformance.harness.derive import Mode, first_starter_shift, moved_round, reseated
from conformance.harness.outcome import CaseStatus, Judged, Refusal, refusal_of
from conformance.harness.replay import expected_moves
from conformance.harness.runner import RunConfig, build_cases
from conformance.spec.transcript import load_corpus, load_transcript, rebuild
from conformance.spec.transcript_profiles import shipped_documents, with_profile_files
from tests.cli_helpers import run_reference_in_process
from tests.conftest import ROOT

CORPUS = ROOT / "conformance" / "transcripts"
VARIANTS = ROOT / "tests" / "data" / "variants"
SEAT_ONE_STARTS = VARIANTS / "dashain-first-starter-1.yaml"
RUNS_AT_MOST_FOUR = VARIANTS / "dhumbal-runs-at-most-four.yaml"

# Written for dhumbal: its first move is a run of five, which dhumbal allows.
RUN_OF_FIVE_FIRST = """\
id: run-of-five-first
title: A run of five clubs is the first move
description: Seat 0 throws the run 3c-7c, then draws from the deck.
kind: oracle
profiles: [dhumbal]
seats: 2
clauses: [dhumbal.throws.run]
steps:
  - deal:
      starter: 0
      hands: {0: [3c, 4c, 5c, 6c, 7c], 1: [Kd, Qd, Jd, 9h, 8h]}
      turned_up: Ah
  - act: {seat: 0, throw: [3c, 4c, 5c, 6c, 7c]}
    expect: {events: [{type: thrown, seat: 0, cards: [3c, 4c, 5c, 6c, 7c], kind: run}]}
  - act: {seat: 0, pick: deck}
"""


def cases_under(profile: Path, *ids: str, root: Path | None = None) -> list[Any]:
    documents, (pid,) = with_profile_files(shipped_documents(), [str(profile)])
    transcripts, problems = load_corpus(root, documents)
    assert problems == []
    chosen = [t for t in transcripts if t.id in ids]
    assert sorted(t.id for t in chosen) == sorted(ids)
    return build_cases(chosen, documents, [pid])


def run_of_five(tmp_path: Path) -> Path:
    (tmp_path / "run-of-five-first.yaml").write_text(RUN_OF_FIVE_FIRST, "utf-8")
    return tmp_path


def test_every_seat_an_event_names_moves_round() -> None:
    events = [
        {
            "type": "round_started",
            "round": 1,
            "dealer": 3,
            "starter": 0,
            "turn_order": [0, 1, 2, 3],
        },
        {"type": "dealt", "hands": [["Ac"], ["2c"], ["3c"], ["4c"]], "turned_up": "5c"},
        {"type": "picked", "seat": 3, "from": "deck", "card": "6c"},
        {
            "type": "round_ended",
            "caller": 2,
            "winner": 3,
            "deltas": [1, 2, 3, 4],
            "eliminated": [3],
        },
        {
            "type": "game_ended",
            "winners": [3, 0],
            "standings": [3, 0, 2, 1],
            "scores": [5, 6, 7, 8],
        },
        {"settlement": [{"from": 2, "to": 3, "points": 4, "dollars": "0.20"}]},
        {"scores": {"0": 10, "3": 40}, "to_act": None},
    ]
    assert moved_round(events, 1, 4) == [
        {
            "type": "round_started",
            "round": 1,
            "dealer": 0,
            "starter": 1,
            "turn_order": [1, 2, 3, 0],
        },
        {"type": "dealt", "hands": [["4c"], ["Ac"], ["2c"], ["3c"]], "turned_up": "5c"},
        {"type": "picked", "seat": 0, "from": "deck", "card": "6c"},
        {
            "type": "round_ended",
            "caller": 3,
            "winner": 0,
            "deltas": [4, 1, 2, 3],
            "eliminated": [0],
        },
        {
            "type": "game_ended",
            "winners": [0, 1],
            "standings": [0, 1, 3, 2],
            "scores": [8, 5, 6, 7],
        },
        {"settlement": [{"from": 3, "to": 0, "points": 4, "dollars": "0.20"}]},
        {"scores": {"1": 10, "0": 40}, "to_act": None},
    ]


def test_a_transcript_re_seated_gives_each_move_to_the_next_seat() -> None:
    written = load_transcript(CORPUS / "alankar-dhumbal-card-pick-rule.yaml", shipped_documents())
    moved = reseated(written, 1)
    deal = moved.steps[0]
    assert deal.starter == 1
    assert deal.deal is not None
    assert deal.deal["hands"] == {
        "1": ["Kc", "2c", "3c", "4d", "5d"],
        "0": ["Qc", "Qd", "2h", "3h", "4h"],
    }
    # The same cards in the same order: the deal starts at seat 1 now.
    assert deal.request is not None and written.steps[0].request is not None
    assert deal.request["deck"] == written.steps[0].request["deck"]
    assert [(s.request or {}).get("seat") for s in moved.steps[1:]] == [1, 1, 1, 0, 0]
    assert moved.steps[-1].expect.events == (
        {"type": "picked", "seat": 0, "from": "offer", "card": "Kc"},
    )
    assert [s.line for s in moved.steps] == [s.line for s in written.steps]


def test_only_the_first_starter_moves_the_seats() -> None:
    written = load_transcript(CORPUS / "alankar-dhumbal-card-pick-rule.yaml", shipped_documents())
    rules: dict[str, Any] = {"deal": {"first_starter": 1}}
    assert first_starter_shift(written, rules, None) == 1
    assert first_starter_shift(written, {"deal": {"first_starter": 2}}, None) == 0  # 2 seats
    assert first_starter_shift(written, {"deal": {"first_starter": 0}}, None) == 0


def test_under_a_ruleset_starting_at_seat_one_a_case_is_re_seated_and_judged_whole() -> None:
    # Six seats, three hands, a reshuffle, the settlement: Dashain's own game, its first
    # hand started by seat 1. Its own expectations, every seat moved one on, hold.
    (case,) = cases_under(SEAT_ONE_STARTS, "dashain-complete-game")
    assert case.mode is Mode.RESEATED
    assert case.note == (
        "re-seated: the ruleset's first hand starts at seat 1, the transcript's at seat 0: "
        "each seat s of the transcript plays as seat (s + 1) mod 6: the transcript's own "
        "expectations"
    )
    assert case.transcript.steps[0].starter == 1
    (outcome,) = run_reference_in_process([case], RunConfig(engine="in-process")).outcomes
    assert (outcome.status, outcome.mode) == (CaseStatus.PASSED, "reseated")
    # Every move the transcript expects accepted, by the seat it falls to.
    assert outcome.judged.moves == len(expected_moves(case.transcript)) == 71
    # And its 3 deals, reshuffle, 2 option changes and end of the game; its 5 refusals
    # (a call too early, one over the limit, 3 requests while the deck awaits its order)
    # and 13 checks of the state.
    assert outcome.judged == Judged(accepted=78, moves=71, refusals=5, states=13)


def test_a_re_seated_case_whose_expectations_differ_is_derived_from_the_moved_seats() -> None:
    # The Card Pick Rule is no option of Dashain: the transcript's expectations do not hold,
    # the reference engine's answers are taken, the seats moved first. Dashain lets seat 1
    # take the turned-up card the transcript expects refused; its draw that follows is
    # then refused: the turn has passed. Two moves judged, and that refusal.
    (case,) = cases_under(SEAT_ONE_STARTS, "alankar-dhumbal-card-pick-rule")
    assert case.mode is Mode.RESEATED
    assert case.note == (
        "re-seated: the ruleset's first hand starts at seat 1, the transcript's at seat 0: "
        "each seat s of the transcript plays as seat (s + 1) mod 2; option card_pick_rule = "
        "true left out (unknown option 'card_pick_rule'; this profile's options: "
        "dollars_per_point, call_limit, first_round_jhyap, turn_timer)"
    )
    steps = case.transcript.steps
    assert [((s.request or {}).get("seat"), s.expect.error) for s in steps[1:]] == [
        (1, None),
        (1, None),
        (1, "not_your_turn"),
    ]
    (outcome,) = run_reference_in_process([case], RunConfig(engine="in-process")).outcomes
    assert (outcome.status, outcome.mode) == (CaseStatus.PASSED, "reseated")
    assert outcome.judged == Judged(accepted=3, moves=2, refusals=1, states=0)


def test_refusals_are_the_setups_or_a_rules() -> None:
    setup = ["not_your_turn", "invalid_seat", "invalid_seats", "unknown_option"]
    setup += ["invalid_option_value", "unsupported_option", "timer_off"]
    assert [refusal_of(code) for code in setup] == [Refusal.SETUP] * len(setup)
    rule = ["illegal_throw", "call_over_limit", "call_too_early", "pick_not_allowed"]
    rule += ["card_not_on_offer", "wrong_phase", "option_locked", "game_not_endable"]
    assert [refusal_of(code) for code in rule] == [Refusal.RULE] * len(rule)


def test_a_derived_case_ending_at_a_rules_refusal_judges_it(tmp_path: Path) -> None:
    # Runs of four at most: the transcript's first move, a run of five, is refused
    # illegal_throw. That is the rule the ruleset changes, judged: never not applicable,
    # never empty.
    (case,) = cases_under(RUNS_AT_MOST_FOUR, "run-of-five-first", root=run_of_five(tmp_path))
    assert case.mode is Mode.DERIVED
    assert [s.expect.error for s in case.transcript.steps] == [None, "illegal_throw"]
    (outcome,) = run_reference_in_process([case], RunConfig(engine="in-process")).outcomes
    assert outcome.status == CaseStatus.PASSED
    assert outcome.judged == Judged(accepted=1, moves=0, refusals=1, states=0)


def test_a_derived_case_ending_at_a_setup_refusal_cannot_be_played(tmp_path: Path) -> None:
    documents = shipped_documents()
    written = load_transcript(run_of_five(tmp_path) / "run-of-five-first.yaml", documents)
    moves = expected_moves(written)
    assert moves == (13, 15)

    def ending_at(code: str) -> Any:
        steps = list(written.raw["steps"][:2])
        steps[1] = {"act": steps[1]["act"], "expect": {"error": code}}
        return rebuild(written, {**written.raw, "steps": steps}, [8, 13])

    refused = ending_at("not_your_turn")
    assert setup_refusal(refused, moves) is refused.steps[1]
    assert unplayable_reason(refused, moves, "why") == (
        "this ruleset cannot set up the transcript's moves: seat 0 throws 3c 4c 5c 6c 7c "
        "(expects not_your_turn) at line 13 (why)"
    )
    assert setup_refusal(ending_at("illegal_throw"), moves) is None
    assert unplayable_reason(ending_at("illegal_throw"), moves, "why") is None
    assert unplayable_reason(written, moves, "") is None


def test_a_timeout_under_a_ruleset_without_a_timer_is_not_applicable() -> None:
    root = ROOT / "tests" / "data" / "transcripts"
    (case,) = build_cases(
        [t for t in load_corpus(root, shipped_documents())[0] if t.id == "harness-timeout"],
        shipped_documents(),
        ["dhumbal"],
    )
    assert case.mode is Mode.NOT_APPLICABLE
    assert case.note == (
        "this ruleset cannot set up the transcript's moves: seat 0 times out (expects "
        "timer_off) at line 17 (option turn_timer = 30 left out (unknown option "
        "'turn_timer'; this profile's options: call_limit, pickup_after_multi_throw))"
    )
