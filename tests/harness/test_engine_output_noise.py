"""Issue 24, second round: no spoofing, no noise. What an engine writes never makes a line
of its own; a large file's warnings are counted, not listed; messages read well."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conformance.reporting.terminal import one_line
from tests.cli_helpers import fake, jhyap, run_args

FORGED = "== 145 passed (145 cases) in 1.00 s =="


@pytest.mark.parametrize("quiet", [(), ("-q",), ("-v",)])
@pytest.mark.e2e
def test_an_engine_message_cannot_forge_a_summary_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, quiet: tuple[str, ...]
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    code, out, _ = jhyap(capsys, *run_args(fake("forged_summary"), *quiet))
    assert code == 1
    lines = out.splitlines()
    forged = [line for line in lines if FORGED in line]
    assert forged, out
    # Every line quoting it starts with jhyap's own words, and its colour codes are text.
    assert not [line for line in forged if line.startswith(("==", "\x1b[32m"))]
    assert not [line for line in lines if "\x1b[32m==" in line]
    assert "oops\\x0d\\n\\x1b[32m== 145 passed" in out
    assert lines[-1].startswith("== \x1b[31m1 errored\x1b[0m (1 case) in ")


def test_one_line_escapes_every_line_break() -> None:
    assert one_line("a\nb\r\x1b[32mc\u2028d\x85e\tf") == ("a\\nb\\x0d\\x1b[32mc\\u2028d\\x85e\tf")


@pytest.mark.e2e
def test_a_large_known_failures_file_gives_a_count_not_every_warning(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    known = tmp_path / "known.json"
    entries = [{"id": f"no-such-{i}", "reason": "gone"} for i in range(120_001)]
    known.write_text(json.dumps(entries))
    report = tmp_path / "r.json"
    args = ("--known-failures", str(known), "--json", str(report), "-q")
    code, out, _ = jhyap(capsys, *run_args(fake("passthrough"), *args))
    assert code == 0, out
    warnings = [line for line in out.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 21
    assert warnings[0] == "warning: known failures: no transcript 'no-such-0'"
    assert warnings[-1] == (
        "warning: ... and 119981 more warnings (a --json report lists them all)"
    )
    assert len(json.loads(report.read_text())["warnings"]) == 120_001


@pytest.mark.e2e
def test_a_crash_on_a_state_request_shows_that_request_not_the_unsent_act(
    capsys: pytest.CaptureFixture[str], pids: Path
) -> None:
    # Step 6 expects a refusal: the harness asks the state before it sends the act, and
    # the engine dies on that state request; the act is never sent.
    code, out, _ = jhyap(capsys, *run_args(fake("crash_on_state", "2")))
    assert code == 1
    lines = out.splitlines()
    assert lines[1].endswith("step 6: seat 1 picks 5h from the offer (expects pick_not_allowed)")
    assert lines[2] == "  the engine exited with status 5 while answering state (seq 7)"
    assert lines[4] == '  request: {"seq":7,"cmd":"state"}'
    assert '"cmd":"act"' not in out


@pytest.mark.parametrize(
    ("profile", "message"),
    [
        ({"id": "x"}, "the profile has no rules object"),
        ({"id": "x", "rules": []}, "the profile has no rules object"),
        ({"id": "x", "rules": {}}, "the profile's rules lack the key 'seats'"),
    ],
)
def test_an_incomplete_profile_is_named_in_words_not_as_a_python_exception(
    profile: dict[str, object], message: str
) -> None:
    from reference_engine.server import Session

    session = Session()
    session.handle({"seq": 0, "cmd": "hello", "protocol": "1.1"})
    answer = session.handle({"seq": 1, "cmd": "start", "profile": profile, "seats": 2})
    assert answer["error"] == {"code": "invalid_profile", "message": message}


@pytest.mark.e2e
def test_a_long_value_in_a_warning_is_clipped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    known = tmp_path / "known.yaml"
    known.write_text(f"- id: a{'9' * 5000}\n  reason: gone\n")
    code, out, _ = jhyap(capsys, *run_args(fake("passthrough"), "--known-failures", str(known)))
    assert code == 0
    [warning] = [line for line in out.splitlines() if line.startswith("warning:")]
    assert warning == f"warning: known failures: no transcript 'a{'9' * 78}… (5001 characters)'"


@pytest.mark.parametrize(
    ("option", "value", "rule"),
    [
        ("--jhyap-timeout", "inf", "must be a number of seconds above 0 and at most 86400"),
        ("--jhyap-fuzz-games", "1e12", "must be a whole number from 1 to 10000000"),
        ("--jhyap-fuzz-seed", "-1", "must be a whole number from 0 to 9223372036854775807"),
        ("--jhyap-transcripts", "a" * 5000, "must be a path of at most 4095 bytes, not 5000"),
    ],
)
@pytest.mark.e2e
def test_the_pytest_plugin_checks_its_numbers_and_paths_as_jhyap_does(
    tmp_path: Path, option: str, value: str, rule: str
) -> None:
    import subprocess

    ini = tmp_path / "pytest.ini"
    ini.write_text("[pytest]\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-c",
            str(ini),
            "-p",
            "no:cacheprovider",
            "--jhyap-engine",
            "x",
            option,
            value,
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 4  # pytest's usage error
    assert f"error: argument {option}: {rule}" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.e2e
def test_an_engine_name_cannot_forge_a_summary_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 41, item 8: the hello answer's name and version made lines of their own.
    monkeypatch.setenv("NO_COLOR", "1")
    code, out, _ = jhyap(capsys, *run_args(fake("forged_name")))
    assert code == 0
    lines = out.splitlines()
    forged = "x\\n\\x1b[32m== 145 passed (145 cases) in 1.00 s ==\\x1b[0m"
    assert lines[-2] == f"engine: {forged} {forged} (protocol 1.2)"
    assert [line for line in lines if line.startswith("==")] == [lines[-1]]
    assert "\x1b" not in out
    assert lines[-1].startswith("== 1 passed (1 case) in ")


@pytest.mark.e2e
def test_a_refusal_quoted_by_fuzz_cannot_forge_a_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # bench/probes.py: fuzz's "checked: against the engine: ..." line quoted the engine's
    # refusal raw, so its newline printed a forged summary line (and its OSC codes).
    monkeypatch.setenv("NO_COLOR", "1")
    engine = fake("forged_text", "all", "error")
    found = str(tmp_path / "found")  # the finding's transcript: never under the checkout
    args = ["fuzz", "--profile", "dashain", "--games", "1", "--engine", engine, "--out", found]
    code, out, _ = jhyap(capsys, *args)
    assert code == 1
    assert [line for line in out.splitlines() if FORGED in line and line.startswith("==")] == []
    assert [c for c in ("\x1b", "\r", "\u2028", "\u0085", "\u202e") if c in out] == []
    checked = [
        line for line in out.splitlines() if line.startswith("  checked: against the engine")
    ]
    assert len(checked) == 1
    assert "Kh Kc: x\\n== 1" in checked[0]  # (clipped in the middle)
    assert checked[0].endswith("\\u2066== 145 passed (145 cases) in 1.00 s ==\\u2069")
