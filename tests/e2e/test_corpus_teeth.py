"""The corpus has teeth: every deliberately broken engine fails it, the correct one passes.

Each mutant in tests/mutants/engine.py breaks one rule family. The mutants of the protocol
layer, and one of the rules, run as real subprocesses over the protocol, exactly as a
third-party engine would; the other rule mutants answer in this process (tests/fuzz/engines.py:
the same script and serving loop, spoken to by the harness's own client with the pipe taken
out), since what those tests assert is the corpus's judgement, not the pipe. The run of a
mutant stops once an oracle has caught it: what the test asserts is then settled.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.harness.outcome import CaseStatus, Outcome
from conformance.harness.runner import (
    Case,
    RunConfig,
    exit_status,
    load_selection,
    run_cases,
)
from conformance.harness.sandbox import engine_environment
from tests.conftest import ROOT
from tests.fuzz.engines import in_process
from tests.mutants.engine import MUTANTS

pytestmark = pytest.mark.e2e

MUTANT_ENGINE = ROOT / "tests" / "mutants" / "engine.py"
# The mutants run over real pipes: those of the protocol layer (what the pipe carries is
# what they break) and one of the rules.
OVER_PIPES = frozenset(
    {"non_json_seq_zero", "string_seq_echoed", "unknown_command_bad_request", "tie_to_caller"}
)


def run_corpus(engine: str, report: Path) -> tuple[int, dict[str, object]]:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "conformance",
            "run",
            "--engine",
            engine,
            "--jobs",
            "2",
            "--timeout",
            "20",
            "--json",
            str(report),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert report.exists(), result.stdout[-2000:] + result.stderr[-2000:]
    data: dict[str, object] = json.loads(report.read_text("utf-8"))
    return result.returncode, data


def test_the_reference_engine_passes_the_whole_corpus(tmp_path: Path) -> None:
    engine = f"{shlex.quote(sys.executable)} -m reference_engine.server"
    status, report = run_corpus(engine, tmp_path / "report.json")
    summary = report["summary"]
    assert isinstance(summary, dict)
    assert status == 0, summary
    assert summary["passed"] == summary["total"] > 0


def recorded(transcript_id: str) -> bool:
    """A recorded regression game: its failure alone does not show the corpus has teeth."""
    return transcript_id.startswith("regression-")


def caught_by_an_oracle(outcome: Outcome) -> bool:
    return outcome.status == CaseStatus.FAILED and not recorded(outcome.transcript_id)


@pytest.fixture(scope="module")
def corpus_cases() -> list[Case]:
    """The cases of ``jhyap run`` on the corpus, loaded once for every mutant. The recorded
    games, which cannot settle a run and are most of the corpus's steps, come last."""
    return sorted(load_selection().cases, key=lambda case: recorded(case.transcript.id))


def run_corpus_until_caught(engine: str, cases: list[Case]) -> tuple[int, list[Outcome]]:
    """``jhyap run --engine ENGINE --jobs 2 --timeout 20`` on the corpus, in this process (the
    engine is a subprocess), stopping once an oracle fails: the exit status and outcomes."""
    config = RunConfig(
        engine=engine, timeout=20, jobs=2, env=engine_environment(), stop_when=caught_by_an_oracle
    )
    outcomes = run_cases(cases, config).outcomes
    return exit_status(outcomes), outcomes


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_every_broken_engine_is_caught(mutant: str, corpus_cases: list[Case]) -> None:
    engine = f"{shlex.quote(sys.executable)} {shlex.quote(str(MUTANT_ENGINE))} {mutant}"
    with contextlib.nullcontext() if mutant in OVER_PIPES else in_process(engine):
        status, outcomes = run_corpus_until_caught(engine, corpus_cases)
    caught = [o.transcript_id for o in outcomes if o.status == CaseStatus.FAILED]
    assert status == 1
    # The recorded regression games do not count: an oracle, written from the rules, must.
    oracles = [i for i in caught if not i.startswith("regression-")]
    assert oracles, f"no oracle transcript catches the {mutant} mutant (caught by: {caught})"


def test_the_mutants_over_pipes_are_mutants() -> None:
    assert OVER_PIPES.issubset(MUTANTS)
