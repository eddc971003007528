"""Protocol clauses: the catalogue, raw-line steps, credit per step and profile, fragile engines."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.harness.client import EngineInfo
from conformance.harness.outcome import CaseStatus, Outcome
from conformance.harness.runner import RunResult
from conformance.reporting.coverage import coverage
from conformance.reporting.report import RerunInfo, failure_block, summary_lines
from conformance.spec.protocol import check_catalogue, protocol_clause_ids, protocol_clauses
from conformance.spec.transcript import check_transcript_file, load_corpus
from conformance.spec.transcript_profiles import shipped_documents
from tests.conftest import ROOT

FAKES = ROOT / "tests" / "fake_engines"
MUTANT_ENGINE = ROOT / "tests" / "mutants" / "engine.py"
# Codes an engine answers only when it declines or fails: no correct engine can be made
# to answer them, so no transcript expects them.
UNTESTABLE_CODES = {"unsupported_profile", "unsupported_option", "unsupported_command"}
UNTESTABLE_CODES |= {"internal_error"}


def jhyap(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "conformance", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


def fake(name: str) -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(FAKES / name))}"


# -- the catalogue ------------------------------------------------------------------------


def test_the_catalogue_is_valid_and_every_interpretation_says_why() -> None:
    assert check_catalogue() == []
    clauses = protocol_clauses()
    assert len(clauses) == len(set(protocol_clause_ids())) >= 20
    for clause in clauses:
        assert str(clause["id"]).startswith("protocol.")
        assert ("reason" in clause) == (clause["status"] == "interpretation"), clause["id"]


def test_a_broken_catalogue_is_reported_with_file_and_line(tmp_path: Path) -> None:
    text = (ROOT / "specs" / "protocol" / "clauses.yaml").read_text("utf-8")
    broken = tmp_path / "clauses.yaml"
    broken.write_text(text.replace("status: normative", "status: maybe", 1), "utf-8")
    problems = check_catalogue(broken)
    assert len(problems) == 1
    assert problems[0].file == str(broken) and problems[0].field.endswith(".status")
    assert problems[0].line == text[: text.index("status: normative")].count("\n") + 1


def test_docs_protocol_names_every_protocol_clause() -> None:
    text = (ROOT / "docs" / "protocol.md").read_text("utf-8")
    assert [c for c in protocol_clause_ids() if f"`{c}`" not in text] == []


@pytest.mark.e2e
def test_coverage_lists_every_protocol_clause_covered() -> None:
    transcripts, problems = load_corpus()
    assert problems == []
    table = coverage(shipped_documents(), transcripts)
    rows = {cid: entry for cid, entry in table.items() if cid.startswith("protocol.")}
    assert sorted(rows) == sorted(protocol_clause_ids())
    assert {cid: e["transcripts"] for cid, e in rows.items() if not e["transcripts"]} == {}
    assert all(e["profile"] == "protocol" for e in rows.values())
    result = jhyap("coverage")
    assert result.returncode == 0, result.stdout[-2000:]
    for cid in protocol_clause_ids():
        line = next(row for row in result.stdout.splitlines() if row.startswith(cid + " "))
        assert "(uncovered)" not in line


def test_the_corpus_expects_every_error_code_a_correct_engine_can_answer() -> None:
    codes = json.loads((ROOT / "schema" / "protocol" / "error-codes.schema.json").read_text())
    transcripts, _ = load_corpus()
    expected = {t.start_error for t in transcripts} | {
        s.expect.error for t in transcripts for s in t.steps
    }
    assert set(codes["enum"]) - UNTESTABLE_CODES - expected == set()


def test_raw_steps_cover_every_step_of_the_order_of_checks() -> None:
    transcripts, _ = load_corpus()
    raw_clauses = {c for t in transcripts for s in t.steps if s.kind == "raw" for c in s.clauses}
    order = {c for c in protocol_clause_ids() if c.startswith("protocol.order-of-checks.")}
    listed = {c for t in transcripts for c in t.clauses}
    assert order <= listed
    wanted = {"protocol.seq.null", "protocol.transport.not-json", "protocol.transport.line-limit"}
    assert wanted <= raw_clauses


# -- the transcript format ------------------------------------------------------------------

HEADER = """id: {id}
title: t
kind: oracle
profiles: [dhumbal]
seats: 2
clauses: [protocol.seq.null]
"""


def _transcript(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(HEADER.format(id=name) + body, "utf-8")
    return path


def test_a_step_clause_must_be_among_the_transcripts_clauses(tmp_path: Path) -> None:
    path = _transcript(
        tmp_path,
        "step-clause",
        "steps:\n  - raw: {text: x}\n    expect: {error: bad_request, seq: null}\n"
        "    clauses: [protocol.seq.echo]\n",
    )
    problems = check_transcript_file(path)
    assert [(p.line, p.field) for p in problems] == [(10, "steps[0].clauses[0]")]
    assert "not among the transcript's clauses" in problems[0].message


def test_a_raw_step_is_one_of_text_json_or_oversize(tmp_path: Path) -> None:
    path = _transcript(tmp_path, "raw-two", "steps:\n  - raw: {text: x, oversize: 2000000}\n")
    assert [p.field for p in check_transcript_file(path)] == ["steps[0].raw"]


def test_only_raw_steps_state_a_seq(tmp_path: Path) -> None:
    path = _transcript(
        tmp_path,
        "seq-act",
        "steps:\n  - deal: {starter: 0, hands: {0: [Ac], 1: [2c]}, turned_up: 3c}\n"
        "  - act: {seat: 0, call: true}\n    expect: {error: call_over_limit, seq: null}\n",
    )
    assert [p.field for p in check_transcript_file(path)] == ["steps[1].expect.seq"]


def test_before_start_a_step_must_expect_an_error(tmp_path: Path) -> None:
    path = tmp_path / "fresh.yaml"
    path.write_text(
        HEADER.format(id="fresh").replace("seats: 2\n", "seats: 2\nfresh_engine: true\n")
        + "steps:\n  - check: {phase: awaiting_deal}\n  - start: {}\n",
        "utf-8",
    )
    problems = check_transcript_file(path)
    assert [(p.field, p.message) for p in problems] == [
        ("steps[0].check", "before the table is started a step must expect an error")
    ]


# -- credit and reports ------------------------------------------------------------------------


def _outcome(status: CaseStatus, clauses: tuple[str, ...], **extra: Any) -> Outcome:
    return Outcome(status, "t-" + status, "dhumbal", clauses=clauses, file="t.yaml", **extra)


def _result(*outcomes: Outcome) -> RunResult:
    return RunResult(list(outcomes), EngineInfo({"name": "e", "version": "1"}, "1.0", {}), 1.0)


TOP_TITLE = "top failing clauses, by first, then failed, then clause:"


def test_failing_clauses_are_ranked_by_first_then_failed_then_clause() -> None:
    failed = CaseStatus.FAILED
    result = _result(
        _outcome(failed, ("dhumbal.turn.order", "dhumbal.deal.order")),
        _outcome(failed, ("dhumbal.turn.order", "dhumbal.call.limit")),
        _outcome(failed, ("dhumbal.pick.deck", "dhumbal.call.limit")),
        _outcome(failed, ("dhumbal.call.limit", "dhumbal.deal.order")),
        _outcome(failed, ("dhumbal.call.after", "dhumbal.deal.order")),
    )
    legend = (
        "  (first: failed cases naming the clause first, as the rule most likely broken; "
        "failed: failed cases crediting it)"
    )
    lines = summary_lines(result)
    at = lines.index(TOP_TITLE)
    assert lines[at : at + 9] == [
        TOP_TITLE,
        legend,
        "  clause              first  failed",
        "  dhumbal.turn.order      2       2",
        "  dhumbal.call.limit      1       3",
        "  dhumbal.call.after      1       1",  # equal counts: by clause id
        "  dhumbal.pick.deck       1       1",
        "  dhumbal.deal.order      0       3",
        "",
    ]
    lines = summary_lines(result, top=2)
    at = lines.index(TOP_TITLE)
    assert lines[at + 2 : at + 7] == [
        "  clause              first  failed",
        "  dhumbal.turn.order      2       2",
        "  dhumbal.call.limit      1       3",
        "  ... and 3 more clauses: each failure above lists its clauses",
        "",
    ]
    # -v: the table by clause family says where the families it leaves out are.
    lines = summary_lines(result, top=2, verbosity=1)
    at = lines.index("clause family  passed  failed  other")
    assert lines[at : at + 5] == [
        "clause family  passed  failed  other",
        "dhumbal.call        0       4      0",
        "dhumbal.deal        0       3      0",
        "... and 2 more families, none with more failures (a --json report gives each case's "
        "clauses)",
        "",
    ]


def test_known_failures_and_unexpected_passes_are_not_failing_clauses() -> None:
    lines = summary_lines(
        _result(
            _outcome(CaseStatus.FAILED, ("dhumbal.deal.order",)),
            _outcome(CaseStatus.XFAIL, ("dhumbal.scoring.won-show",), known_failure="slow port"),
            _outcome(CaseStatus.XPASS, ("dhumbal.showdown.failed",), known_failure="fixed since"),
            _outcome(CaseStatus.PASSED, ("protocol.seq.echo",)),
        ),
        verbosity=1,  # the tables by clause family are -v output
    )
    text = "\n".join(lines)
    top = lines[lines.index(TOP_TITLE) + 3 :]  # after the legend and the columns' names
    assert top[0].split() == ["dhumbal.deal.order", "1", "1"]
    assert not top[1].strip().startswith("dhumbal")  # nothing else is ranked
    assert "unexpected passes (listed as known failures; remove the entries):" in lines
    assert "  t-xpass [dhumbal]: fixed since" in lines
    family = {row.split()[0]: row.split()[1:] for row in lines if row.startswith("dhumbal.")}
    assert family["dhumbal.deal"] == ["0", "1", "0"]
    assert family["dhumbal.scoring"] == ["0", "0", "1"]
    assert family["dhumbal.showdown"] == ["0", "0", "1"]
    assert "known failures (xfail):" in text


def test_an_unexpected_pass_block_names_no_clause() -> None:
    block = failure_block(
        _outcome(CaseStatus.XPASS, ("dhumbal.showdown.failed",), known_failure="x"), RerunInfo()
    )
    assert not any(line.strip().startswith("clauses:") for line in block)


def test_the_rerun_line_repeats_every_non_default_option() -> None:
    rerun = RerunInfo(
        engine="./my-engine --fast",
        transcripts="mine/",
        timeout=2.5,
        profile_files={"dhumbal-house": "profiles/house.yaml"},
        validate_protocol=False,
        known_failures="known.yaml",
        engine_env=("RULES=house", "HOME"),
        engine_memory=512,
        engine_cpu=30,
    )
    outcome = Outcome(CaseStatus.FAILED, "t", "dhumbal-house", file="t.yaml")
    assert rerun.command(outcome) == (
        "jhyap run -k t --profile profiles/house.yaml --engine './my-engine --fast' "
        "--engine-env=RULES=house --engine-env=HOME --engine-memory 512 --engine-cpu 30 "
        "--transcripts mine/ --timeout 2.5 --no-validate-protocol --known-failures known.yaml"
    )
    assert RerunInfo().command(outcome) == "jhyap run -k t --profile dhumbal-house"


@pytest.mark.e2e
def test_the_run_command_puts_the_profile_file_and_timeout_in_the_rerun_line(
    tmp_path: Path,
) -> None:
    profile = tmp_path / "house.yaml"
    profile.write_text((ROOT / "specs" / "dhumbal.yaml").read_text("utf-8"), "utf-8")
    result = jhyap(
        "run",
        "--engine",
        fake("unknown_fields.py"),
        "--profile",
        str(profile),
        "-k",
        "dhumbal-call-limit-5",
        "--timeout",
        "7",
        "--engine-env",
        "JHYAP_HOUSE=1",
    )
    assert result.returncode == 1, result.stderr
    rerun = [line.strip() for line in result.stdout.splitlines() if "rerun:" in line]
    assert rerun == [
        f"rerun: jhyap run -k dhumbal-call-limit-5 --profile {profile} --engine "
        f"{shlex.quote(fake('unknown_fields.py'))} --engine-env=JHYAP_HOUSE=1 --timeout 7"
    ]


# -- engines ---------------------------------------------------------------------------------


def _run_json(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], Any]:
    report = tmp_path / "report.json"
    result = jhyap("run", "--json", str(report), *args)
    assert report.exists(), result.stdout[-2000:] + result.stderr[-2000:]
    return result, json.loads(report.read_text("utf-8"))


@pytest.mark.parametrize(
    ("engine", "status", "clause"),
    [
        ("crash_on_non_json.py", "crashed", "protocol.transport.not-json"),
        ("unknown_fields.py", "failed", "protocol.messages.schema"),
        ("null_out_hands.py", "failed", "protocol.messages.schema"),
    ],
)
@pytest.mark.e2e
def test_each_fragile_engine_fails_a_default_run_naming_a_protocol_clause(
    engine: str, status: str, clause: str, tmp_path: Path
) -> None:
    # The transcripts about the protocol and the game that puts seats out: enough to fail.
    selection = ("-k", "protocol-*", "-k", "dhumbal-game-to-last-player", "-k", "shared-*")
    result, report = _run_json(tmp_path, "--engine", fake(engine), "--jobs", "2", *selection)
    assert result.returncode == 1
    bad = [r for r in report["results"] if r["outcome"] not in ("passed", "skipped")]
    assert bad and {r["outcome"] for r in bad} == {status}
    assert all(clause in r["clauses"] for r in bad), bad[0]
    assert f"  clauses: {clause}" in result.stdout


@pytest.mark.e2e
def test_the_unknown_field_is_named_in_the_report(tmp_path: Path) -> None:
    result = jhyap("run", "--engine", fake("unknown_fields.py"), "-k", "shared-turn-phases")
    assert (
        "event.schema.json#/$defs/dealt/additionalProperties: 'debug' does not match any of "
        "the regexes: '^x-' (at $.events[1])"
    ) in result.stdout
    # what was expected is said in words: an answer the schema allows, never "null"
    assert '  expected: "an answer that schema/protocol/ allows for deal"' in result.stdout
    assert "expected: null" not in result.stdout
    off = jhyap(
        "run",
        "--engine",
        fake("unknown_fields.py"),
        "-k",
        "shared-turn-phases",
        "--no-validate-protocol",
    )
    assert off.returncode == 0, off.stdout[-2000:]


@pytest.mark.e2e
def test_a_null_hand_value_is_caught_by_the_seat_out_check_without_schemas(
    tmp_path: Path,
) -> None:
    result, report = _run_json(
        tmp_path,
        "--engine",
        fake("null_out_hands.py"),
        "--no-validate-protocol",
        "-k",
        "dhumbal-game-to-last-player",
    )
    assert result.returncode == 1
    (entry,) = report["results"]
    assert entry["clauses"] == ["protocol.state.seat-out"]
    assert entry["differences"] == ["hand_values[3]: expected 0, got null"]


@pytest.mark.e2e
def test_a_broken_engine_under_one_profile_is_credited_to_that_profiles_clauses_only(
    tmp_path: Path,
) -> None:
    engine = f"{shlex.quote(sys.executable)} {shlex.quote(str(MUTANT_ENGINE))} deal_in_blocks"
    result, report = _run_json(tmp_path, "--engine", engine, "--profile", "dhumbal", "-j", "2")
    assert result.returncode == 1
    named = {c for r in report["results"] for c in r["clauses"]}
    assert named and all(c.startswith(("dhumbal.", "protocol.")) for c in named), named
    words = {w.strip(",") for line in result.stdout.splitlines() for w in line.split()}
    assert not [w for w in words if w.startswith(("dashain.", "everestbuzz."))]
    rows = result.stdout.split(TOP_TITLE)[1].split("\n\n")[0].splitlines()[3:]
    assert "dhumbal.scoring.won-show" not in [row.split()[0] for row in rows[:2]]


@pytest.mark.e2e
def test_jhyap_validate_checks_the_catalogue(tmp_path: Path) -> None:
    text = (ROOT / "specs" / "protocol" / "clauses.yaml").read_text("utf-8")
    broken = tmp_path / "clauses.yaml"
    broken.write_text(text.replace("family: seq", "family: sequence", 1), "utf-8")
    result = jhyap("validate", str(broken))
    line = text[: text.index("family: seq")].count("\n") + 1
    assert (result.returncode, result.stdout.splitlines()[0].split(": ")[0]) == (
        1,
        f"{broken}:{line}",
    )
    assert jhyap("validate", str(ROOT / "specs" / "protocol")).stdout == "OK: 1 file valid\n"
