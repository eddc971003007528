"""hello.supports.state_fields (protocol 1.1): the harness compares only the state fields
an engine reports, and lists every check it could not make, never passing it in silence."""

from __future__ import annotations

import dataclasses
import json
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from lxml import etree  # type: ignore[import-untyped]

from conformance import cli
from conformance.harness.client import EngineInfo
from conformance.harness.replay import _kept_note
from conformance.harness.response_schemas import schema_problems
from conformance.harness.state_fields import (
    STATE_FIELDS,
    anything_checked,
    kit_kept,
    kit_kept_fields,
    not_checked,
    reported_fields,
    unreported_dropped,
)
from conformance.spec.transcript import load_transcript

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "transcripts"
FAKE = shlex.join([sys.executable, str(ROOT / "tests" / "fake_engines" / "few_state_fields.py")])
KIT = shlex.join([sys.executable, str(ROOT / "tests" / "fake_engines" / "kit_kept_fields.py")])
FIELDS = frozenset({"phase", "to_act", "hands", "scores"})  # what the fake engine reports
KEPT = frozenset({"hands", "to_act", "deck", "out_of_play"})  # what the kit fake's kit keeps
ONLY_CHECKS = """\
id: only-checks
title: Only a checkpoint, of fields the fake engine does not report
kind: oracle
profiles: [dhumbal]
seats: 2
clauses: [dhumbal.cards.hand-value]
steps:
  - check: {deck: [], out_of_play: []}
"""


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "transcripts"
    folder.mkdir()
    for name in ("harness-pass-run-ends", "harness-check-fails"):
        shutil.copy(DATA / f"{name}.yaml", folder)
    (folder / "only-checks.yaml").write_text(ONLY_CHECKS)
    return folder


def _run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Path, engine: str
) -> tuple[int, list[str], Any, Any]:
    report, junit = tmp_path / "r.json", tmp_path / "r.xml"
    argv = ["run", "--engine", engine, "--transcripts", str(corpus), "--json", str(report)]
    code = cli.main([*argv, "--junit", str(junit)])
    out = capsys.readouterr().out
    return code, out.splitlines(), json.loads(report.read_text()), etree.parse(str(junit)).getroot()


@pytest.mark.e2e
def test_unreported_fields_are_listed_as_not_checked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Path
) -> None:
    code, lines, report, junit = _run(capsys, tmp_path, corpus, FAKE)
    assert code == 1  # harness-check-fails still fails on the field the engine reports
    results = {r["id"]: r for r in report["results"]}
    assert {k: (r["outcome"], r["not_checked"]) for k, r in results.items()} == {
        "harness-check-fails": ("failed", ["step 2 (line 14): hand_values"]),
        "harness-pass-run-ends": ("passed", ["step 4 (line 22): offer, pickable"]),
        "only-checks": ("not_checked", ["step 1 (line 8): deck, out_of_play"]),
    }
    assert results["harness-check-fails"]["failure"]["expected"] == {
        "hands": {"1": ["Kc", "Kd", "Kh", "Ks", "Qd"]},
        "to_act": 0,
    }
    summary = report["summary"]
    assert (summary["passed"], summary["failed"], summary["not_checked"]) == (1, 1, 1)
    assert summary["checks_not_checked"] == 5
    at = lines.index(
        "not checked (state fields the engine does not report): 5 checks in 3 cases, "
        "1 of them with no check made:"
    )
    assert lines[at + 1 : at + 5] == [
        "  hand_values 1, offer 1, pickable 1, deck 1, out_of_play 1",
        "  harness-check-fails [dhumbal]: step 2 (line 14): hand_values",
        "  harness-pass-run-ends [dashain]: step 4 (line 22): offer, pickable",
        "  only-checks [dhumbal]: step 1 (line 8): deck, out_of_play",
    ]
    assert lines[-1].startswith("== 1 passed, 1 failed, 1 not checked (3 cases) in ")
    cases = {c.get("name"): c for c in junit.iter("testcase")}
    assert cases["only-checks"].find("skipped").get("message") == (
        "not checked (state fields the engine does not report): step 1 (line 8): deck, out_of_play"
    )
    assert cases["harness-pass-run-ends"].findtext("system-out") == (
        "judged 5 accepted actions (4 moves), 1 refusal, 1 state\n"
        "not checked (state fields the engine does not report): step 4 (line 22): offer, pickable"
    )
    assert junit.find("testsuite").get("skipped") == "1"


@pytest.mark.e2e
def test_an_engine_reporting_every_field_has_everything_checked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Path
) -> None:
    engine = shlex.join([sys.executable, "-m", "reference_engine.server"])
    _, lines, report, _ = _run(capsys, tmp_path, corpus, engine)
    outcomes = {r["id"]: (r["outcome"], r["not_checked"]) for r in report["results"]}
    assert outcomes["only-checks"] == ("passed", [])
    assert outcomes["harness-pass-run-ends"] == ("passed", [])
    assert report["summary"]["checks_not_checked"] == 0
    assert not any(line.startswith("not checked") for line in lines)


