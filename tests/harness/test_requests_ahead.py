"""Requests sent ahead (conformance.harness.ahead): which requests go out before their
turn, what the engine's side does with lines that arrive together, and the --window
option."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from conformance.harness.ahead import anything, changes_nothing, planned_requests
from conformance.harness.client import EngineClient, _request_line
from conformance.harness.runner import build_cases
from conformance.spec.profiles import resolved_profile
from conformance.spec.transcript import load_corpus
from conformance.spec.transcript_profiles import shipped_documents
from jhyap_core.serving import MAX_LINE_BYTES, DescriptorLines, _LineTooLong
from tests.cli_helpers import jhyap

ROOT = Path(__file__).resolve().parents[2]
BATCHES = shlex.join([sys.executable, str(ROOT / "tests" / "fake_engines" / "batches.py")])
STATE: dict[str, Any] = {"cmd": "state"}
LEGAL: dict[str, Any] = {"cmd": "legal"}
CALL: dict[str, Any] = {"cmd": "act", "seat": 0, "action": {"type": "call"}}


def _started(client: EngineClient) -> None:
    profile = resolved_profile("dhumbal", {})
    client.request("hello", protocol="1.1")
    client.request("start", profile=profile, options=profile["option_values"], seats=4)


def _batches(client: EngineClient) -> list[str]:
    return [line for line in client.stderr_tail() if line.startswith("batch:")]


@pytest.mark.parametrize(
    ("window", "batches"),
    [
        # a change (the act) waits until the answers before it are judged; the requests
        # that change nothing go out with the request before them
        (8, ["batch: state legal", "batch: act state state legal"]),
        (1, ["batch: state", "batch: legal", "batch: act", "batch: state", "batch: state"]),
    ],
)
@pytest.mark.e2e
def test_only_requests_that_change_nothing_go_ahead(window: int, batches: list[str]) -> None:
    planned = [STATE, LEGAL, CALL, STATE, STATE, LEGAL]
    with EngineClient(BATCHES, timeout=10) as client:
        _started(client)
        client.plan(iter(planned), window, changes_nothing)
        answers = [client.send(message) for message in planned]
        assert not client.planning
        seqs = [answer["seq"] for answer in answers]
        assert seqs == list(range(2, 8))
        # the act is refused (no deal yet) and each answer is the one to its own request
        assert [answer["ok"] for answer in answers] == [True, True, False, True, True, True]
        assert "state" in answers[0] and "legal" in answers[1] and "state" in answers[4]
        shown = _batches(client)
        assert shown[:2] == ["batch: hello", "batch: start"]
        if window == 1:
            batches = [*batches, "batch: legal"]
        assert shown[2:] == batches


@pytest.mark.e2e
def test_an_engine_that_takes_requests_ahead_gets_changes_ahead_too() -> None:
    planned = [STATE, LEGAL, CALL, STATE, CALL, STATE, LEGAL]
    with EngineClient(BATCHES, timeout=10) as client:
        _started(client)
        client.plan(iter(planned), 8, anything)
        answers = [client.send(message) for message in planned]
        assert [answer["seq"] for answer in answers] == list(range(2, 9))
        assert [answer["ok"] for answer in answers] == [True, True, False, True, False, True, True]
        # the whole plan fits in the window: one write, the acts in it
        assert _batches(client)[2:] == ["batch: state legal act state act state legal"]


def _replayed_batches(engine: str, transcript_id: str) -> tuple[str, list[list[str]]]:
    """The outcome of one shipped case replayed against tests/fake_engines/batches.py
    (``engine``: its command) at the default window, and the commands of each batch it read."""
    from conformance.harness.replay import replay

    transcripts, problems = load_corpus()
    assert problems == []
    (case,) = [
        c
        for c in build_cases(transcripts, shipped_documents())
        if c.transcript.id == transcript_id and c.profile == "dhumbal"
    ]
    assert case.resolved is not None
    with EngineClient(engine, timeout=10) as client:
        info = client.handshake()
        outcome = replay(client, info, case.transcript, case.profile, case.resolved)
        batches = [line.split()[1:] for line in _batches(client)]
    return outcome.status, batches


@pytest.mark.e2e
def test_an_engine_that_does_not_declare_it_never_gets_a_change_early() -> None:
    # 89 moves with checks, legal steps and refusals (STATE, request, STATE) between them.
    status, batches = _replayed_batches(f"{BATCHES} --no-ahead", "dhumbal-game-to-last-player")
    assert status == "passed"
    assert batches[0] == ["hello"] and batches[1][0] == "start"
    # A request that may change the game only ever comes first in what the engine reads:
    # the answers before it were all judged before it was written.
    late = [batch for batch in batches if any(c not in ("state", "legal") for c in batch[1:])]
    assert late == []
    assert sum(map(len, batches)) > len(batches)  # state and legal still went ahead
    status, batches = _replayed_batches(BATCHES, "dhumbal-game-to-last-player")
    assert status == "passed"
    assert any(batch.count("act") > 1 for batch in batches)  # declared: acts go together


@pytest.mark.e2e
def test_a_request_off_the_plan_ends_it_and_gets_its_own_answer() -> None:
    with EngineClient(BATCHES, timeout=10) as client:
        _started(client)
        client.plan(iter([STATE, STATE, STATE]), 8, changes_nothing)
        assert client.send(STATE)["seq"] == 2  # the three went out together
        answer = client.send(LEGAL)  # not the next planned one: the plan ends
        assert not client.planning
        assert answer["seq"] == 5 and "legal" in answer
        assert client.send(STATE)["seq"] == 6
        assert _batches(client)[2:] == ["batch: state state state", "batch: legal", "batch: state"]


@pytest.mark.e2e
def test_a_change_off_the_plan_is_never_written() -> None:
    with EngineClient(BATCHES, timeout=10) as client:
        _started(client)
        client.plan(iter([CALL, STATE]), 8, anything)
        answer = client.send(STATE)  # not the call the plan said came next
        assert not client.planning
        assert answer["seq"] == 2 and "state" in answer
        assert _batches(client)[2:] == ["batch: state"]  # the call never reached the engine


@pytest.mark.e2e
def test_every_case_of_the_corpus_is_planned_as_it_is_sent() -> None:
    """The plan is what the replay sends: a wrong plan would end and cost round trips, so
    every shipped transcript's requests are planned exactly (up to its first raw step)."""
    sent: list[list[dict[str, Any]]] = []

    class Recording(EngineClient):
        def send(self, message: Any, *, timeout: float | None = None) -> dict[str, Any]:
            if self.planning:
                sent[-1].append(dict(message))
            return super().send(message, timeout=timeout)

        def plan(self, upcoming: Any, window: int, goes_ahead: Any) -> None:
            sent.append([])
            super().plan(upcoming, window, goes_ahead)

    from conformance.harness.derive import Mode
    from conformance.harness.replay import replay
    from conformance.harness.runner import build_cases

    transcripts, problems = load_corpus()
    assert problems == []
    cases = [
        c
        for c in build_cases(transcripts, shipped_documents())
        if c.mode is not Mode.NOT_APPLICABLE and not c.transcript.fresh_engine
    ]
    engine = shlex.join([sys.executable, "-m", "reference_engine.server"])
    with Recording(engine, timeout=10, cwd=str(ROOT)) as client:
        info = client.handshake()
        for case in cases:
            assert case.resolved is not None
            before = len(sent)
            outcome = replay(client, info, case.transcript, case.profile, case.resolved)
            assert outcome.status == "passed", (case.transcript.id, outcome.reason)
            # the first plan (from the start up to a raw step) went out exactly as planned
            planned = list(planned_requests(case.transcript, case.resolved, 0))
            assert sent[before] == planned, case.transcript.id
    assert len(cases) > 150


