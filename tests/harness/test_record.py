"""`jhyap record`: a seeded random game becomes a regression transcript that replays."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cli import main
from conformance.spec.transcript import load_transcript


@pytest.mark.e2e
def test_a_recording_is_deterministic_labelled_and_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for folder in ("a", "b"):
        assert (
            main(["record", "dhumbal", str(tmp_path / folder), "--seats", "3", "--seed", "7"]) == 0
        )
    name = "regression-dhumbal-3-seats-seed-7.yaml"
    first = (tmp_path / "a" / name).read_text("utf-8")
    assert first == (tmp_path / "b" / name).read_text("utf-8")
    assert first.startswith("# Recorded by jhyap record: a regression set, not an oracle.\n")
    transcript = load_transcript(tmp_path / "a" / name)
    assert transcript.kind == "regression"
    assert transcript.profiles == ("dhumbal",)
    capsys.readouterr()
    assert main(["run", "--transcripts", str(tmp_path / "a")]) == 0
    assert "== 1 passed (1 case)" in capsys.readouterr().out


def test_a_bad_seat_count_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["record", "everestbuzz", str(tmp_path), "--seats", "6"]) == 2
    assert capsys.readouterr().err == "jhyap record: seats must be 2 to 5, not 6\n"


def test_a_malformed_option_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["record", "everestbuzz", str(tmp_path), "--seats", "3", "-o", "table"]) == 2
    assert capsys.readouterr().err == "jhyap record: --option expects NAME=VALUE, not 'table'\n"
