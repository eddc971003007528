"""The conformance harness: the client, replay, runner, reports and the jhyap commands.

Engines under test are the scripts in tests/fake_engines/ (run with sys.executable) and
the bundled reference engine. Each fake writes its pid into $FAKE_ENGINE_PIDS, so every
test that runs one checks afterwards that no engine process survived.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from conformance import cli
from conformance.harness.client import (
    EngineClient,
    EngineCrashed,
    EngineTimeout,
    ProtocolViolation,
)
from conformance.harness.replay import start_message
from conformance.harness.response_schemas import schema_problems
from conformance.spec.protocol import protocol_clause_ids
from conformance.spec.transcript import load_corpus, load_transcript
from conformance.spec.transcript_profiles import shipped_documents
from jhyap_core.profile import resolve
from jhyap_core.vocabulary import ErrorCode
from tests.conftest import assert_no_survivors

ROOT = Path(__file__).resolve().parents[2]
FAKES = ROOT / "tests" / "fake_engines"
DATA = ROOT / "tests" / "data" / "transcripts"
DATA_ARG = os.path.relpath(DATA, ROOT)
PASSING = "harness-pass-run-ends"
WRONG = "harness-wrong-expectation"
TIMEOUT = "2"


def fake(name: str, *args: str) -> str:
    """The command string of a fake engine."""
    return shlex.join([sys.executable, str(FAKES / f"{name}.py"), *args])


@pytest.fixture(autouse=True)
def _in_root(monkeypatch: pytest.MonkeyPatch) -> None:
    # Reports name files relative to the working directory; keep them predictable.
    monkeypatch.chdir(ROOT)


def own_children_reaped(folder: Path) -> None:
    """The engines the harness started (not their helpers) are reaped: no pid left."""
    for path in folder.iterdir():
        if path.name.endswith("-helper"):
            continue
        with pytest.raises(ProcessLookupError):
            os.kill(int(path.read_text()), 0)


def jhyap(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def run_fake(
    capsys: pytest.CaptureFixture[str], engine: str, *args: str, ids: tuple[str, ...] = (PASSING,)
) -> tuple[int, str, str]:
    selection = [a for i in ids for a in ("-k", i)]
    return jhyap(
        capsys,
        "run",
        "--engine",
        engine,
        "--transcripts",
        DATA_ARG,
        "--timeout",
        TIMEOUT,
        *selection,
        *args,
    )


def json_results(path: Path) -> list[dict[str, Any]]:
    report = json.loads(path.read_text())
    return list(report["results"])


# -- the reference engine ------------------------------------------------------------------


WRONG_REPORT = [
    f"FAILED {WRONG} [dashain]",
    f"  {DATA_ARG}/{WRONG}.yaml:17  step 3: seat 0 picks from the deck",
    "  the events differ from the transcript",
    "  clauses: dashain.deal.given-order, dashain.deal.order, dashain.pick.out-of-play,"
    " dashain.turn.throw-then-pick",
    '  request: {"seq":14,"cmd":"act","seat":0,"action":{"type":"pick","from":"deck"}}',
    "  expected:",
    '    {"type": "picked", "seat": 0, "from": "deck", "card": "3c"}',
    '    {"type": "out_of_play", "cards": ["Ks"]}',
    "  actual:",
    '    {"type": "picked", "seat": 0, "from": "deck", "card": "2c"}',
    '    {"type": "out_of_play", "cards": ["Ks"]}',
    "  differences:",
    '    events[0].card: expected "3c", got "2c"',
    "  engine stderr: (nothing)",
    f"  rerun: jhyap run -k {WRONG} --profile dashain --transcripts {DATA_ARG}",
    "",
]


TOP_CLAUSES_TITLE = [
    "top failing clauses, by first, then failed, then clause:",
    "  (first: failed cases naming the clause first, as the rule most likely broken; failed: "
    "failed cases crediting it)",
]


@pytest.mark.e2e
def test_failing_transcript_report_line_by_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = jhyap(capsys, "run", "--transcripts", DATA_ARG, "-k", PASSING, "-k", WRONG)
    assert code == 1
    assert err == ".F\n"
    lines = out.splitlines()
    assert lines[:16] == WRONG_REPORT
    assert lines[16:] == [
        *TOP_CLAUSES_TITLE,
        # a wrong card drawn points at the deck's order (the deal's), then the pick clause;
        # the turn clause only came along
        "  clause                    first  failed",
        "  dashain.deal.given-order      1       1",
        "  dashain.deal.order            0       1",
        "  dashain.pick.out-of-play      0       1",
        "",
        "engine: jhyap-reference 0.1.0 (protocol 1.2)",
        lines[-1],
    ]
    assert lines[-1].startswith("== 1 passed, 1 failed (2 cases) in ")
    assert lines[-1].endswith(" s; judged 8 accepted actions (6 moves), 1 refusal, 1 state ==")


@pytest.mark.e2e
def test_verbose_adds_the_tables_and_quiet_keeps_one_line_per_failure(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = jhyap(
        capsys, "run", "--transcripts", DATA_ARG, "-k", PASSING, "-k", WRONG, "-v"
    )
    assert (code, err) == (1, ".F\n")
    lines = out.splitlines()
    assert lines[:16] == WRONG_REPORT
    assert lines[16:-1] == [
        "profile  passed  failed  other",
        "dashain       1       1      0",
        "",
        "clause family  passed  failed  other",
        "dashain.deal        0       1      0",
        "dashain.pick        1       1      0",
        "dashain.turn        0       1      0",
        "",
        *TOP_CLAUSES_TITLE,
        # a wrong card drawn points at the deck's order (the deal's), then the pick clause;
        # the turn clause only came along
        "  clause                    first  failed",
        "  dashain.deal.given-order      1       1",
        "  dashain.deal.order            0       1",
        "  dashain.pick.out-of-play      0       1",
        "",
        "engine: jhyap-reference 0.1.0 (protocol 1.2)",
    ]
    code, out, err = jhyap(
        capsys, "run", "--transcripts", DATA_ARG, "-k", PASSING, "-k", WRONG, "-q"
    )
    assert (code, err) == (1, "")  # no progress either
    first, last = out.splitlines()
    assert first == (
        f"FAILED {WRONG} [dashain] {DATA_ARG}/{WRONG}.yaml:17: "
        'events[0].card: expected "3c", got "2c" (step 3: seat 0 picks from the deck)'
    )
    assert last.startswith("== 1 passed, 1 failed (2 cases) in ")


@pytest.mark.usefixtures("reference_in_process")
def test_a_green_run_prints_a_short_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = jhyap(capsys, "run", "--transcripts", DATA_ARG, "-k", PASSING)
    assert code == 0
    engine, verdict = out.splitlines()
    assert engine == "engine: jhyap-reference 0.1.0 (protocol 1.2)"
    assert verdict.startswith("== 1 passed (1 case) in ")


@pytest.mark.usefixtures("reference_in_process")
def test_check_failure_report(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = jhyap(capsys, "run", "--transcripts", DATA_ARG, "-k", "harness-check-fails")
    assert code == 1
    assert out.splitlines()[:14] == [
        "FAILED harness-check-fails [dhumbal]",
        f"  {DATA_ARG}/harness-check-fails.yaml:14  step 2: check hand_values, hands, to_act",
        "  the state differs from the check",
        "  clauses: dhumbal.cards.hand-value",
        '  request: {"seq":3,"cmd":"state"}',
        '  expected: {"hand_values": [9, 63], "hands": {"1": ["Kc", "Kd", "Kh", "Ks", "Qd"]}, '
        '"to_act": 0}',
        '  actual: {"hand_values": [9, 64], "hands": {"1": ["Qc", "Kc", "Kd", "Kh", "Ks"]}, '
        '"to_act": 0}',
        "  differences:",
        "    hand_values[1]: expected 63, got 64",
        '    hands[1]: expected ["Kc", "Kd", "Kh", "Ks", "Qd"], got ["Qc", "Kc", "Kd", "Kh", '
        '"Ks"] (missing Qd; extra Qc)',
        "  engine stderr: (nothing)",
        f"  rerun: jhyap run -k harness-check-fails --profile dhumbal --transcripts {DATA_ARG}",
        "",
        TOP_CLAUSES_TITLE[0],
    ]
    assert out.splitlines()[-1].startswith("== 1 failed (1 case) in ")


@pytest.mark.usefixtures("reference_in_process")
def test_passing_transcripts_with_protocol_validation(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "r.json"
    code, out, err = jhyap(
        capsys,
        "run",
        "--transcripts",
        DATA_ARG,
        "-k",
        "harness-pass-*",
        "-k",
        "harness-game-end",
        "-k",
        "harness-timeout",
        "--validate-protocol",
        "--json",
        str(report),
    )
    assert (code, err) == (0, "...\n")
    assert out.splitlines()[-1].startswith("== 3 passed (3 cases) in ")
    assert [(r["id"], r["profile"], r["outcome"]) for r in json_results(report)] == [
        ("harness-game-end", "dashain", "passed"),
        (PASSING, "dashain", "passed"),
        ("harness-timeout", "dashain", "passed"),
    ]


@pytest.mark.e2e  # the whole corpus (in this process: tests/e2e/test_corpus_teeth.py pipes it)
@pytest.mark.usefixtures("reference_in_process")
def test_whole_corpus_passes_against_the_reference_engine(
    capsys: pytest.CaptureFixture[str],
) -> None:
    transcripts, problems = load_corpus()
    assert problems == []
    assert len(transcripts) >= 40
    code, out, _ = jhyap(capsys, "run")
    assert code == 0, out
    # Its speed is measured by bench/harness.py, not here.


# -- fake engines: each misbehaviour ends as the right outcome, in bounded time -----------


def _one_result(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, engine: str, *extra: str
) -> tuple[int, str, dict[str, Any]]:
    report = tmp_path / "r.json"
    code, out, _ = run_fake(capsys, engine, "--json", str(report), *extra)
    (result,) = json_results(report)
    return code, out, result


@pytest.mark.e2e
def test_passthrough_engine_passes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pids: Path
) -> None:
    code, _, result = _one_result(capsys, tmp_path, fake("passthrough"))
    assert (code, result["outcome"], result["reason"]) == (0, "passed", "")
    own_children_reaped(pids)


@pytest.mark.e2e
def test_vendor_fields_are_allowed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pids: Path
) -> None:
    code, _, result = _one_result(capsys, tmp_path, fake("vendor_fields"), "--validate-protocol")
    assert (code, result["outcome"]) == (0, "passed")


@pytest.mark.e2e
def test_crash_mid_game(capsys: pytest.CaptureFixture[str], tmp_path: Path, pids: Path) -> None:
    code, out, result = _one_result(capsys, tmp_path, fake("crash_mid_game"))
    assert code == 1
    assert result["outcome"] == "crashed"
    assert result["reason"] == "the engine exited with status 3 while answering act (seq 3)"
    assert (result["step"], result["line"]) == (2, 16)
    assert (
        "  engine stderr (last 2 lines):\n    | fake engine: about to fall over\n"
        "    | Traceback (most recent call last): boom\n" in out
    )
    assert (
        f"  rerun: jhyap run -k {PASSING} --profile dashain --engine "
        f"{shlex.quote(fake('crash_mid_game'))} --transcripts {DATA_ARG} --timeout {TIMEOUT}\n"
        in out
    )
    own_children_reaped(pids)


@pytest.mark.e2e
def test_a_failure_shows_only_the_stderr_its_own_case_made(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pids: Path
) -> None:
    # One engine process plays both cases (--jobs 1): the second one's failure block must
    # not show what the engine wrote while playing the first.
    code, out, _ = run_fake(
        capsys,
        fake("stderr_per_case"),
        "--jobs",
        "1",
        ids=(PASSING, "harness-game-end"),
    )
    assert code == 1
    block = out.split("ERRORED ", 1)[1].split("rerun:", 1)[0]
    assert "  engine stderr (last 2 lines):\n    | start 2\n    | act refused in game 2\n" in block
    assert "start 1" not in out
    own_children_reaped(pids)


@pytest.mark.e2e
def test_after_a_crash_the_engine_is_restarted_for_the_next_case(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pids: Path
) -> None:
    report = tmp_path / "r.json"
    code, _, err = run_fake(
        capsys,
        fake("crash_mid_game"),
        "--json",
        str(report),
        ids=(PASSING, "harness-game-end", "harness-check-fails"),
    )
    assert (code, err) == (1, "FCC\n")
    assert [(r["id"], r["outcome"]) for r in json_results(report)] == [
        ("harness-check-fails", "failed"),
        ("harness-game-end", "crashed"),
        (PASSING, "crashed"),
    ]
    assert len(list(pids.iterdir())) == 2  # one engine until the first crash, then another


@pytest.mark.e2e
def test_hanging_engine_times_out(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pids: Path
) -> None:
    began = time.monotonic()
    code, out, result = _one_result(capsys, tmp_path, fake("hang"))
    assert time.monotonic() - began < 8
    assert (code, result["outcome"]) == (1, "timed_out")
    assert result["reason"] == "no response to act (seq 3) within 2 s"
    assert "  engine stderr (last 1 line):\n    | fake engine: thinking very hard\n" in out
    own_children_reaped(pids)


@pytest.mark.e2e
def test_engine_ignoring_sigterm_is_killed_with_its_helper(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pids: Path
) -> None:
    began = time.monotonic()
    code, _, result = _one_result(capsys, tmp_path, fake("ignore_sigterm"))
    assert time.monotonic() - began < 10
    assert (code, result["outcome"]) == (1, "timed_out")
    assert sorted(p.name.endswith("-helper") for p in pids.iterdir()) == [False, True]
    own_children_reaped(pids)


@pytest.mark.parametrize(
    ("engine", "reason"),
    [
        ("non_json", "protocol violation: response is not JSON: this is not JSON"),
        ("debug_line", "protocol violation: response is not JSON: DEBUG dealing 52 cards"),
        (
            "internal_error",
            "the engine answered internal_error to seat 0 throws 4h 5h 6h: null pointer in act",
        ),
    ],
)
@pytest.mark.e2e
def test_errored_engines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pids: Path, engine: str, reason: str
) -> None:
    code, _, result = _one_result(capsys, tmp_path, fake(engine))
    assert (code, result["outcome"], result["reason"]) == (1, "errored", reason)


@pytest.mark.e2e
def test_wrong_seq(capsys: pytest.CaptureFixture[str], tmp_path: Path, pids: Path) -> None:
    code, _, result = _one_result(capsys, tmp_path, fake("wrong_seq"))
    assert (code, result["outcome"]) == (1, "errored")
    assert result["reason"].startswith(
        "protocol violation: wrong seq: expected 2, got 102: "
        '{"seq":102,"ok":true,"events":[{"type":"round_started"'
    )


@pytest.mark.e2e
def test_unrequested_extra_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pids: Path
) -> None:
    code, _, result = _one_result(capsys, tmp_path, fake("extra_line"))
    assert (code, result["outcome"]) == (1, "errored")
    assert result["reason"].startswith(
        "protocol violation: unrequested extra line after the previous response: "
        '{"seq":2,"ok":true,"events":[{"type":"round_started"'
    )
    # Found before the next request is written, or read as its answer (sent ahead): the same.
    _, _, waiting = _one_result(capsys, tmp_path, fake("extra_line"), "--window", "1")
    assert waiting["reason"] == result["reason"]
    assert waiting["step"] == result["step"] and waiting["clauses"] == result["clauses"]


@pytest.mark.e2e
def test_stderr_flood_does_not_block_the_engine(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pids: Path
) -> None:
    began = time.monotonic()
    code, _, result = _one_result(capsys, tmp_path, fake("stderr_flood"))
    assert (code, result["outcome"]) == (0, "passed")
    assert time.monotonic() - began < 8


@pytest.mark.e2e
def test_refusal_that_changes_the_state(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pids: Path
) -> None:
    code, out, result = _one_result(capsys, tmp_path, fake("changes_on_refusal"))
    assert (code, result["outcome"]) == (1, "failed")
    assert result["reason"] == "the refused request (pick_not_allowed) changed the state"
    assert result["differences"] == ["turns_taken: before 1, after 2"]
    assert ("  state before and after the refusal:\n    turns_taken: before 1, after 2\n") in out


@pytest.mark.e2e
def test_declined_profile_is_skipped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pids: Path
) -> None:
    report = tmp_path / "r.json"
    code, out, err = run_fake(
        capsys, fake("unsupported"), "--json", str(report), ids=(PASSING, "harness-timeout")
    )
    assert (code, err) == (0, "ss\n")
    assert [(r["id"], r["outcome"], r["reason"]) for r in json_results(report)] == [
        (
            PASSING,
            "skipped",
            "the engine answered unsupported_profile: pick.from_offer=run_ends is not implemented",
        ),
        (
            "harness-timeout",
            "skipped",
            "needs the optional timeout action, which the engine does not list",
        ),
    ]
    assert "skipped:\n  1 x needs the optional timeout action" in out


# -- engines that cannot be used: exit status 2, one clear message ---------------------------


@pytest.mark.parametrize(
    ("engine", "message"),
    [
        (
            fake("exit_during_hello"),
            "jhyap run: the engine is unusable: the engine exited with status 1 while answering "
            "hello (seq 0) (the handshake failed); its last standard error lines:\n"
            "  fake engine: cannot find my configuration file\n",
        ),
        (
            fake("protocol2"),
            "jhyap run: the engine is unusable: the engine speaks protocol 2.0, the harness speaks "
            "1.2: the major versions must match\n",
        ),
        (
            fake("protocol2", "--refuse"),
            "jhyap run: the engine is unusable: the engine does not speak protocol 1.2 "
            "(the harness speaks 1.2): this engine speaks protocol 2.0, not 1.2\n",
        ),
        (
            "/nonexistent/engine --fast",
            "jhyap run: the engine is unusable: engine command not found: /nonexistent/engine "
            "(from --engine '/nonexistent/engine --fast')\n",
        ),
        ("", "jhyap run: the engine is unusable: the engine command is empty\n"),
        (
            "'unbalanced",
            "jhyap run: the engine is unusable: cannot parse the engine command "
            '"\'unbalanced": No closing quotation\n',
        ),
    ],
)
@pytest.mark.e2e
def test_unusable_engine(
    capsys: pytest.CaptureFixture[str], pids: Path, engine: str, message: str
) -> None:
    code, out, err = run_fake(capsys, engine)
    assert (code, out, err) == (2, "", message)
    own_children_reaped(pids)


@pytest.mark.e2e
def test_engine_not_executable(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    script = tmp_path / "engine.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o644)
    code, out, err = run_fake(capsys, str(script))
    assert (code, out) == (2, "")
    assert err == (
        f"jhyap run: the engine is unusable: engine command is not executable: "
        f"{script} (from --engine '{script}')\n"
    )


# -- the client on its own ------------------------------------------------------------------


def _dealt(client: EngineClient) -> None:
    client.handshake()
    resolved = resolve(shipped_documents()["dhumbal"])
    transcript = load_transcript(DATA / "harness-check-fails.yaml")
    assert client.send(start_message(transcript, resolved))["ok"] is True


def _deal(client: EngineClient) -> dict[str, Any]:
    transcript = load_transcript(DATA / "harness-check-fails.yaml")
    assert transcript.steps[0].request is not None
    return client.send(transcript.steps[0].request)


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("long_line", "response line longer than 16 MiB"),
        (
            "no_ok",
            'missing ok/error structure (need "ok": true, or "ok": false with "error": '
            '{"code", "message"}): {"seq":2,"events":[]}',
        ),
        (
            "bad_error",
            'missing ok/error structure (need "ok": true, or "ok": false with "error": '
            '{"code", "message"}): {"seq":2,"ok":false,"error":"it went wrong"}',
        ),
        ("not_object", "response is not a JSON object: [1, 2, 3]"),
        (
            "not_utf8",
            "response is not UTF-8 (invalid start byte): "
            '{"seq": 2, "ok": true, "x-name": "\ufffd\ufffd"}',
        ),
    ],
)
@pytest.mark.e2e
def test_client_protocol_violations(pids: Path, mode: str, reason: str) -> None:
    client = EngineClient(fake("misbehave", mode), timeout=5)
    try:
        _dealt(client)
        with pytest.raises(ProtocolViolation) as caught:
            _deal(client)
        assert str(caught.value) == reason
        assert client.broken == reason
    finally:
        client.close()
    own_children_reaped(pids)


@pytest.mark.e2e
def test_client_ignores_blank_lines(pids: Path) -> None:
    with EngineClient(fake("misbehave", "blank_then_answer"), timeout=5) as client:
        _dealt(client)
        assert _deal(client)["ok"] is True
        assert client.close() == 0


@pytest.mark.e2e
def test_client_engine_closing_stdout_counts_as_a_crash(pids: Path) -> None:
    with EngineClient(fake("misbehave", "stdout_closed"), timeout=5) as client:
        _dealt(client)
        began = time.monotonic()
        with pytest.raises(EngineCrashed) as caught:
            _deal(client)
        assert time.monotonic() - began < 3
        assert str(caught.value) == (
            "the engine closed its standard output while answering deal (seq 2)"
        )
        assert caught.value.returncode is None
    own_children_reaped(pids)


@pytest.mark.e2e
def test_client_timeout_and_crash_exceptions(pids: Path) -> None:
    # Only the request that hangs gets the short limit: the engine's start and the deal
    # may take longer than that on a loaded machine.
    with EngineClient(fake("hang")) as client:
        _dealt(client)
        _deal(client)
        with pytest.raises(EngineTimeout) as timed_out:
            client.request("act", seat=0, action={"type": "call"}, timeout=0.5)
        assert str(timed_out.value) == "no response to act (seq 3) within 0.5 s"
        assert timed_out.value.timeout == 0.5
    with EngineClient(fake("crash_mid_game")) as client:
        _dealt(client)
        with pytest.raises(EngineCrashed) as crashed:
            client.request("act", seat=0, action={"type": "call"})
        assert crashed.value.returncode == 3
        assert crashed.value.stderr_tail == [
            "fake engine: about to fall over",
            "Traceback (most recent call last): boom",
        ]
    own_children_reaped(pids)


@pytest.mark.e2e
def test_client_gives_up_writing_to_an_engine_that_does_not_read(pids: Path) -> None:
    with EngineClient(fake("deaf"), timeout=0.5) as client:
        began = time.monotonic()
        with pytest.raises(EngineTimeout) as caught:
            client.request("deal", deck=["x" * 1000] * 1000)  # 1 MB: more than a pipe holds
        assert time.monotonic() - began < 2
        assert str(caught.value) == (
            "the engine stopped reading its input: deal (seq 0) not sent within 0.5 s"
        )
    own_children_reaped(pids)


@pytest.mark.e2e
def test_client_stderr_tail_is_bounded(pids: Path) -> None:
    with EngineClient(fake("stderr_flood")) as client:
        _dealt(client)
        client.request("state")
        # "request 2" was written just before the answer: the tail waits for its reader
        tail = client.stderr_tail()
        assert len(tail) == 200
        assert tail[0] == "short 102"
        assert tail[-3:] == ["short 299", "flood: the last line", "request 2"]
        assert client.stderr_tail(1) == ["request 2"]


@pytest.mark.e2e
def test_client_close_always_reaps(pids: Path) -> None:
    client = EngineClient(fake("passthrough"))
    info = client.handshake()
    assert info.describe() == "jhyap-reference 0.1.0 (protocol 1.2)"
    assert info.supports_command("legal") and info.supports_action("timeout")
    assert client.close() == 0
    assert client.close() == 0  # closing twice is harmless
    assert client.alive is False
    own_children_reaped(pids)


@pytest.mark.e2e
def test_client_close_in_finally_after_a_harness_error(pids: Path) -> None:
    with pytest.raises(RuntimeError), EngineClient(fake("ignore_sigterm"), timeout=1) as client:
        _dealt(client)
        raise RuntimeError("a bug in the harness")
    assert client.alive is False
    own_children_reaped(pids)


@pytest.mark.e2e
def test_client_atexit_kills_engines_left_running(tmp_path: Path) -> None:
    folder = tmp_path / "pids"
    folder.mkdir()
    program = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r});"
        "from conformance.harness.client import EngineClient;"
        f"c = EngineClient({fake('ignore_sigterm')!r}); c.handshake();"
        # the helper the engine starts must be running (its pid written) before we exit
        "import os, time; end = time.monotonic() + 20\n"
        f"while len(os.listdir({str(folder)!r})) < 2 and time.monotonic() < end: time.sleep(0.01)\n"
        "raise SystemExit(0)"
    )
    env = {**os.environ, "FAKE_ENGINE_PIDS": str(folder)}
    done = subprocess.run([sys.executable, "-c", program], env=env, timeout=30, check=False)
    assert done.returncode == 0
    assert len(list(folder.iterdir())) == 2
    assert_no_survivors(folder)


def test_stderr_tail_keeps_at_most_64_kib() -> None:
    from conformance.harness.client import _StderrTail

    tail = _StderrTail()
    for i in range(1000):
        tail.feed(f"{i:04d}".encode() + b"y" * 1019 + b"\n")  # 1023 characters a line
    lines = tail.lines()
    assert [line[:4] for line in lines] == [f"{i:04d}" for i in range(936, 1000)]
    assert sum(map(len, lines)) == 64 * 1023
    tail.feed(b"no end yet " + b"z" * 100_000)
    assert tail.lines()[-1] == "no end yet " + "z" * (64 * 1024 - 11)


# -- runner options ------------------------------------------------------------------------


@pytest.mark.usefixtures("reference_in_process")
def test_a_run_stops_starting_cases_once_an_outcome_settles_it() -> None:
    from conformance.commands.run import default_engine, default_engine_env
    from conformance.harness.runner import RunConfig, load_selection, run_cases

    cases = load_selection(str(DATA)).cases
    ids = [c.transcript.id for c in cases]
    assert ids[0] == "harness-check-fails" and len(ids) == 5
    config = RunConfig(engine=default_engine(), env=default_engine_env(), timeout=10)
    stopped = run_cases(cases, replace(config, stop_when=lambda o: o.status == "failed"))
    assert [(o.transcript_id, o.status) for o in stopped.outcomes] == [
        ("harness-check-fails", "failed")
    ]
    assert stopped.stopped
    # Never settled: every case runs, as without the option.
    whole = run_cases(cases, replace(config, stop_when=lambda o: False))
    assert [o.transcript_id for o in whole.outcomes] == ids and not whole.stopped


@pytest.mark.usefixtures("reference_in_process")
def test_jobs_report_in_the_serial_order(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    serial, parallel = tmp_path / "1.json", tmp_path / "3.json"
    code1, out1, _ = jhyap(capsys, "run", "--transcripts", DATA_ARG, "--json", str(serial))
    code3, out3, _ = jhyap(
        capsys, "run", "--transcripts", DATA_ARG, "--jobs", "3", "--json", str(parallel)
    )
    assert (code1, code3) == (1, 1)
    order = [(r["id"], r["profile"], r["outcome"]) for r in json_results(serial)]
    assert order == [(r["id"], r["profile"], r["outcome"]) for r in json_results(parallel)]
    assert order == [
        ("harness-check-fails", "dhumbal", "failed"),
        ("harness-game-end", "dashain", "passed"),
        (PASSING, "dashain", "passed"),
        ("harness-timeout", "dashain", "passed"),
        (WRONG, "dashain", "failed"),
    ]
    # The failure blocks do not depend on the jobs, but for the request's seq.
    assert (
        out1.split("FAILED ")[1].split("request:")[0]
        == out3.split("FAILED ")[1].split("request:")[0]
    )


@pytest.mark.usefixtures("reference_in_process")
def test_known_failures(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    known = tmp_path / "known.yaml"
    known.write_text(
        f"- id: {WRONG}\n  reason: the deck order is under discussion\n"
        f"- id: {PASSING}\n  profile: dashain\n  reason: was broken once\n"
        "- id: no-such-transcript\n  reason: gone\n"
    )
    report = tmp_path / "r.json"
    code, out, err = jhyap(
        capsys,
        "run",
        "--transcripts",
        DATA_ARG,
        "-k",
        WRONG,
        "-k",
        PASSING,
        "--known-failures",
        str(known),
        "--json",
        str(report),
    )
    assert (code, err) == (1, "Xx\n")
    assert [(r["id"], r["outcome"]) for r in json_results(report)] == [
        (PASSING, "xpass"),
        (WRONG, "xfail"),
    ]
    lines = out.splitlines()
    assert lines[:5] == [
        f"UNEXPECTED PASS {PASSING} [dashain]",
        f"  {DATA_ARG}/{PASSING}.yaml:1",
        "  unexpected pass: remove it from the known failures",
        "  listed as a known failure: was broken once",
        # A pass breaks no clause: the block names none, and its rerun keeps the known failures.
        f"  rerun: jhyap run -k {PASSING} --profile dashain --transcripts {DATA_ARG} "
        f"--known-failures {known}",
    ]
    assert "warning: known failures: no transcript 'no-such-transcript'" in lines
    assert "known failures (xfail):" in lines
    assert f"  {WRONG} [dashain]: the deck order is under discussion" in lines
    # With the passing entry gone, the known failure alone counts as OK.
    known.write_text(json.dumps([{"id": WRONG, "reason": "under discussion"}]))
    json_file = known.rename(tmp_path / "known.json")
    code, _, _ = jhyap(
        capsys, "run", "--transcripts", DATA_ARG, "-k", WRONG, "--known-failures", str(json_file)
    )
    assert code == 0


@pytest.mark.e2e
def test_known_failures_file_must_be_valid(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    known = tmp_path / "known.yaml"
    known.write_text("- id: x\n  why: no reason key\n- just a string\n")
    code, out, err = jhyap(capsys, "run", "--transcripts", DATA_ARG, "--known-failures", str(known))
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f"{known}: entry 1: unknown key why",
        f"{known}: entry 1: reason must say why it fails",
        f"{known}: entry 2: expected a mapping with id and reason",
    ]


@pytest.mark.usefixtures("reference_in_process")
def test_selection_by_clause_and_profile(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "r.json"
    code, _, _ = jhyap(
        capsys,
        "run",
        "--transcripts",
        DATA_ARG,
        "--clause",
        "dashain.money.*",
        "--clause",
        "hand-value",
        "--json",
        str(report),
    )
    assert code == 1
    assert [r["id"] for r in json_results(report)] == ["harness-check-fails", "harness-game-end"]
    code, _, _ = jhyap(
        capsys, "run", "--transcripts", DATA_ARG, "--profile", "dhumbal", "--json", str(report)
    )
    # Under a declared ruleset every transcript faces it: the one written for dhumbal as it
    # stands (and it fails), the others derived from the reference engine playing dhumbal.
    assert [(r["id"], r["mode"], r["outcome"]) for r in json_results(report)] == [
        ("harness-check-fails", "as_written", "failed"),
        ("harness-game-end", "derived", "passed"),
        ("harness-pass-run-ends", "derived", "passed"),
        # dhumbal has no turn timer: the timeout is refused, no move could be judged
        ("harness-timeout", "not_applicable", "not_applicable"),
        ("harness-wrong-expectation", "derived", "passed"),
    ]
    code, out, err = jhyap(capsys, "run", "--transcripts", DATA_ARG, "--profile", "nope")
    assert (code, out) == (2, "")
    assert err == (
        "jhyap run: unknown profile 'nope'; shipped profiles: alankar-dhumbal, bga-yaniv, dashain, "
        "dhumbal, everestbuzz, jhyap-encyclopedia, jhyap-jacks-zero, yaniv-israel, "
        "yarsa-dhumbal\n"
    )
    code, out, err = jhyap(capsys, "run", "--transcripts", DATA_ARG, "-k", "zzz")
    assert (code, out) == (2, "")
    assert err.startswith("jhyap run: no case matches the selection (5 transcripts in ")


@pytest.mark.e2e
def test_an_exact_id_selects_only_that_transcript(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "r.json"
    jhyap(capsys, "run", "--transcripts", DATA_ARG, "-k", "harness-pass", "--json", str(report))
    assert [r["id"] for r in json_results(report)] == [PASSING]  # a substring
    jhyap(capsys, "run", "--transcripts", DATA_ARG, "-k", "harness-timeout", "--json", str(report))
    assert [r["id"] for r in json_results(report)] == ["harness-timeout"]


@pytest.mark.e2e
def test_broken_transcript_stops_the_run_before_any_engine(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "transcripts"
    folder.mkdir()
    (folder / "broken-one.yaml").write_text(
        "id: broken-one\ntitle: x\nkind: oracle\nprofiles: [dashain]\nseats: 9\n"
        "clauses: [dashain.pick.run-ends]\nsteps:\n  - end_game: true\n"
    )
    code, out, err = jhyap(
        capsys, "run", "--transcripts", str(folder), "--engine", "/nonexistent/engine"
    )
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f"{folder}/broken-one.yaml:5: seats: 9 seats is outside dashain's 2-6"
        " (a transcript about a refused table says so with start_error)",
        "jhyap run: 1 problem in the transcripts; nothing was run",
    ]


# -- reports ------------------------------------------------------------------------------


@pytest.mark.e2e
def test_json_and_junit_reports(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    report, junit = tmp_path / "r.json", tmp_path / "r.xml"
    code, _, _ = jhyap(
        capsys,
        "run",
        "--transcripts",
        DATA_ARG,
        "-k",
        PASSING,
        "-k",
        WRONG,
        "--json",
        str(report),
        "--junit",
        str(junit),
    )
    assert code == 1
    data = json.loads(report.read_text())
    assert {k: v for k, v in data["summary"].items() if k != "wall_time"} == {
        "passed": 1,
        "failed": 1,
        "empty": 0,
        "errored": 0,
        "crashed": 0,
        "timed_out": 0,
        "skipped": 0,
        "xfail": 0,
        "xpass": 0,
        "not_applicable": 0,
        "not_checked": 0,
        "total": 2,
        "modes": {"as_written": 2, "derived": 0, "reseated": 0, "not_applicable": 0},
        "passed_as_written": 1,
        "passed_derived": 0,
        "passed_reseated": 0,
        "checks_not_checked": 0,
        "checks_kit_kept": 0,
        "judged": {"accepted": 8, "moves": 6, "refusals": 1, "states": 1},
        "selected": 2,
    }
    assert data["engine"]["name"] == "jhyap-reference"
    assert data["engine"]["protocol"] == "1.2"
    assert data["engine"]["command"] == shlex.join(
        [sys.executable, "-m", "reference_engine.server"]
    )
    failed = {k: v for k, v in data["results"][1].items() if k not in ("duration", "failure")}
    assert failed == {
        "id": WRONG,
        "profile": "dashain",
        "clauses": [
            "dashain.deal.given-order",
            "dashain.deal.order",
            "dashain.pick.out-of-play",
            "dashain.turn.throw-then-pick",
        ],
        "outcome": "failed",
        "file": f"{DATA_ARG}/{WRONG}.yaml",
        "line": 17,
        "step": 3,
        "reason": "the events differ from the transcript",
        "differences": ['events[0].card: expected "3c", got "2c"'],
        "known_failure": None,
        "mode": "as_written",
        "mode_note": "",
        "base": None,
        "changed": [],
        "not_checked": [],
        # the deal, the throw and the pick whose events differ
        "judged": {"accepted": 3, "moves": 2, "refusals": 0, "states": 0},
        "kit_kept": [],  # the reference keeps every field itself
    }
    root = ET.parse(junit).getroot()
    suite = root.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("2", "1", "0")
    cases = suite.findall("testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        ("jhyap.dashain", PASSING),
        ("jhyap.dashain", WRONG),
    ]
    assert [child.tag for child in cases[0]] == ["system-out"]
    assert cases[0].findtext("system-out") == (
        "judged 5 accepted actions (4 moves), 1 refusal, 1 state"
    )
    assert [c.get("assertions") for c in cases] == ["7", "3"]
    failure = cases[1].find("failure")
    assert failure is not None and failure.text is not None
    assert failure.get("message") == (
        'events[0].card: expected "3c", got "2c" (step 3: seat 0 picks from the deck)'
    )
    assert failure.text.splitlines()[:3] == WRONG_REPORT[:3]
    assert not list(tmp_path.glob(".*.tmp"))  # the atomic writes left no temporaries


@pytest.mark.e2e
def test_junit_survives_control_characters_in_engine_stderr(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pids: Path
) -> None:
    junit = tmp_path / "r.xml"
    script = tmp_path / "engine.py"
    script.write_text(
        f"import sys\nsys.path.insert(0, {str(FAKES)!r})\n"
        "sys.stderr.write('bell \\x07 and nul \\x00\\n'); sys.stderr.flush()\n"
        f"exec(open({str(FAKES / 'crash_mid_game.py')!r}).read())\n"
    )
    code, _, _ = run_fake(capsys, shlex.join([sys.executable, str(script)]), "--junit", str(junit))
    assert code == 1
    error = ET.parse(junit).getroot().find("testsuite/testcase/error")
    assert error is not None and error.text is not None
    # Shown as visible escapes (no control character can reach the XML or a terminal).
    assert "bell \\x07 and nul \\x00" in error.text


def test_progress_bar_on_a_terminal() -> None:
    import io

    from conformance.harness.outcome import CaseStatus, Outcome
    from conformance.reporting.report import Progress

    stream = io.StringIO()
    progress = Progress(2, stream, tty=True)
    progress(Outcome(CaseStatus.FAILED, "a", "dashain"))
    progress(Outcome(CaseStatus.PASSED, "b", "dashain"))
    progress.finish()
    assert stream.getvalue() == (
        "\r[###############...............] 1/2  1 failed"
        "\r[##############################] 2/2  1 failed"
        "\r" + " " * 60 + "\r"
    )


# -- protocol schemas ----------------------------------------------------------------------


def test_error_code_schema_matches_the_protocol_document() -> None:
    schema = json.loads((ROOT / "schema/protocol/error-codes.schema.json").read_text())
    doc = (ROOT / "docs/protocol.md").read_text()
    table = doc.split("### Error codes")[1].split("## Events")[0]
    documented = [line.split("`")[1] for line in table.splitlines() if line.startswith("| `")]
    assert schema["enum"] == documented == [code.value for code in ErrorCode]


def test_schemas_have_ids_under_the_project_base() -> None:
    for path in sorted((ROOT / "schema/protocol").glob("*.json")):
        schema = json.loads(path.read_text())
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert schema["$id"] == f"https://jhyap-conformance.org/schema/protocol/{path.name}"


def test_harness_requests_match_the_request_schema() -> None:
    import jsonschema
    import referencing

    from conformance.harness.response_schemas import schema_registry

    registry: referencing.Registry[Any] = schema_registry()
    validator = jsonschema.Draft202012Validator(
        {"$ref": "https://jhyap-conformance.org/schema/protocol/request.schema.json"},
        registry=registry,
    )
    transcripts, _ = load_corpus(DATA)
    requests: list[dict[str, Any]] = [{"seq": 0, "cmd": "hello", "protocol": "1.0"}]
    for transcript in transcripts:
        resolved = resolve(shipped_documents()[transcript.profiles[0]], transcript.options)
        requests.append({"seq": 1, **start_message(transcript, resolved)})
        requests += [{"seq": 2, **s.request} for s in transcript.steps if s.request]
    requests += [{"seq": 9, "cmd": c} for c in ("state", "legal", "stop")]
    assert [list(validator.iter_errors(r)) for r in requests] == [[]] * len(requests)
    bad = {"seq": 3, "cmd": "act", "seat": 0, "action": {"type": "pick"}, "extra": 1}
    assert sorted(e.message for e in validator.iter_errors(bad)) == [
        "'from' is a required property",
        "Unevaluated properties are not allowed ('extra' was unexpected)",
    ]


def test_schema_problems_name_the_schema_path() -> None:
    response = {
        "seq": 2,
        "ok": True,
        "events": [
            {"type": "picked", "seat": 0, "from": "deck"},
            {"type": "thrown", "seat": 0, "cards": ["4h"], "kind": "single", "x-t": 1},
        ],
    }
    assert schema_problems("act", response) == [
        "event.schema.json#/$defs/picked/required: 'card' is a required property (at $.events[0])"
    ]
    assert schema_problems("state", {"seq": 1, "ok": True, "state": None, "extra": 2}) == [
        "response-ok.schema.json#/$defs/state/unevaluatedProperties: Unevaluated properties "
        "are not allowed ('extra' was unexpected) (at $)",
        "state.schema.json#/type: None is not of type 'object' (at $.state)",
    ]
    assert schema_problems(
        "act", {"seq": 1, "ok": False, "error": {"code": "oops", "message": "m"}}
    ) == [
        "error-codes.schema.json#/enum: 'oops' is not one of "
        + repr([code.value for code in ErrorCode])
        + " (at $.error.code)"
    ]
    hello = {
        "seq": 0,
        "ok": True,
        "engine": {"name": "e", "version": "1", "language": "c"},
        "protocol": "1.0",
        "supports": {
            "commands": [
                "hello",
                "start",
                "deal",
                "act",
                "reshuffle",
                "set_option",
                "end_game",
                "stop",
            ],
            "actions": ["call", "throw", "pick"],
        },
    }
    assert schema_problems("hello", hello)[0] == (
        "hello.schema.json#/properties/supports/properties/commands/allOf/7/contains: "
        "['hello', 'start', 'deal', 'act', 'reshuffle', 'set_option', 'end_game', 'stop'] "
        "does not list 'state' (at $.supports.commands)"
    )
    hello["supports"]["commands"].append("state")  # type: ignore[index]
    assert schema_problems("hello", hello) == []


@pytest.mark.e2e
def test_schema_violation_is_a_failure(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pids: Path
) -> None:
    script = tmp_path / "engine.py"
    script.write_text(
        f"import sys\nsys.path.insert(0, {str(FAKES)!r})\n"
        "from _common import respond, serve\n"
        "def hook(request, session):\n"
        "    response = session.handle(request)\n"
        "    if request['cmd'] == 'deal':\n"
        "        response['events'][1]['deck_size'] = 'many'\n"
        "    return None if session.stopped else respond(response)\n"
        "raise SystemExit(serve(hook))\n"
    )
    code, out, result = _one_result(
        capsys, tmp_path, shlex.join([sys.executable, str(script)]), "--validate-protocol"
    )
    assert (code, result["outcome"]) == (1, "failed")
    assert result["reason"] == "the answer to deal breaks the protocol schema"
    assert result["differences"] == [
        "event.schema.json#/$defs/dealt/properties/deck_size/type: 'many' is not of type "
        "'integer' (at $.events[1].deck_size)"
    ]
    assert "  differences:\n    event.schema.json#/$defs/dealt/properties/deck_size/type: " in out


# -- the other commands ------------------------------------------------------------------------


def test_coverage(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    report = tmp_path / "c.json"
    code, out, _ = jhyap(capsys, "coverage", "--transcripts", DATA_ARG, "--json", str(report))
    total = sum(len(d.get("clauses") or []) for d in shipped_documents().values())
    total += len(protocol_clause_ids())  # the protocol's clauses are listed too
    assert code == 1
    lines = out.splitlines()
    assert f"8/{total} clauses covered" in lines
    values = sum(
        len(r["choices"]) for d in shipped_documents().values() for r in d.get("readings") or []
    )
    assert values >= 39  # the readings of docs/readings.md, set_size of yarsa-dhumbal among them
    assert lines[-1] == f"0/{values} reading values tested"
    assert any(
        line.startswith("dashain.pick.run-ends ") and line.endswith(f"  {PASSING}")
        for line in lines
    )
    data = json.loads(report.read_text())
    assert (data["covered"], data["total"]) == (8, total)
    assert data["clauses"]["dashain.pick.out-of-play"] == {
        "profile": "dashain",
        "transcripts": [WRONG],
    }
    code, out, _ = jhyap(capsys, "coverage", "--transcripts", DATA_ARG, "--uncovered")
    assert code == 1
    clause_lines = out.split(f"8/{total} clauses covered\n")[0].splitlines()
    assert len(clause_lines) == total - 8
    assert all(line.endswith("(uncovered)") for line in clause_lines)
    reading_lines = out.split(f"8/{total} clauses covered\n")[1].splitlines()
    assert len(reading_lines) == values + 1
    assert all("(untested)" in line for line in reading_lines[:-1])


def test_validate_checks_transcripts(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = jhyap(capsys, "validate", str(DATA))
    assert (code, out) == (0, "OK: 5 files valid\n")
    broken = tmp_path / "broken.yaml"
    broken.write_text(
        "id: broken\ntitle: x\nkind: oracle\nprofiles: [dashain]\nseats: 2\n"
        "clauses: [dashain.pick.run-ends]\nsteps:\n  - act: {seat: 0, call: true}\n"
    )
    code, out, _ = jhyap(capsys, "validate", str(broken))
    assert (code, out) == (1, f"{broken}:8: steps[0].act: an action before any deal\n")


@pytest.mark.e2e
def test_engine_command_serves_the_reference_engine() -> None:
    requests = '{"seq":0,"cmd":"hello","protocol":"1.0"}\n{"seq":1,"cmd":"stop"}\n'
    done = subprocess.run(
        [sys.executable, "-m", "conformance", "engine"],
        input=requests,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0
    hello, stop = (json.loads(line) for line in done.stdout.splitlines())
    assert hello["engine"]["name"] == "jhyap-reference"
    assert stop == {"seq": 1, "ok": True}