def test_what_is_checked_is_decided_from_the_transcript(corpus: Path) -> None:
    only = load_transcript(corpus / "only-checks.yaml")
    passing = load_transcript(corpus / "harness-pass-run-ends.yaml")
    assert not_checked(only, None) == () and anything_checked(only, None)
    assert not anything_checked(only, FIELDS)
    assert anything_checked(only, FIELDS | {"deck"})  # one field of the check is made
    assert anything_checked(passing, frozenset())  # its actions are checks, whatever the state
    info = EngineInfo({}, "1.1", {"commands": [], "state_fields": ["phase", "deck"]})
    assert reported_fields(info) == frozenset({"phase", "deck"})
    assert reported_fields(EngineInfo({}, "1.1", {})) is None


def test_a_declared_field_is_still_required_by_the_schema() -> None:
    state = {"phase": "awaiting_deal", "hands": [[], []]}
    problems = schema_problems("state", {"seq": 1, "ok": True, "state": state})
    kept = unreported_dropped(problems, frozenset({"phase", "hands", "to_act"}))
    assert kept == ["state.schema.json#/required: 'to_act' is a required property (at $.state)"]
    assert len(unreported_dropped(problems, None)) == len(STATE_FIELDS) - 2


@pytest.mark.e2e
def test_checks_on_kit_kept_fields_are_said_to_be_the_kits(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Path
) -> None:
    code, lines, report, junit = _run(capsys, tmp_path, corpus, KIT)
    assert code == 1
    results = {r["id"]: r for r in report["results"]}
    assert {k: (r["outcome"], r["kit_kept"]) for k, r in results.items()} == {
        "harness-check-fails": ("failed", ["step 2 (line 14): hands, to_act"]),
        "harness-pass-run-ends": ("passed", ["step 4 (line 22): to_act, hands"]),
        # Its one check reads fields the kit keeps: nothing of the engine was checked.
        "only-checks": ("not_checked", ["step 1 (line 8): deck, out_of_play"]),
    }
    assert results["harness-check-fails"]["reason"] == (
        "the state differs from the check (hands: kept by the engine's kit, not the engine)"
    )
    assert report["summary"]["checks_kit_kept"] == 6
    at = lines.index(
        "kit-kept (state fields the engine's kit keeps, not the engine; not counted as the "
        "engine's): 6 checks in 3 cases:"
    )
    assert lines[at + 1] == "  hands 2, to_act 2, deck 1, out_of_play 1"
    cases = {c.get("name"): c for c in junit.iter("testcase")}
    assert cases["only-checks"].find("skipped").get("message") == (
        "kit-kept (state fields the engine's kit keeps, not the engine): "
        "step 1 (line 8): deck, out_of_play"
    )


def test_kit_kept_fields_are_compared_but_not_counted_as_the_engines(corpus: Path) -> None:
    only = load_transcript(corpus / "only-checks.yaml")
    # As a transcript refused at start is derived for rules that accept its start:
    start_only = dataclasses.replace(only, steps=())
    assert anything_checked(start_only, None, KEPT)  # the start accepted is the engine's
    passing = load_transcript(corpus / "harness-pass-run-ends.yaml")
    assert kit_kept(only, None, KEPT) == ("step 1 (line 8): deck, out_of_play",)
    assert kit_kept(only, None, frozenset()) == ()
    assert kit_kept(only, frozenset({"deck"}), KEPT) == ("step 1 (line 8): deck",)
    assert not anything_checked(only, None, KEPT)
    assert anything_checked(only, None, frozenset({"deck"}))  # out_of_play is the engine's
    assert anything_checked(passing, None, frozenset(STATE_FIELDS))  # its actions are checks
    info = EngineInfo({}, "1.1", {"commands": [], "kit_kept_fields": ["hands"]})
    assert kit_kept_fields(info) == frozenset({"hands"})
    assert kit_kept_fields(EngineInfo({}, "1.1", {})) == frozenset()


def test_a_failure_says_which_differing_fields_the_kit_keeps() -> None:
    differences = ['hands[1]: expected ["Qc"], got ["Qd"]', "to_act: expected 0, got 1"]
    assert _kept_note(differences, KEPT) == (
        " in fields the engine's kit keeps, not the engine (hands, to_act: kit-kept)"
    )
    assert _kept_note([*differences, "scores[0]: expected 1, got 2"], KEPT) == (
        " (hands, to_act: kept by the engine's kit, not the engine)"
    )
    assert _kept_note(["result.winners: expected [0], got [1]"], frozenset()) == ""
    assert _kept_note(["settlement: expected [], got null"], frozenset({"result"})) == (
        " in fields the engine's kit keeps, not the engine (result: kit-kept)"
    )
