"""Issue 24, second round: no file lost. Every report a command writes replaces the last
report of its kind, never someone's file, unless --force; refused before the work starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.reporting.outputs import (
    COVERAGE_JSON,
    FUZZ_JSON,
    RUN_JSON,
    RUN_JUNIT,
    SIMULATE_JSON,
)
from tests.cli_helpers import DATA, PASSING, jhyap

PRECIOUS = "my notes: not a report\n"

RUN = ("run", "--transcripts", str(DATA), "-k", PASSING, "-q")
COVERAGE = ("coverage", "--uncovered")
COVERAGE_OF_ONE = ("coverage", "--profile", "dashain")
SIMULATE = ("simulate", "dashain", "--seats", "2", "--games", "2")
FUZZ = ("fuzz", "--profile", "dashain", "--games", "1", "--seats", "2")

# (command, report option, what the refusal calls the report, its kind)
WRITERS = [
    (RUN, "--json", "a jhyap run JSON report", RUN_JSON),
    (RUN, "--junit", "a jhyap JUnit report", RUN_JUNIT),
    (COVERAGE, "--json", "a jhyap coverage JSON report", COVERAGE_JSON),
    (COVERAGE_OF_ONE, "--json", "a jhyap coverage JSON report", COVERAGE_JSON),
    (SIMULATE, "--json", "a jhyap simulate JSON report", SIMULATE_JSON),
    (FUZZ, "--json", "a jhyap fuzz JSON report", FUZZ_JSON),
]
IDS = ["run-json", "run-junit", "coverage", "coverage-profile", "simulate", "fuzz"]


@pytest.mark.parametrize(("command", "option", "what", "kind"), WRITERS, ids=IDS)
def test_a_report_never_replaces_a_file_that_is_not_one(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: tuple[str, ...],
    option: str,
    what: str,
    kind: object,
) -> None:
    monkeypatch.chdir(tmp_path)  # fuzz writes its findings under the working folder
    target = tmp_path / "mine.txt"
    target.write_text(PRECIOUS)
    code, out, err = jhyap(capsys, *command, option, str(target))
    assert (code, out) == (2, "")
    assert err == (
        f"jhyap {command[0]}: {option}: {target} exists and is not {what}; "
        "not replaced (--force replaces it)\n"
    )
    assert target.read_text() == PRECIOUS


@pytest.mark.parametrize(("command", "option", "what", "kind"), WRITERS, ids=IDS)
def test_a_report_replaces_its_own_kind_and_force_replaces_anything(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: tuple[str, ...],
    option: str,
    what: str,
    kind: object,
) -> None:
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "mine.txt"
    target.write_text(PRECIOUS)
    code, _, err = jhyap(capsys, *command, option, str(target), "--force")
    assert code in (0, 1), err
    written = target.read_text()
    assert kind.begins(written)  # type: ignore[attr-defined]
    # The report of the last run is replaced without --force.
    code, _, err = jhyap(capsys, *command, option, str(target))
    assert code in (0, 1), err
    assert kind.begins(target.read_text())  # type: ignore[attr-defined]


def test_an_empty_file_holds_nothing_to_lose(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "made-by-mktemp"
    target.write_text("")
    code, _, err = jhyap(capsys, *RUN, "--json", str(target))
    assert code == 0, err
    assert RUN_JSON.begins(target.read_text())


def test_no_kind_of_report_passes_for_another() -> None:
    kinds = [RUN_JSON, RUN_JUNIT, COVERAGE_JSON, SIMULATE_JSON, FUZZ_JSON]
    samples = {
        "run": '{\n  "format": "jhyap-conformance-report",\n  "format_version": 1,',
        "junit": '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="jhyap" tests="1"',
        "coverage": '{\n  "covered": 370,\n  "total": 370,',
        "coverage-profile": '{\n  "profile": "dashain",\n  "counts": {',
        "simulate": '{\n  "format": "jhyap-simulation",\n  "format_version": 1,',
        "fuzz": '{\n  "format": "jhyap-fuzz-report",\n  "format_version": 1,',
    }
    owners = {
        "run": RUN_JSON,
        "junit": RUN_JUNIT,
        "coverage": COVERAGE_JSON,
        "coverage-profile": COVERAGE_JSON,
        "simulate": SIMULATE_JSON,
        "fuzz": FUZZ_JSON,
    }
    for name, text in samples.items():
        assert [k for k in kinds if k.begins(text)] == [owners[name]], name
    profile_json = '{\n  "profile_format": 1,\n  "id": "mine"'
    assert not [k for k in kinds if k.begins(profile_json)]
