"""The cases that tell the right answer from the wrong ones public engines gave (issue 37).

Their expectations were written from the rule texts; here every throw verdict, laid order
and beaten-call winner they state is checked against the independent model of tests/model/,
and each of the five bug shapes found in public engines, planted in the reference engine
(tests/mutants/planted.py), is shown caught by exactly the new cases. On main before these
cases (5319cf6) no oracle case of the planted profile failed with any of the five in.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

import pytest

from conformance.harness.cases import Case, load_selection
from conformance.harness.inprocess import ReferenceClient
from conformance.harness.replay import replay
from conformance.spec.steps import Step
from tests.model import results, turn
from tests.model.table import Table
from tests.mutants.planted import PLANTED, planted

THROW_CASES = (
    "family-run-off-suit-at-each-position",
    "family-run-gaps-and-rank-strings",
    "family-joker-runs-suit-gaps-and-strings",
    "family-set-laid-as-placed",
    "family-set-last-placed-pickable",
    "bga-yaniv-set-first-or-last-placed",
    "yaniv-israel-run-ends-placed-out-of-order",
)
SHOWDOWN_CASES = (
    "family-beaten-call-lowest-not-last-lower-3",
    "family-beaten-call-lowest-not-last-lower-5",
    "family-beaten-call-lowest-not-last-lower-6",
    "yaniv-israel-beaten-call-eight-seats",
    "family-equal-lowest-first-after-caller",
)

# Each shape, planted under its profile, fails exactly these cases of that profile.
CAUGHT_BY = {
    "run_ranks_found_in_a_string": {
        "family-run-gaps-and-rank-strings",
        "family-run-off-suit-at-each-position",
    },
    "run_lowest_suit_unchecked": {"family-run-off-suit-at-each-position"},
    "run_gaps_accepted": {"family-run-gaps-and-rank-strings"},
    "beaten_call_last_lower_seat_wins": {
        "family-equal-lowest-first-after-caller",
        "family-beaten-call-lowest-not-last-lower-3",
        "family-beaten-call-lowest-not-last-lower-5",
    },
    "set_laid_in_hand_order": {
        "family-run-gaps-and-rank-strings",
        "family-set-laid-as-placed",
        "family-set-last-placed-pickable",
    },
}


@cache
def _cases() -> tuple[Case, ...]:
    return tuple(c for c in load_selection().cases if c.resolved is not None)


def _cases_of(transcripts: tuple[str, ...]) -> list[Case]:
    found = [c for c in _cases() if c.transcript.id in transcripts]
    assert {c.transcript.id for c in found} == set(transcripts)
    return found


def _table(case: Case) -> Table:
    assert case.resolved is not None
    return Table.of(case.resolved["rules"])


def _throws(steps: tuple[Step, ...]) -> Iterator[tuple[list[str], Step]]:
    for step in steps:
        action = (step.request or {}).get("action") if step.kind == "act" else None
        if isinstance(action, Mapping) and action.get("type") == "throw":
            yield list(action["cards"]), step
        elif step.kind == "check" and "pickable" in (step.check or {}):
            yield [], step


def _thrown(step: Step) -> Mapping[str, Any] | None:
    events = step.expect.events or ()
    return next((e for e in events if e.get("type") == "thrown"), None)


def test_every_throw_verdict_agrees_with_the_model() -> None:
    """Each throw's verdict, kind and laid order, and each offer's pickable cards."""
    verdicts = 0
    for case in _cases_of(THROW_CASES):
        t = _table(case)
        laid: str | None = None
        for cards, step in _throws(case.transcript.steps):
            if step.check is not None:
                check = step.check
                assert turn.pickable(check["offer"], laid, t) == check["pickable"], case.profile
                verdicts += 1
                continue
            kind = turn.throw_kind(cards, t)
            where = (case.transcript.id, case.profile, cards)
            if step.expect.error == "illegal_throw":
                assert kind is None, where
            else:
                assert step.expect.error is None, where
                assert kind is not None, where
                thrown = _thrown(step)
                laid = kind
                if thrown is not None:
                    assert thrown["kind"] == kind, where
                    assert thrown["cards"] == turn.laid(cards, t), where
            verdicts += 1
    assert verdicts == 282


def _ended(case: Case) -> Mapping[str, Any]:
    for step in case.transcript.steps:
        for event in step.expect.events or ():
            if event.get("type") == "round_ended":
                return event
    raise AssertionError(case.transcript.id)


def test_every_beaten_call_winner_agrees_with_the_model() -> None:
    winners = []
    for case in _cases_of(SHOWDOWN_CASES):
        ended = _ended(case)
        values = dict(enumerate(ended["hand_values"]))
        caller, seats = ended["caller"], case.transcript.seats
        after = [(caller + step) % seats for step in range(1, seats)]
        shown = results.showdown(values, after, caller, _table(case))
        assert (shown.outcome, shown.winner) == (ended["outcome"], ended["winner"]), case.profile
        winners.append(shown.winner)
    assert sorted(winners) == [1] * 7 + [2] * 11 + [4] * 7


def test_every_round_total_and_elimination_agrees_with_the_model() -> None:
    """Each hand of the boundary cases: deltas, totals and who goes out, as the model says."""
    checked = 0
    for case in _cases_of(("family-out-above-100-boundary", "yaniv-israel-out-above-200-boundary")):
        t = _table(case)
        scores, active = [0, 0, 0], [0, 1, 2]
        for step in case.transcript.steps:
            for event in step.expect.events or ():
                if event.get("type") != "round_ended":
                    continue
                values = dict(enumerate(event["hand_values"]))
                caller = event["caller"]
                after = [(caller + i) % 3 for i in (1, 2)]
                shown = results.showdown(values, after, caller, t)
                deltas = [shown.deltas[s] for s in range(3)]
                scores = [
                    results.after_cuts(total + d, t) if d else total
                    for total, d in zip(scores, deltas, strict=True)
                ]
                out = results.eliminated(scores, active, t)
                active = [s for s in active if s not in out]
                assert (deltas, scores, out) == (
                    event["deltas"],
                    event["scores"],
                    event["eliminated"],
                ), case.profile
                checked += 1
    assert checked == 14


def _failing(profile: str) -> set[str]:
    failed = set()
    for case in _cases():
        if case.profile != profile or case.transcript.kind != "oracle":
            continue
        assert case.resolved is not None
        client = ReferenceClient()
        outcome = replay(
            client, client.handshake(), case.transcript, profile, case.resolved, owned=case.owned
        )
        if not outcome.ok:
            failed.add(case.transcript.id)
    return failed


@pytest.mark.parametrize("shape", sorted(CAUGHT_BY))
def test_each_bug_shape_is_caught_by_the_new_cases(shape: str) -> None:
    profile = PLANTED[shape].profile
    assert _failing(profile) == set()
    with planted(shape):
        assert _failing(profile) == CAUGHT_BY[shape]
