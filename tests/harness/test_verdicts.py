"""Issue 24, second round: no wrong verdict. A known failure never hides a crash or a hang;
an engine that exits is seen to exit; a failure shows the request that was sent."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.cli_helpers import DATA, PASSING, fake, jhyap, run_args

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(
    ("engine", "heading", "kind"),
    [("crash_mid_game", "CRASHED", "crash"), ("hang", "TIMED OUT", "hang")],
)
def test_a_known_failure_never_hides_a_crash_or_a_hang(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    pids: Path,
    engine: str,
    heading: str,
    kind: str,
) -> None:
    known = tmp_path / "known.yaml"
    known.write_text(f"- id: {PASSING}\n  reason: picks any card of a run (issue 7)\n")
    args = run_args(fake(engine), "--known-failures", str(known), "--timeout", "1")
    code, out, _ = jhyap(capsys, *args)
    assert code == 1
    assert out.startswith(f"{heading} {PASSING} [dashain]\n"), out
    assert (
        f"  listed as a known failure, which excuses a wrong answer, not a {kind}: "
        "picks any card of a run (issue 7)\n"
    ) in out
    assert "xfail" not in out


def test_a_known_failure_still_excuses_a_wrong_answer(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    known = tmp_path / "known.yaml"
    known.write_text(f"- id: {PASSING}\n  reason: refuses to throw (issue 8)\n")
    code, out, _ = jhyap(capsys, *run_args(fake("escapes"), "--known-failures", str(known)))
    assert code == 0
    assert out.splitlines()[-1].startswith("== 1 xfailed (1 case) in ")


@pytest.mark.parametrize("mode", ["group", "setsid"])
def test_an_engine_that_exits_while_a_child_holds_its_output_is_crashed_at_once(
    capsys: pytest.CaptureFixture[str], pids: Path, mode: str
) -> None:
    began = time.monotonic()
    code, out, _ = jhyap(
        capsys, *run_args(fake("exit_child_holds_stdout", mode), "--timeout", "30", "-q")
    )
    took = time.monotonic() - began
    assert code == 1
    assert out.splitlines()[0] == (
        f"CRASHED {PASSING} [dashain] {DATA}/{PASSING}.yaml:16: "
        "the engine exited with status 4 while answering act (seq 3) "
        "(step 2: seat 0 throws 4h 5h 6h)"
    )
    assert took < 10, f"took {took:.1f} s: waited for the pipe, not the process"
    assert len(list(pids.glob("*-helper"))) == 1  # the child ran; the fixture sees it ended


def test_the_last_words_of_an_engine_that_left_a_child_are_kept(
    capsys: pytest.CaptureFixture[str], pids: Path
) -> None:
    code, out, _ = jhyap(capsys, *run_args(fake("exit_child_holds_stdout", "group")))
    assert code == 1
    assert "    | fake engine: leaving my child behind\n" in out
