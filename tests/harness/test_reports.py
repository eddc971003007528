"""The report files of ``jhyap run``: the JSON report against schema/report.schema.json,
the JUnit XML against Jenkins' junit-10.xsd (tests/data/junit/, source noted there)."""

from __future__ import annotations

import datetime
import json
import os
import shlex
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from lxml import etree  # type: ignore[import-untyped]

from conformance import __version__, cli
from conformance.harness.client import EngineInfo
from conformance.harness.outcome import Judged, Outcome
from conformance.harness.runner import RunResult
from conformance.reporting.json_junit import ReportContext, json_report, junit_report

ROOT = Path(__file__).resolve().parents[2]
FAKES = ROOT / "tests" / "fake_engines"
DATA_ARG = os.path.relpath(ROOT / "tests" / "data" / "transcripts", ROOT)
XSD = ROOT / "tests" / "data" / "junit" / "junit-10.xsd"
SCHEMA = ROOT / "schema" / "report.schema.json"
PASSING = "harness-pass-run-ends"
WRONG = "harness-wrong-expectation"


@pytest.fixture(autouse=True)
def _in_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA.read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )


def problems(report: Any) -> list[str]:
    return [f"{e.json_path}: {e.message}" for e in validator().iter_errors(report)]


def xsd() -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(XSD)))


def run(capsys: pytest.CaptureFixture[str], tmp_path: Path, *args: str) -> tuple[Any, Path]:
    report, junit = tmp_path / "r.json", tmp_path / "r.xml"
    argv = ["run", "--transcripts", DATA_ARG, *args, "--json", str(report), "--junit", str(junit)]
    cli.main(argv)
    capsys.readouterr()
    return json.loads(report.read_text("utf-8")), junit


