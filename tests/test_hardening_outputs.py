"""Issue 24, second round: no file lost, no number or path that ends in a traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conformance import cli

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "transcripts"
PASSING = "harness-pass-run-ends"


def jhyap(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_run_refuses_one_file_for_both_reports(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "report"
    args = ("run", "--transcripts", str(DATA), "-k", PASSING, "-q")
    code, out, err = jhyap(capsys, *args, "--json", str(report), "--junit", str(report))
    assert (code, out) == (2, "")
    assert err == (
        f"jhyap run: --json and --junit name the same file ({report}); give each its own\n"
    )
    assert not report.exists()  # refused before anything ran or was written


@pytest.mark.parametrize("spelling", ["./r.json", "sub/../r.json", "link.json", "hard.json"])
def test_run_sees_every_spelling_of_one_file(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    spelling: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "r.json").write_text("keep\n")
    os.symlink("r.json", tmp_path / "link.json")
    os.link(tmp_path / "r.json", tmp_path / "hard.json")
    args = ("run", "--transcripts", str(DATA), "-k", PASSING, "-q")
    code, _, err = jhyap(capsys, *args, "--json", "r.json", "--junit", spelling)
    assert code == 2
    assert err == (
        f"jhyap run: --json and --junit name the same file (r.json and {spelling}); "
        "give each its own\n"
    )
    assert (tmp_path / "r.json").read_text() == "keep\n"


def test_run_report_never_replaces_its_known_failures(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    known = tmp_path / "known.json"
    known.write_text("[]\n")
    args = ("run", "--transcripts", str(DATA), "-k", PASSING, "-q")
    code, _, err = jhyap(capsys, *args, "--known-failures", str(known), "--junit", str(known))
    assert code == 2
    assert err == (
        f"jhyap run: --junit and --known-failures name the same file ({known}); give each its own\n"
    )
    assert known.read_text() == "[]\n"


def test_run_replaces_last_runs_reports(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A report replaces the report of the last run, as pytest's --junitxml does."""
    json_file, junit = tmp_path / "r.json", tmp_path / "r.xml"
    json_file.write_text("old\n")
    junit.write_text("old\n")
    args = ("run", "--transcripts", str(DATA), "-k", PASSING, "-q")
    code, _, _ = jhyap(capsys, *args, "--json", str(json_file), "--junit", str(junit))
    assert code == 0
    assert json_file.read_text().startswith("{")
    assert junit.read_text().startswith("<?xml")


def test_simulate_json_never_replaces_its_profile(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    profile = tmp_path / "mine.yaml"
    text = (ROOT / "specs" / "dhumbal.yaml").read_text()
    profile.write_text(text)
    code, out, err = jhyap(capsys, "simulate", str(profile), "--games", "2", "--json", str(profile))
    assert (code, out) == (2, "")
    assert err == (
        f"jhyap simulate: --json and PROFILE name the same file ({profile}); give each its own\n"
    )
    assert profile.read_text() == text


def test_fuzz_json_never_replaces_its_known_divergences(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    known = tmp_path / "known.json"
    known.write_text("[]\n")
    code, _, err = jhyap(
        capsys, "fuzz", "--games", "1", "--json", str(known), "--known-divergences", str(known)
    )
    assert code == 2
    assert err == (
        f"jhyap fuzz: --json and --known-divergences name the same file ({known}); "
        "give each its own\n"
    )
    assert known.read_text() == "[]\n"
