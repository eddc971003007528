"""What the command-line tests share: the fake engines, the harness's own transcripts,
``jhyap`` called in this process and the reference engine run in it."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from conformance import cli
from conformance.harness import runner
from conformance.harness.inprocess import ReferenceClient
from conformance.harness.runner import Case, RunConfig, RunResult

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


class InProcessReference(ReferenceClient):
    """The reference engine in this process, standing in for the runner's engine client:
    for tests about what the reference answers under a ruleset, not about the pipe (the
    answers still go through JSON, as over it; tests/e2e/test_corpus_teeth.py runs the real
    server)."""

    broken = None
    alive = True

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__()

    def close(self, *, graceful: bool = True) -> None:
        pass


def run_reference_in_process(cases: Sequence[Case], config: RunConfig) -> RunResult:
    """``run_cases`` with every engine process an in-process reference engine."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(runner, "EngineClient", InProcessReference)
        return runner.run_cases(cases, config)


def run_variants(
    transcripts: Path, profiles: Sequence[Path], capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    """``jhyap run -q`` of the transcripts under ``transcripts`` against the reference, under
    each variant file of ``profiles``, in this process: (exit status, stdout)."""
    args = ["run", "-q", "--transcripts", str(transcripts)]
    for path in profiles:
        args += ["--profile", str(path)]
    status = cli.main(args)
    return status, capsys.readouterr().out
