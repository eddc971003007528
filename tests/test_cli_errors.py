"""Every error of every command starts the same way: ``jhyap CMD: ...``."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance import cli
from conformance.commands import ExitCode
from tests.test_cli import EXIT_CASES, Args, jhyap

# Errors of every command beyond those of the exit-status table: a mistyped option, a
# missing argument, an unknown profile, a refused value, an unwritable report.
MORE_ERRORS: list[tuple[str, Args]] = [
    *[(command, lambda t: ["--bogus-option"]) for command in cli.COMMANDS],
    ("show", lambda t: []),
    ("simulate", lambda t: ["nosuch"]),
    ("simulate", lambda t: ["dhumbal", "--seats", "9", "--games", "1"]),
    ("run", lambda t: ["--profile", "nosuch"]),
    ("run", lambda t: ["--timeout", "abc"]),
    ("run", lambda t: ["--junit", str(t / "no" / "such" / "x.xml")]),
    ("smoke", lambda t: ["--profile", "nosuch"]),
    ("export", lambda t: ["--profile", "nosuch", str(t / "out")]),
    ("record", lambda t: ["nosuch", str(t / "out"), "--seats", "2"]),
    ("fuzz", lambda t: ["--profile", "nosuch"]),
    ("fuzz", lambda t: ["--games", "-1"]),
    ("coverage", lambda t: ["--transcripts", str(t / "nosuch")]),
    ("coverage", lambda t: ["--json", str(t / "no" / "such" / "x.json")]),
]

# validate and smoke report what they check (files; an engine) on standard output: there an
# error is a line of the report, not an error of the command.
REPORTS = {("validate", "an invalid profile"), ("validate", "a missing path")}
CASES = [
    pytest.param(command, args, id=f"{command}: {what}")
    for command, what, args, status in EXIT_CASES
    if status == ExitCode.ERROR and (command, what) not in REPORTS and command != "smoke"
] + [
    pytest.param(command, lambda t, a=args, c=command: [c, *a(t)], id=f"{command}: {i}")
    for i, (command, args) in enumerate(MORE_ERRORS)
]


def error_line(err: str) -> str:
    """The first line of standard error that is not argparse's usage."""
    lines = [line for line in err.splitlines() if line.strip()]
    body = [line for line in lines if not line.startswith(("usage: ", " "))]
    assert body, err
    return body[0]


@pytest.mark.parametrize(("command", "args"), CASES)
def test_every_error_names_jhyap_and_the_command(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str, args: Args
) -> None:
    argv = args(tmp_path)
    code, _, err = jhyap(capsys, *argv)
    assert code == ExitCode.ERROR, err
    line = error_line(err)
    assert line.startswith(f"jhyap {command}: "), line
    assert ": error: " not in err  # argparse's own form is gone


def test_the_check_catches_another_prefix(capsys: pytest.CaptureFixture[str]) -> None:
    line = error_line("usage: jhyap run [-h]\n  more usage\njhyap run: error: x\n")
    assert line == "jhyap run: error: x"  # ": error: " would fail the test above
    with pytest.raises(AssertionError):
        assert error_line("unknown profile 'x'\n").startswith("jhyap run: ")


def test_before_a_command_is_known_errors_say_jhyap(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = jhyap(capsys, "--bogus")
    assert code == ExitCode.ERROR
    assert error_line(err).startswith("jhyap: ")
    assert ": error: " not in err
