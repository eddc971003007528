"""The pytest plugin: the corpus as pytest items, run by pytester sessions.

The plugin is the ``pytest11`` entry point ``jhyap``; where the package is not installed
(a plain checkout) the sessions load it with ``-p conformance.pytest_plugin``.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from conformance import cli

pytestmark = pytest.mark.e2e

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "transcripts"
FAKES = ROOT / "tests" / "fake_engines"
REFERENCE = shlex.join([sys.executable, "-m", "reference_engine.server"])
WRONG = "harness-wrong-expectation"
PASSING = "harness-pass-run-ends"


def plugin_args() -> list[str]:
    """What loads the plugin into a pytester session: nothing when pytest loads it itself."""
    installed = any(
        ep.value == "conformance.pytest_plugin" for ep in entry_points(group="pytest11")
    )
    if installed and not os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        return []
    return ["-p", "jhyap" if installed else "conformance.pytest_plugin"]


def fake(name: str) -> str:
    return shlex.join([sys.executable, str(FAKES / f"{name}.py")])


@pytest.fixture(autouse=True)
def _importable(monkeypatch: pytest.MonkeyPatch) -> None:
    # The reference engine runs as `python -m reference_engine.server` from pytester's
    # temporary directory: make this checkout importable there.
    paths = [str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(*plugin_args(), "-p", "no:cacheprovider", *args)


def jhyap(pytester: pytest.Pytester, engine: str, *args: str) -> pytest.RunResult:
    # "--opt=value": pytest finds its rootdir before it knows the plugin's options, and
    # would take a separate value that names a directory for a path to test.
    return run(pytester, f"--jhyap-engine={engine}", f"--jhyap-transcripts={DATA}", *args)


def failure_blocks(report: str) -> list[list[str]]:
    """The failure blocks of a ``jhyap run`` console report: a heading, then indented lines."""
    headings = ("FAILED ", "CRASHED ", "ERRORED ", "TIMED OUT ", "UNEXPECTED PASS ")
    blocks: list[list[str]] = []
    current: list[str] | None = None
    for line in report.splitlines():
        if line.startswith(headings):
            current = [line]
            blocks.append(current)
        elif current is not None and line.startswith("  "):
            current.append(line)
        else:
            current = None
    return blocks


def test_reference_engine(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    result = jhyap(pytester, REFERENCE, "-v")
    result.assert_outcomes(passed=3, failed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            f"jhyap: engine {REFERENCE}; 5 cases from {DATA}",
            "*collected 5 items",
            "jhyap::dhumbal::harness-check-fails FAILED*",
            "jhyap::dashain::harness-game-end PASSED*",
            f"jhyap::dashain::{PASSING} PASSED*",
            "jhyap::dashain::harness-timeout PASSED*",
            f"jhyap::dashain::{WRONG} FAILED*",
        ]
    )
    out = result.stdout.str()
    assert f"  {DATA}/{WRONG}.yaml:17  step 3: seat 0 picks from the deck\n" in out
    assert (
        f"  rerun: jhyap run -k {WRONG} --profile dashain --engine {shlex.quote(REFERENCE)} "
        f"--transcripts {DATA}\n" in out
    )
    assert "engine: jhyap-reference 0.1.0 (protocol 1.2)" in out
    # What the five cases judged, added up (the failing steps included), as jhyap run says.
    judged = "judged 14 accepted actions (8 moves), 2 refusals, 6 states"
    assert judged in result.stdout.lines
    # Exactly the explanations `jhyap run` prints for the same cases, line for line.
    capsys.readouterr()  # the in-process session wrote there too
    code = cli.main(["run", "--engine", REFERENCE, "--transcripts", str(DATA)])
    report = capsys.readouterr().out
    assert code == 1
    assert report.rstrip().endswith(f"; {judged} ==")
    blocks = failure_blocks(report)
    assert len(blocks) == 2
    for block in blocks:
        assert "\n".join(block) + "\n" in out


def test_selection_by_profile_and_keyword(pytester: pytest.Pytester) -> None:
    # Every transcript faces the ruleset given: one as written (and wrong), three derived,
    # and the timeout's not applicable (dhumbal has no timer: its one move is refused).
    result = jhyap(pytester, REFERENCE, "--jhyap-profile", "dhumbal")
    result.assert_outcomes(passed=3, failed=1, skipped=1)
    result = jhyap(pytester, REFERENCE, "-k", "pass-run")
    result.assert_outcomes(passed=1, deselected=4)
    # The items come on top of the session's own tests; -m jhyap keeps only the corpus.
    pytester.makepyfile(test_own="def test_own():\n    pass\n")
    jhyap(pytester, REFERENCE, "--strict-markers").assert_outcomes(passed=4, failed=2)
    jhyap(pytester, REFERENCE, "-m", "jhyap").assert_outcomes(passed=3, failed=2, deselected=1)


def test_known_failures_are_strict_xfails(pytester: pytest.Pytester, tmp_path: Path) -> None:
    known = tmp_path / "known.yaml"
    known.write_text(
        f"- {{id: {WRONG}, profile: dashain, reason: the transcript is wrong on purpose}}\n"
        f"- {{id: {PASSING}, reason: listed although it passes}}\n"
        "- {id: no-such-transcript, reason: gone}\n"
    )
    result = jhyap(pytester, REFERENCE, f"--jhyap-known-failures={known}", "-rx")
    result.assert_outcomes(passed=2, failed=2, xfailed=1)
    out = result.stdout.str()
    assert f"XFAIL jhyap::dashain::{WRONG} - known failure: the transcript is wrong" in out
    assert f"UNEXPECTED PASS {PASSING} [dashain]\n" in out
    assert "  unexpected pass: remove it from the known failures\n" in out
    assert "warning: known failures: no transcript 'no-such-transcript'" in out


def test_declined_profiles_are_skipped(pytester: pytest.Pytester, pids: Path) -> None:
    result = jhyap(pytester, fake("unsupported"), "-rs")
    result.assert_outcomes(skipped=5)
    out = result.stdout.str()
    assert (
        "the engine answered unsupported_profile: pick.from_offer=run_ends is not implemented"
        in out
    )
    assert "needs the optional timeout action, which the engine does not list" in out


def test_crashing_engine_is_restarted_for_each_case(pytester: pytest.Pytester, pids: Path) -> None:
    result = jhyap(pytester, fake("crash_mid_game"))
    result.assert_outcomes(failed=5)
    out = result.stdout.str()
    assert f"CRASHED {PASSING} [dashain]\n" in out
    assert "  the engine exited with status 3 while answering act (seq " in out
    assert (
        "  engine stderr (last 2 lines):\n    | fake engine: about to fall over\n"
        "    | Traceback (most recent call last): boom\n" in out
    )
    # harness-check-fails needs no act: the first engine serves it and then crashes; each
    # of the four cases that act crashes its own engine.
    assert len(list(pids.iterdir())) == 4


def test_hanging_engine_times_out(pytester: pytest.Pytester, pids: Path) -> None:
    result = jhyap(pytester, fake("hang"), "--jhyap-timeout=1", "-k", PASSING)
    result.assert_outcomes(failed=1, deselected=4)
    out = result.stdout.str()
    assert f"TIMED OUT {PASSING} [dashain]\n" in out
    assert "  no response to act (seq 3) within 1 s\n" in out
    assert "    | fake engine: thinking very hard\n" in out


def test_unusable_engine_is_one_usage_error(pytester: pytest.Pytester) -> None:
    result = jhyap(pytester, "/nonexistent/engine")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.stderr.lines == [
        "ERROR: --jhyap-engine: the engine is unusable: engine command not found: "
        "/nonexistent/engine (from --jhyap-engine '/nonexistent/engine')",
        "",
    ]
    assert "jhyap::" not in result.stdout.str()  # no item ran, none failed
    # --collect-only starts no engine, so it still lists the items.
    jhyap(pytester, "/nonexistent/engine", "--collect-only", "-q").stdout.fnmatch_lines(
        [f"jhyap::dashain::{PASSING}"]
    )


def test_engine_broken_mid_session_stops_the_session(
    pytester: pytest.Pytester, tmp_path: Path, pids: Path
) -> None:
    # The first process plays (and crashes); every later one dies on hello.
    script = tmp_path / "engine.py"
    marker = tmp_path / "started"
    script.write_text(
        "import os, sys\n"
        # It reads hello first: an engine gone before the request is written is the other
        # message ("while sending hello"), which a loaded machine can make the case.
        f"if os.path.exists({str(marker)!r}):\n    sys.stdin.readline()\n    sys.exit(1)\n"
        f"open({str(marker)!r}, 'w').close()\n"
        f"sys.path.insert(0, {str(FAKES)!r})\n"
        f"exec(open({str(FAKES / 'crash_mid_game.py')!r}).read())\n"
    )
    result = jhyap(pytester, shlex.join([sys.executable, str(script)]))
    # check-fails (wrong on purpose), a crash, then one case on an unusable engine: stop.
    result.assert_outcomes(failed=3)
    unusable = (
        "the engine exited with status 1 while answering hello (seq 0) (the handshake failed)"
    )
    assert f"the engine is unusable: {unusable}" in result.stdout.lines
    result.stdout.fnmatch_lines(
        [f"*Interrupted: --jhyap-engine: the engine is unusable: {unusable}*"]
    )
    assert "harness-timeout" not in result.stdout.str()


def test_short_summary_and_tb_line_give_the_first_difference(pytester: pytest.Pytester) -> None:
    wrong_line = (
        f'{DATA}/{WRONG}.yaml:17: events[0].card: expected "3c", got "2c" '
        "(step 3: seat 0 picks from the deck)"
    )
    result = jhyap(pytester, REFERENCE, "-k", WRONG, "-rf", "-vv")  # -vv: no trimming
    result.stdout.fnmatch_lines(
        [
            "*short test summary info*",
            f'FAILED jhyap::dashain::{WRONG} - events[0].card: expected "3c", got "2c" '
            "(step 3: seat 0 picks from the deck)",
        ]
    )
    result = jhyap(pytester, REFERENCE, "-k", WRONG, "--tb=line")
    lines = result.stdout.lines
    failures = lines.index("=" * 35 + " FAILURES " + "=" * 35)
    assert lines[failures + 1] == wrong_line  # the line alone, not the block
    assert f"FAILED {WRONG} [dashain]" not in lines


def test_item_ids_can_be_passed_back(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_own="def test_own():\n    pass\n")
    result = jhyap(pytester, REFERENCE, f"jhyap::dashain::{WRONG}", "-v")
    result.assert_outcomes(failed=1, deselected=4)  # nor does test_own run
    result.stdout.fnmatch_lines([f"jhyap::dashain::{WRONG} FAILED*"])
    assert (
        f"  rerun in pytest: pytest '--jhyap-engine={REFERENCE}' --jhyap-transcripts={DATA} "
        f"jhyap::dashain::{WRONG}\n" in result.stdout.str()
    )
    jhyap(pytester, REFERENCE, "jhyap::dhumbal", "test_own.py").assert_outcomes(
        passed=1, failed=1, deselected=4
    )
    jhyap(pytester, REFERENCE, "jhyap").assert_outcomes(passed=3, failed=2)
    result = jhyap(pytester, REFERENCE, "jhyap::dashain::no-such-case")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: not found: jhyap::dashain::no-such-case (no jhyap case*"])


def test_ids_printed_below_the_rootdir_can_be_pasted_back(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # From a folder below the rootdir pytest prints ids relative to it: pasted back as they
    # are, they rerun exactly the case they name.
    pytester.makeini("[pytest]\n")
    monkeypatch.chdir(pytester.mkdir("sub"))
    result = jhyap(pytester, REFERENCE, "-rf", "--tb=no")
    failed = [line.split(" - ")[0] for line in result.stdout.lines if line.startswith("FAILED ")]
    assert failed == [
        "FAILED ../jhyap::dhumbal::harness-check-fails",
        f"FAILED ../jhyap::dashain::{WRONG}",
    ]
    again = jhyap(pytester, REFERENCE, f"../jhyap::dashain::{WRONG}", "-v")
    again.assert_outcomes(failed=1, deselected=4)
    again.stdout.fnmatch_lines([f"../jhyap::dashain::{WRONG} FAILED*"])
    jhyap(pytester, REFERENCE, "../jhyap::dashain").assert_outcomes(
        passed=3, failed=1, deselected=1
    )
    # A path that leads elsewhere is no id: pytest looks for it as a file.
    elsewhere = jhyap(pytester, REFERENCE, f"../../jhyap::dashain::{WRONG}")
    assert elsewhere.ret == pytest.ExitCode.USAGE_ERROR


def test_the_engine_summary_survives_xdist(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    result = jhyap(pytester, REFERENCE, "-n", "2", "-p", "xdist", "-rf", "-vv")
    result.assert_outcomes(passed=3, failed=2)
    lines = result.stdout.lines
    assert "engine: jhyap-reference 0.1.0 (protocol 1.2)" in lines
    # The workers' counts reach the controller's summary.
    assert "judged 14 accepted actions (8 moves), 2 refusals, 6 states" in lines
    assert (
        f'FAILED jhyap::dashain::{WRONG} - events[0].card: expected "3c", got "2c" '
        "(step 3: seat 0 picks from the deck)"
    ) in lines


def test_bad_input_is_a_usage_error(pytester: pytest.Pytester, tmp_path: Path) -> None:
    result = run(pytester, f"--jhyap-engine={REFERENCE}", f"--jhyap-transcripts={tmp_path}/x")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --jhyap-transcripts: no such directory: {tmp_path}/x"])
    result = jhyap(pytester, REFERENCE, "--jhyap-profile", "nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: jhyap: unknown profile 'nope'; shipped profiles: *"])


def test_without_the_engine_option_the_plugin_changes_nothing(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_one="def test_a():\n    pass\n")
    without = pytester.runpytest(
        "-p",
        "no:jhyap",
        "-p",
        "no:conformance.pytest_plugin",
        "-p",
        "no:cacheprovider",
        "--collect-only",
        "-q",
    )
    with_plugin = run(pytester, "--collect-only", "-q")
    assert with_plugin.stdout.lines[:-1] == without.stdout.lines[:-1]  # the last has a time
    assert with_plugin.stdout.lines[-1].startswith("1 test collected in ")
    assert with_plugin.ret == without.ret == pytest.ExitCode.OK
    # Its other options alone do nothing either, not even check their values.
    result = run(pytester, "--jhyap-profile", "nope", "--jhyap-transcripts", "/nonexistent", "-v")
    result.assert_outcomes(passed=1)
    # pytest's own header names the installed distribution and the interpreter's path;
    # below it, the plugin must add no item and no line.
    body = result.stdout.lines[result.stdout.lines.index("collecting ... collected 1 item") :]
    assert [line for line in body if "jhyap" in line] == []
    help_text = run(pytester, "--help").stdout.str()
    for option in (
        "--jhyap-engine",
        "--jhyap-profile",
        "--jhyap-timeout",
        "--jhyap-transcripts",
        "--jhyap-known-failures",
    ):
        assert option in help_text


def test_importing_the_plugin_loads_none_of_the_harness() -> None:
    code = (
        "import sys, conformance.pytest_plugin; "
        "print(sorted(m for m in sys.modules if m.startswith(('conformance.', 'reference_engine'))"
        " and m != 'conformance.pytest_plugin'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout == "[]\n"
