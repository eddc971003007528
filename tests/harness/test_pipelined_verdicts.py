"""Requests sent ahead (conformance.harness.ahead): a case that fails inside a window of
requests in flight gets the verdict, step and message it gets when each request waits
for the answer before it."""

from __future__ import annotations

import shlex
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from conformance.harness.client import EngineClient
from conformance.harness.outcome import Outcome, describe_step
from conformance.harness.replay import replay
from conformance.harness.runner import Case, build_cases
from conformance.spec.transcript import load_corpus
from conformance.spec.transcript_profiles import shipped_documents

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
TRANSCRIPT = "dhumbal-game-to-last-player"  # 89 moves, no raw step
AT = 5  # the move the fake engine gets wrong


def _case() -> Case:
    transcripts, problems = load_corpus()
    assert problems == []
    (case,) = [
        c
        for c in build_cases(transcripts, shipped_documents())
        if c.transcript.id == TRANSCRIPT and c.profile == "dhumbal"
    ]
    return case


def _replayed(mode: str, window: int) -> tuple[Outcome, int]:
    """The outcome of the case against tests/fake_engines/diverges.py, and how many
    requests the engine had been sent by the end."""
    case = _case()
    assert case.resolved is not None
    engine = shlex.join(
        [sys.executable, str(ROOT / "tests" / "fake_engines" / "diverges.py"), mode, str(AT)]
    )
    with EngineClient(engine, timeout=10) as client:
        info = client.handshake()
        outcome = replay(client, info, case.transcript, case.profile, case.resolved, window=window)
        return replace(outcome, duration=0.0), client.next_seq


def _move_step() -> tuple[int, int]:
    """The number (from 1) and line of the case's AT-th move."""
    steps = _case().transcript.steps
    numbers = [n for n, s in enumerate(steps, start=1) if s.kind == "act"]
    number = numbers[AT - 1]
    return number, steps[number - 1].line


def test_a_difference_inside_a_window_fails_at_its_step_as_unpipelined() -> None:
    pipelined, sent = _replayed("events", 8)
    waiting, sent_one_by_one = _replayed("events", 1)
    assert pipelined == waiting
    number, line = _move_step()
    assert (pipelined.status, pipelined.step, pipelined.line) == ("failed", number, line)
    assert pipelined.reason == "the events differ from the transcript"
    assert pipelined.request is not None and pipelined.request["cmd"] == "act"
    assert sent >= sent_one_by_one


def test_an_engine_refusing_a_move_in_a_window_gets_the_unpipelined_verdict() -> None:
    pipelined, sent = _replayed("refuse", 8)
    waiting, sent_one_by_one = _replayed("refuse", 1)
    assert pipelined == waiting
    number, line = _move_step()
    step = _case().transcript.steps[number - 1]
    assert (pipelined.status, pipelined.step, pipelined.line) == ("failed", number, line)
    assert pipelined.reason == (
        f"expected {describe_step(step)} to be accepted, the engine refused it: "
        "illegal_throw: not this move"
    )
    assert sent >= sent_one_by_one


def test_a_crash_inside_a_window_is_reported_at_its_step_as_unpipelined() -> None:
    pipelined, _ = _replayed("crash", 8)
    waiting, _ = _replayed("crash", 1)
    assert pipelined == waiting
    number, _ = _move_step()
    assert (pipelined.status, pipelined.step) == ("crashed", number)
    assert pipelined.stderr_tail == ("fake engine: falls over on this act",)


def test_a_crash_on_a_request_written_after_the_failing_step_is_not_the_verdict() -> None:
    # The engine declares requests_ahead: the act after the failing one was written with it
    # and crashes the engine, which the failing step's report does not blame.
    pipelined, _ = _replayed("events-then-crash", 8)
    waiting, _ = _replayed("events-then-crash", 1)
    assert replace(pipelined, stderr_tail=()) == replace(waiting, stderr_tail=())
    number, line = _move_step()
    assert (pipelined.status, pipelined.step, pipelined.line) == ("failed", number, line)
    assert pipelined.reason == "the events differ from the transcript"
    assert waiting.stderr_tail == ()
    # Its last words came after the failing answer: the tail may show them, nothing more.
    assert pipelined.stderr_tail == ("fake engine: falls over on the act after",)