def test_lines_that_come_together_are_read_together() -> None:
    read_fd, write_fd = os.pipe()
    lines = DescriptorLines(read_fd)
    os.write(write_fd, b'{"seq":0}\n{"seq":1}\n{"se')
    assert lines.next_line() == b'{"seq":0}\n'
    assert lines.waiting()  # the second is whole: its answer can wait for it
    assert lines.next_line() == b'{"seq":1}\n'
    assert not lines.waiting()  # half a line is not a line

    def rest() -> None:  # more than a pipe holds: written while the lines are read
        os.write(write_fd, b'q":2}\n' + b"x" * (MAX_LINE_BYTES + 5))
        os.write(write_fd, b"y" * 1000 + b'\n{"seq":3}\n\nlast')
        os.close(write_fd)

    writer = threading.Thread(target=rest)
    writer.start()
    assert lines.next_line() == b'{"seq":2}\n'
    with pytest.raises(_LineTooLong):  # read to its end, then dropped
        lines.next_line()
    writer.join()
    assert lines.next_line() == b'{"seq":3}\n'
    assert lines.next_line() == b"\n"
    assert lines.next_line() == b"last"  # the end of input ends the last line
    assert lines.next_line() is None
    os.close(read_fd)


@pytest.mark.e2e
def test_lines_after_stop_in_one_write_still_get_the_answers_before() -> None:
    server = subprocess.run(
        [sys.executable, "-m", "reference_engine.server"],
        input=b'{"seq":0,"cmd":"hello","protocol":"1.1"}\n{"seq":1,"cmd":"state"}\n'
        b'{"seq":2,"cmd":"stop"}\n{"seq":3,"cmd":"state"}\n',
        capture_output=True,
        cwd=ROOT,
        timeout=60,
    )
    assert server.returncode == 0
    answers = server.stdout.decode().splitlines()
    assert [a.split(",")[0] for a in answers] == ['{"seq":0', '{"seq":1', '{"seq":2']
    assert '"code":"wrong_phase"' in answers[1]