@pytest.mark.e2e
def test_the_json_report_is_versioned_and_valid(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    known = tmp_path / "known.yaml"
    known.write_text(f"- id: {WRONG}\n  reason: 'under discussion (issue #12)'\n")
    before = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    report, _ = run(capsys, tmp_path, "--known-failures", str(known))
    assert problems(report) == []
    assert report["format"] == "jhyap-conformance-report"
    assert report["format_version"] == 1
    assert report["complete"] is True
    assert report["summary"]["selected"] == report["summary"]["total"] == len(report["results"])
    assert report["tool"] == {
        "name": "jhyap-conformance",
        "version": __version__,
        "protocol": "1.2",
    }
    created = datetime.datetime.fromisoformat(report["created"])
    assert before <= created <= datetime.datetime.now(datetime.UTC)
    assert report["command"][:4] == ["jhyap", "run", "--transcripts", DATA_ARG]
    assert report["corpus"] == {"source": DATA_ARG, "root": (ROOT / DATA_ARG).as_posix()}
    assert report["engine"]["name"] == "jhyap-reference"
    assert report["engine"]["language"] == "python"
    outcomes = {r["id"]: r for r in report["results"]}
    assert outcomes[PASSING]["failure"] is None
    xfail = outcomes[WRONG]
    assert xfail["outcome"] == "xfail"
    assert xfail["known_failure"] == "under discussion (issue #12)"
    assert xfail["failure"]["location"] == f"{DATA_ARG}/{WRONG}.yaml:17"


@pytest.mark.e2e
def test_a_failure_carries_objects_not_just_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report, _ = run(capsys, tmp_path, "-k", WRONG)
    assert problems(report) == []
    (result,) = report["results"]
    failure = result["failure"]
    assert failure == {
        "summary": 'events[0].card: expected "3c", got "2c" (step 3: seat 0 picks from the deck)',
        "location": f"{DATA_ARG}/{WRONG}.yaml:17",
        "step_description": "seat 0 picks from the deck",
        "request": {"seq": failure["request"]["seq"], "cmd": "act", "seat": 0,
                    "action": {"type": "pick", "from": "deck"}},
        "expected": [
            {"type": "picked", "seat": 0, "from": "deck", "card": "3c"},
            {"type": "out_of_play", "cards": ["Ks"]},
        ],
        "actual": [
            {"type": "picked", "seat": 0, "from": "deck", "card": "2c"},
            {"type": "out_of_play", "cards": ["Ks"]},
        ],
        "state_changed_on_refusal": False,
        "stderr_tail": [],
        "rerun": f"jhyap run -k {WRONG} --profile dashain --transcripts {DATA_ARG}",
    }  # fmt: skip


@pytest.mark.e2e
def test_a_crash_keeps_the_engine_stderr(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pids: Path
) -> None:
    engine = shlex.join([sys.executable, str(FAKES / "crash_mid_game.py")])
    report, junit = run(capsys, tmp_path, "-k", PASSING, "--engine", engine, "--timeout", "5")
    assert problems(report) == []
    (result,) = report["results"]
    assert result["outcome"] == "crashed"
    assert result["failure"]["stderr_tail"] == [
        "fake engine: about to fall over",
        "Traceback (most recent call last): boom",
    ]
    # the rerun line repeats every non-default option, the timeout too
    assert result["failure"]["rerun"].endswith(f"--engine {shlex.quote(engine)} "
                                               f"--transcripts {DATA_ARG} --timeout 5")  # fmt: skip
    assert xsd().validate(etree.parse(str(junit))), xsd().error_log


@pytest.mark.e2e
def test_the_schema_catches_a_broken_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report, _ = run(capsys, tmp_path, "-k", WRONG)
    report["results"][0]["outcome"] = "fine"
    del report["results"][0]["failure"]["rerun"]
    report["format_version"] = 2
    assert problems(report) == [
        "$.format_version: 1 was expected",
        "$.results[0].outcome: 'fine' is not one of ['passed', 'failed', 'empty', 'errored', "
        "'crashed', 'timed_out', 'skipped', 'xfail', 'xpass', 'not_applicable', 'not_checked']",
        "$.results[0].failure: {'summary': " + problems(report)[2].split("{'summary': ")[1],
    ]
    assert problems(report)[2].endswith("is not valid under any of the given schemas")


@pytest.mark.e2e
def test_later_keys_are_allowed_where_the_schema_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report, _ = run(capsys, tmp_path, "-k", WRONG)
    report["readings"] = {"dashain": ["a reading"]}
    report["summary"]["clauses"] = {"dashain.pick.out-of-play": "failed"}
    report["results"][0]["step_clauses"] = [["dashain.pick.out-of-play"]]
    assert problems(report) == []
    report["results"][0]["failure"]["hint"] = "closed: a failure has exactly its keys"
    assert problems(report) == [
        "$.results[0].failure: " + problems(report)[0].split(": ", 1)[1],
    ]


def test_every_status_of_the_schema_is_a_status_of_the_harness() -> None:
    from conformance.harness.outcome import STATUSES

    schema = json.loads(SCHEMA.read_text("utf-8"))
    outcome = schema["$defs"]["outcome"]
    assert outcome["enum"] == list(STATUSES)
    assert len(outcome["enumDescriptions"]) == len(STATUSES)
    modes = ["modes", "passed_as_written", "passed_derived", "passed_reseated"]
    required = [*STATUSES, "total", "wall_time", *modes, "checks_not_checked", "judged"]
    assert list(schema["properties"]["summary"]["required"]) == required
    # "selected" and "checks_kit_kept" are written always but optional: reports of 0.2.0
    # before them lack them.
    optional = {"selected", "checks_kit_kept"}
    assert set(schema["properties"]["summary"]["properties"]) == {*required, *optional}


@pytest.mark.e2e
def test_junit_is_valid_against_the_jenkins_xsd_with_relative_paths(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    known = tmp_path / "known.yaml"
    known.write_text(f"- id: {PASSING}\n  reason: was broken once\n")
    _, junit = run(capsys, tmp_path, "--known-failures", str(known))
    document = etree.parse(str(junit))
    schema = xsd()
    assert schema.validate(document), schema.error_log
    cases = document.getroot().findall("testsuite/testcase")
    assert [(c.get("name"), c.get("file"), c.get("line")) for c in cases] == [
        ("harness-check-fails", f"{DATA_ARG}/harness-check-fails.yaml", "14"),
        ("harness-game-end", f"{DATA_ARG}/harness-game-end.yaml", "1"),
        (PASSING, f"{DATA_ARG}/{PASSING}.yaml", "1"),
        ("harness-timeout", f"{DATA_ARG}/harness-timeout.yaml", "1"),
        (WRONG, f"{DATA_ARG}/{WRONG}.yaml", "17"),
    ]
    assert document.getroot().get("skipped") is None  # not an attribute of testsuites
    assert document.getroot().find("testsuite").get("skipped") == "0"


def test_the_xsd_catches_what_it_checks() -> None:
    broken = etree.fromstring(b'<testsuites skipped="1"><testsuite tests="1"/></testsuites>')
    assert not xsd().validate(broken)


def test_paths_outside_the_working_directory_are_relative_to_the_corpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "corpus"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    context = ReportContext(engine_command="e", transcripts=str(corpus))
    assert context.report_path(str(corpus / "sub" / "a.yaml")) == "sub/a.yaml"
    monkeypatch.chdir(tmp_path)
    assert context.report_path(str(corpus / "sub" / "a.yaml")) == "corpus/sub/a.yaml"
    shipped = ReportContext(engine_command="e")
    from conformance.spec.data import transcripts_dir

    monkeypatch.chdir(elsewhere)
    assert shipped.report_path(str(transcripts_dir() / "shared-deal-order.yaml")) == (
        "shared-deal-order.yaml"
    )


def test_every_outcome_makes_a_valid_report() -> None:
    from conformance.harness.outcome import STATUSES

    outcomes = [
        Outcome(
            status,
            f"t-{status}",
            "dhumbal",
            clauses=("dhumbal.x",),
            file=str(ROOT / DATA_ARG / "x.yaml"),
            line=3,
            step=None if status in ("passed", "skipped", "xpass") else 1,
            step_description="deal",
            request={"cmd": "deal"},
            expected={"a": (1, 2)},
            actual=None,
            differences=("a: expected 1, got 2",),
            reason="why\x07",
            stderr_tail=("a\x00b",),
            known_failure="listed" if status in ("xfail", "xpass") else None,
            judged=Judged(accepted=3, moves=2, refusals=1, states=4),
        )
        for status in STATUSES
    ]
    # A derived pass and a derived failure carry a system-out line in JUnit.
    outcomes += [
        replace(o, transcript_id=f"{o.transcript_id}-derived", mode="derived", mode_note="why")
        for o in outcomes
        if o.status in ("passed", "failed")
    ]
    info = EngineInfo(engine={"name": "e", "version": "1"}, protocol="1.0", supports={})
    result = RunResult(outcomes, info, 1.5)
    context = ReportContext(engine_command="e", transcripts=DATA_ARG, argv=("jhyap", "run"))
    report = json.loads(json.dumps(json_report(result, context), default=list))
    assert problems(report) == []
    assert [r["failure"] is None for r in report["results"]] == [
        s in ("passed", "skipped", "not_applicable", "not_checked")
        for s in [*STATUSES, "passed", "failed"]
    ]
    assert [r["mode"] for r in report["results"][-2:]] == ["derived", "derived"]
    document = etree.fromstring(junit_report(result, context).encode("utf-8"))
    assert xsd().validate(document), xsd().error_log
    outs = {c.get("name"): c.findtext("system-out") for c in document.iter("testcase")}
    counts = "judged 3 accepted actions (2 moves), 1 refusal, 4 states"
    assert outs["t-passed-derived"] == outs["t-failed-derived"] == f"derived: why\n{counts}"
    assert outs["t-passed"] == counts
    # What each case judged: in the JSON report, and as the JUnit testcase's assertions.
    judged = {"accepted": 3, "moves": 2, "refusals": 1, "states": 4}
    assert {json.dumps(r["judged"]) for r in report["results"]} == {json.dumps(judged)}
    n = len(outcomes)
    totals = {"accepted": 3 * n, "moves": 2 * n, "refusals": n, "states": 4 * n}
    assert report["summary"]["judged"] == totals
    assert {c.get("assertions") for c in document.iter("testcase")} == {"8"}
    (suite,) = document.iter("testsuite")
    assert suite.get("assertions") == str(8 * n)
    named = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert named == {f"judged.{k}": str(v) for k, v in totals.items()}
    # A case that judged nothing is a failure in JUnit, and has a failure in the JSON report.
    (empty,) = [c for c in document.iter("testcase") if c.get("name") == "t-empty"]
    assert [child.tag for child in empty] == ["failure", "system-out"]
    assert empty.find("failure").get("type") == "empty"
    assert suite.get("failures") == "4"  # failed, empty, xpass, and the derived failure
