"""Issue 24, second round: no orphan. Every way a child can outlive its parent: a helper
that rewrites its engine id, a signalled pytest session, a harness killed with SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli_helpers import DATA, PASSING, ROOT, fake, jhyap
from tests.conftest import assert_no_survivors

pytestmark = pytest.mark.e2e


def wait_for(pids: Path, count: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while len(list(pids.iterdir())) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(list(pids.iterdir())) == count, "the engine and its helpers did not start"


def running(pid: int) -> bool:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return text[text.rindex(")") + 2 :].split()[0] != "Z"


@pytest.mark.parametrize("mode", ["other", "empty"])
def test_run_reaps_a_helper_that_rewrote_its_engine_id(
    capsys: pytest.CaptureFixture[str], pids: Path, mode: str
) -> None:
    args = ("run", "--engine", fake("escape_renamed", mode), "--transcripts", str(DATA))
    code, out, err = jhyap(capsys, *args, "-k", PASSING)
    assert code == 0, out + err
    assert len(list(pids.glob("*-helper"))) == 1  # it ran; the fixture checks it ended


@pytest.mark.parametrize("mode", ["other", "empty"])
def test_smoke_reports_a_helper_that_rewrote_its_engine_id(
    capsys: pytest.CaptureFixture[str], pids: Path, mode: str
) -> None:
    code, out, _ = jhyap(capsys, "smoke", "--engine", fake("escape_renamed", mode))
    assert code == 1
    [exit_line] = [line for line in out.splitlines() if line.startswith(("FAIL exit:", "ok exit"))]
    assert "left 1 process running" in exit_line, exit_line
    assert "no process left" not in out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_an_engine_dies_with_a_harness_killed_by_sigkill(tmp_path: Path, pids: Path) -> None:
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "conformance",
            "run",
            "--engine",
            fake("hang"),
            "--transcripts",
            str(DATA),
            "-k",
            PASSING,
            "--timeout",
            "600",
            "--jobs",
            "1",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(pids, 1)
        time.sleep(0.5)  # the run reaches its first act, which the engine never answers
        run.kill()  # no handler, no atexit: only the kernel can end the engine now
        run.wait(timeout=30)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    [engine] = [int(p.read_text()) for p in pids.iterdir()]
    deadline = time.monotonic() + 10
    while running(engine) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(engine), "the hung engine outlived the killed harness"


def _signals_as_a_terminal_starts_them() -> None:
    # A suite started in the background (`&`, nohup) passes on SIGINT and SIGHUP ignored,
    # and the session would then never see the signal the test sends it.
    for signum in (signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signalled_pytest_session_ends_its_engine_and_writes_its_junit(
    tmp_path: Path, pids: Path, signum: signal.Signals
) -> None:
    junit = tmp_path / "junit.xml"
    ini = tmp_path / "pytest.ini"
    ini.write_text("[pytest]\n")  # not this project's settings (xdist, its addopts)
    session = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            "-c",
            str(ini),
            "-p",
            "no:cacheprovider",
            "-q",
            "--jhyap-engine",
            fake("escape", "daemon", "hang"),
            "--jhyap-transcripts",
            str(DATA),
            "--jhyap-timeout",
            "600",
            "--junitxml",
            str(junit),
            "-k",
            PASSING,
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=_signals_as_a_terminal_starts_them,
    )
    try:
        wait_for(pids, 2)
        time.sleep(1.0)  # the item reaches its first act, which the engine never answers
        session.send_signal(signum)
        out, _ = session.communicate(timeout=60)
    finally:
        if session.poll() is None:
            session.kill()
            session.wait()
    assert session.returncode == 2, out  # pytest's "interrupted"
    # One line says why (issue 41, item 7): no code location, no traceback advice.
    stopped = [line for line in out.splitlines() if "StoppedBySignal" in line]
    assert len(stopped) == 1, out
    assert f" StoppedBySignal: jhyap stopped by {signal.Signals(signum).name} " in stopped[0]
    assert "pytest_plugin.py" not in out and "--full-trace" not in out, out
    assert junit.exists(), out
    assert "<testsuites" in junit.read_text()
    assert_no_survivors(pids)