@pytest.mark.e2e
def test_the_window_is_an_option_and_a_rerun_repeats_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = os.path.relpath(ROOT / "tests" / "data" / "transcripts", ROOT)
    code, out, _ = jhyap(
        capsys, "run", "--transcripts", data, "-k", "harness-wrong-expectation", "--window", "1"
    )
    assert code == 1
    assert (
        f"  rerun: jhyap run -k harness-wrong-expectation --profile dashain --transcripts {data}"
        " --window 1\n" in out
    )
    code, _, err = jhyap(capsys, "run", "--window", "0")
    assert code == 2
    assert (
        err.strip()
        .splitlines()[-1]
        .endswith("argument --window: must be a whole number from 1 to 10000: 0 is below 1")
        or "--window" in err
    )


def test_every_planned_request_is_written_as_json_writes_it() -> None:
    # The client splices the seq before a message's encoding, a start's profile encoded
    # once for every case of its profile: the bytes are those of the whole object encoded.
    encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
    transcripts, problems = load_corpus()
    assert problems == []
    written = 0
    for case in build_cases(transcripts, shipped_documents()):
        if case.resolved is None:
            continue
        for seq, message in enumerate(planned_requests(case.transcript, case.resolved, 0)):
            assert _request_line(seq, message) == encoder.encode({"seq": seq, **message}) + "\n"
            written += 1
    assert written > 9000
    odd: dict[str, Any] = {"cmd": "start", "profile": {"é": [1.0, True, None]}, "seats": 2}
    assert (
        _request_line(7, odd)
        == '{"seq":7,"cmd":"start","profile":{"é":[1.0,true,null]},"seats":2}\n'
    )
    assert _request_line(3, {"cmd": "state", "seq": 9}) == '{"seq":9,"cmd":"state"}\n'
