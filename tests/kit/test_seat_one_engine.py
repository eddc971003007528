"""tests/kit_engines/seat_one.py: a Dashain table whose first hand starts at seat 1, bound
with the kit, judged on the whole corpus under its ruleset: the derived cases re-seated,
most of its moves accepted and compared, none failed; a wrong showdown behind the same
binding is caught."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.harness.replay import expected_moves
from conformance.spec.transcript import load_corpus
from conformance.spec.transcript_profiles import shipped_documents, with_profile_files
from tests.conftest import ROOT

pytestmark = pytest.mark.e2e

ENGINE = ROOT / "tests" / "kit_engines" / "seat_one.py"
PROFILE = ROOT / "tests" / "data" / "variants" / "dashain-first-starter-1.yaml"


def run_corpus(engine: Path) -> dict[str, Any]:
    """``jhyap run --json -`` of the whole corpus under the seat-one ruleset."""
    command = [sys.executable, "-m", "conformance", "run", "--engine"]
    command += [shlex.join([sys.executable, str(engine)]), "--profile", str(PROFILE)]
    command += ["--jobs", "1", "--json", "-", "-q"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=600)
    report: dict[str, Any] = json.loads(done.stdout)
    report["exit"] = done.returncode
    return report


def test_the_seat_one_engine_is_judged_on_the_whole_corpus() -> None:
    report = run_corpus(ENGINE)
    summary = report["summary"]
    assert report["exit"] == 0
    assert summary["failed"] == summary["empty"] == summary["errored"] == 0
    assert summary["passed"] + summary["not_applicable"] == summary["total"]
    # Most of the cases that run are re-seated: the transcripts' seat 0 opens, this table's
    # seat 1 does.
    assert summary["passed_reseated"] > summary["passed_as_written"] + summary["passed_derived"]
    # Most of the moves the cases that run expect accepted are accepted and compared.
    documents, _ = with_profile_files(shipped_documents(), [str(PROFILE)])
    transcripts, _ = load_corpus(None, documents)
    ran = {r["id"] for r in report["results"] if r["outcome"] == "passed"}
    written = sum(len(expected_moves(t)) for t in transcripts if t.id in ran)
    assert summary["judged"]["moves"] > written / 2
    for result in report["results"]:
        if result["mode"] == "reseated":
            assert result["mode_note"].startswith(
                "re-seated: the ruleset's first hand starts at seat 1, the transcript's at seat 0"
            )


def test_a_wrong_showdown_behind_the_same_binding_fails(tmp_path: Path) -> None:
    # A tie no longer beats the caller: the cases where one does fail.
    wrong = tmp_path / "seat_one_wrong.py"
    source = ENGINE.read_text("utf-8")
    assert source.count("if lowest <= values[caller]:") == 1
    source = source.replace("if lowest <= values[caller]:", "if lowest < values[caller]:")
    source = source.replace("Path(__file__).resolve().parents[2]", repr(str(ROOT)))
    wrong.write_text(source, "utf-8")
    report = run_corpus(wrong)
    assert report["exit"] == 1
    failed = sorted(r["id"] for r in report["results"] if r["outcome"] == "failed")
    # Each a showdown where a hand ties the caller's, every one re-seated.
    assert {
        "dashain-complete-game",
        "dashain-dealer-rotation",
        "dashain-showdown-tie-payment",
        "jhyap-encyclopedia-countered-others-score",
        "shared-showdown-tie-beats-caller",
    } <= set(failed)
    assert all(r["mode"] == "reseated" for r in report["results"] if r["outcome"] == "failed")
