"""Requests sent ahead, a whole corpus run at a time: ``jhyap run --json`` at ``--window 1``
and at the default window report the same, for a faithful engine and for a planted bug
whose failing steps have acts written after them (its engine declares
``hello.supports.requests_ahead``, as both kits and the reference engine do)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.harness.replay import STDERR_LINES
from conformance.harness.settings import DEFAULT_WINDOW
from conformance.spec.transcript import load_corpus
from tests.cli_helpers import jhyap

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = shlex.join([sys.executable, "-m", "reference_engine.server"])
# A kit engine with a bug planted (bench/planted_bugs.py): runs with gaps in their ranks.
BUG = ("--serve", "python-loop", "run_with_gaps")
PLANTED = shlex.join([sys.executable, str(ROOT / "bench" / "planted_bugs.py"), *BUG])
LOOP_RULES = str(ROOT / "examples" / "python-loop" / "rules.yaml")


def _report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, window: int, *args: str
) -> tuple[Any, dict[str, list[str]]]:
    """The JSON report of ``jhyap run ARGS --window WINDOW``, what differs between two runs
        of one corpus whatever the window blanked: the times, the command, the rerun's
        ``--window``, and the seq of a failing request (it counts the requests written after
        an earlier case's failing step). A failure's standard-error tail is returned apart (by
    ``id@profile``): it is read after the requests written ahead were answered."""
    path = tmp_path / f"window-{window}.json"
    code, _, err = jhyap(capsys, "run", *args, "--window", str(window), "--json", str(path))
    assert code in (0, 1), err
    report = json.loads(path.read_text("utf-8"))
    assert report["complete"] is True
    for key in ("created", "command"):
        report[key] = None
    report["summary"]["wall_time"] = None
    tails = {}
    for result in report["results"]:
        result["duration"] = 0
        failure = result.get("failure")
        if failure is not None:
            tails[f"{result['id']}@{result['profile']}"] = failure.pop("stderr_tail")
            failure["rerun"] = failure["rerun"].removesuffix(" --window 1")
            if isinstance(failure.get("request"), dict) and "seq" in failure["request"]:
                failure["request"]["seq"] = None
    return report, tails


def _goes_on(tail: list[str], longer: list[str]) -> bool:
    """Whether ``longer`` is the last STDERR_LINES of ``tail`` followed by more lines."""
    return any(longer == (tail + longer[i:])[-STDERR_LINES:] for i in range(len(longer) + 1))


def test_a_faithful_engine_reports_the_same_whatever_the_window(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    one, _ = _report(capsys, tmp_path, 1, "--engine", REFERENCE)
    ahead, _ = _report(capsys, tmp_path, DEFAULT_WINDOW, "--engine", REFERENCE)
    assert ahead["engine"]["supports"]["requests_ahead"] is True
    assert ahead == one
    assert {r["outcome"] for r in one["results"]} <= {"passed", "not_applicable", "skipped"}
    assert len(one["results"]) > 200


def test_a_planted_bug_fails_the_same_steps_with_acts_in_flight(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ("--engine", PLANTED, "--profile", LOOP_RULES)
    one, tails_one = _report(capsys, tmp_path, 1, *args)
    ahead, tails_ahead = _report(capsys, tmp_path, DEFAULT_WINDOW, *args)
    assert ahead["engine"]["supports"]["requests_ahead"] is True
    assert ahead == one
    failed = [r for r in one["results"] if r["outcome"] == "failed"]
    assert len(failed) == 5
    assert one["summary"]["modes"]["derived"] > 50  # expectations the reference engine made
    # Acts were in flight when these failed: each failing step has accepted moves after it.
    transcripts = {t.id: t for t in load_corpus()[0]}
    after = [sum(s.kind == "act" for s in transcripts[r["id"]].steps[r["step"] :]) for r in failed]
    assert all(count > DEFAULT_WINDOW for count in after), after
    # The engine narrates each move on standard error: at window 1 a failure's tail ends
    # with the failing step; ahead, what it wrote for the requests after it may follow.
    assert tails_one.keys() == tails_ahead.keys()
    assert all(_goes_on(tails_one[key], tails_ahead[key]) for key in tails_one)
    assert tails_one != tails_ahead  # so the comparison above can fail
