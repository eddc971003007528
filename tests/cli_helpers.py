"""What the command-line tests share: the fake engines, the harness's own transcripts and
``jhyap`` called in this process."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from conformance import cli

ROOT = Path(__file__).resolve().parent.parent
FAKES = ROOT / "tests" / "fake_engines"
DATA = ROOT / "tests" / "data" / "transcripts"
PASSING = "harness-pass-run-ends"  # a transcript every faithful engine passes


def fake(name: str, *args: str) -> str:
    """The command string of a fake engine."""
    return shlex.join([sys.executable, str(FAKES / f"{name}.py"), *args])


def jhyap(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``jhyap ARGS`` in this process: (exit status, stdout, stderr)."""
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def run_args(engine: str, *more: str) -> tuple[str, ...]:
    """``jhyap run`` of ``engine`` on the passing transcript."""
    return ("run", "--engine", engine, "--transcripts", str(DATA), "-k", PASSING, *more)
