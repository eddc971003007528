"""A user's own variant: a profile file, its transcripts, `jhyap validate` and `jhyap run`."""

from __future__ import annotations

import copy
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.cli import main
from tests.conftest import profile_document

pytestmark = pytest.mark.e2e

# A failed show in a two-seat hand: seat 0 shows on 9 (A A 2 2 3), seat 1 holds the same.
FAILED_SHOW = """\
id: kathmandu-failed-show-costs-30
title: "Kathmandu: a failed show costs the caller its hand plus 30"
kind: oracle
profiles: [kathmandu]
seats: 2
clauses: [kathmandu.scoring.failed-show-30]
steps:
  - deal:
      starter: 0
      hands:
        0: [Ac, Ad, 2c, 2d, 3c]
        1: [Ah, As, 2h, 2s, 3d]
      turned_up: Kh
  - act: {seat: 0, call: true}
    expect:
      events:
        - {type: called, seat: 0, value: 9}
        - {type: round_ended, outcome: beaten_call, winner: 1, deltas: [39, 0]}
"""


def kathmandu() -> dict[str, Any]:
    """The Dhumbal table with Yaniv's 30-point penalty: a variant as a user would write it."""
    variant = copy.deepcopy(profile_document("dhumbal"))
    variant["id"] = "kathmandu"
    variant["name"] = "Kathmandu house rules"
    variant["rules"]["scoring"]["beaten_penalty"] = 30
    for clause in variant["clauses"]:
        clause["id"] = clause["id"].replace("dhumbal.", "kathmandu.", 1)
    for reading in variant["readings"]:
        reading["clauses"] = [c.replace("dhumbal.", "kathmandu.", 1) for c in reading["clauses"]]
    variant["clauses"].append(
        {
            "id": "kathmandu.scoring.failed-show-30",
            "family": "scoring",
            "statement": "A failed show costs the caller its own points plus 30.",
            "source": {"document": "house", "section": "Penalty"},
            "status": "normative",
            "params": ["scoring.beaten_penalty"],
        }
    )
    return variant


def write_profile(folder: Path, variant: dict[str, Any]) -> Path:
    path = folder / "kathmandu.yaml"
    path.write_text(yaml.safe_dump(variant, allow_unicode=True, sort_keys=False), "utf-8")
    return path


@pytest.fixture
def variant_dir(tmp_path: Path) -> Path:
    write_profile(tmp_path, kathmandu())
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    (transcripts / "kathmandu-failed-show-costs-30.yaml").write_text(FAILED_SHOW, "utf-8")
    return tmp_path


def test_a_variant_runs_with_its_own_transcripts(
    variant_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", str(variant_dir)]) == 0
    assert capsys.readouterr().out == "OK: 2 files valid\n"
    status = main(
        [
            "run",
            "--profile",
            str(variant_dir / "kathmandu.yaml"),
            "--transcripts",
            str(variant_dir / "transcripts"),
        ]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    assert "== 1 passed (1 case)" in out


def test_the_variant_transcript_fails_under_the_shipped_penalty(
    variant_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same transcript aimed at a profile with penalty 25 fails: the check has teeth."""
    variant = kathmandu()
    variant["rules"]["scoring"]["beaten_penalty"] = 25
    write_profile(variant_dir, variant)
    status = main(
        [
            "run",
            "--profile",
            str(variant_dir / "kathmandu.yaml"),
            "--transcripts",
            str(variant_dir / "transcripts"),
        ]
    )
    out = capsys.readouterr().out
    assert status == 1
    assert "round_ended" in out and "39" in out and "34" in out


# -- docs/variants.md, followed word for word ---------------------------------------

VARIANTS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "variants.md"


def _page_files(text: str) -> dict[str, str]:
    """The files the page tells the reader to save: code blocks titled with their path."""
    return dict(re.findall(r'```yaml title="([^"]+)"\n(.*?)```', text, re.S))


def _page_commands(text: str) -> list[tuple[str, list[str]]]:
    """Each `$ jhyap ...` line of the page's console blocks, with the output shown under it."""
    steps: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            elif line.strip():
                steps[-1][1].append(line)
    return steps


def _follow(text: str, folder: Path, capsys: pytest.CaptureFixture[str]) -> list[int]:
    for name, content in _page_files(text).items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, "utf-8")
    statuses = []
    for command, shown in _page_commands(text):
        words = shlex.split(command)
        assert words[0] == "jhyap", command
        status = main(words[1:])
        out = capsys.readouterr().out
        statuses.append(status)
        for line in shown:
            assert any(got.startswith(line) for got in out.splitlines()), (command, line, out)
    return statuses


def test_the_variants_page_works_word_for_word(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = VARIANTS_PAGE.read_text("utf-8")
    assert set(_page_files(text)) == {
        "my-table.yaml",
        "my-transcripts/my-table-tie-costs-30.yaml",
    }
    assert [c for c, _ in _page_commands(text)] == [
        "jhyap profiles",
        "jhyap show dhumbal",
        "jhyap validate my-table.yaml",
        "jhyap validate my-table.yaml my-transcripts/",
        "jhyap run --profile my-table.yaml --transcripts my-transcripts/",
    ]
    monkeypatch.chdir(tmp_path)
    assert _follow(text, tmp_path, capsys) == [0, 0, 0, 0, 0]
    profile = yaml.safe_load((tmp_path / "my-table.yaml").read_text("utf-8"))
    assert profile["id"] == "my-table"


def test_the_variants_page_transcript_has_teeth(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With the page's penalty of 30 changed to 25, its transcript fails the run."""
    text = VARIANTS_PAGE.read_text("utf-8").replace("beaten_penalty: 30", "beaten_penalty: 25")
    monkeypatch.chdir(tmp_path)
    statuses: list[int] = []
    for name, content in _page_files(text).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(content, "utf-8")
    statuses.append(main(["run", "--profile", "my-table.yaml", "--transcripts", "my-transcripts/"]))
    out = capsys.readouterr().out
    assert statuses == [1]
    assert "events[1].deltas: expected [33, 0], got [28, 0]" in out


# -- issue 28: the throw and call dimensions no shipped profile plays ----------------------

THROW_VARIANTS = {
    # variant id: the rules line that states its dimension, and the same line at the default
    "dhumbal-runs-at-most-four": ("{throws: {run: {max: 4}}}", "{throws: {run: {max: null}}}"),
    "bga-yaniv-two-naturals": (
        "{throws: {run: {min_naturals: 2}}}",
        "{throws: {run: {min_naturals: 1}}}",
    ),
    "jhyap-encyclopedia-limit-by-seats": (
        "{call: {limit_by_seats: [{from_seats: 3, limit: 10}, {from_seats: 4, limit: 15}]}}",
        "{call: {limit_by_seats: []}}",
    ),
    "bga-yaniv-laid-by-rank": ("{throws: {laid: by_rank}}", "{throws: {laid: as_placed}}"),
}
VARIANTS_DIR = Path(__file__).resolve().parents[1] / "data" / "variants"
THROW_TRANSCRIPTS = VARIANTS_DIR / "throw-transcripts"


def test_the_throw_dimension_variants_pass_their_oracles(
    capsys: pytest.CaptureFixture[str],
) -> None:
    files = ",".join(str(VARIANTS_DIR / f"{name}.yaml") for name in THROW_VARIANTS)
    status = main(["run", "-q", "--profile", files, "--transcripts", str(THROW_TRANSCRIPTS)])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "== 4 passed as written, 8 passed derived, 4 not applicable (16 cases)" in out


@pytest.mark.parametrize("name", sorted(THROW_VARIANTS))
def test_each_throw_dimension_oracle_fails_without_its_rule(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The variant with its one rule set back to the default fails its own transcript."""
    stated, default = THROW_VARIANTS[name]
    text = (VARIANTS_DIR / f"{name}.yaml").read_text("utf-8")
    assert f"rules: {stated}" in text
    broken = tmp_path / f"{name}.yaml"
    broken.write_text(text.replace(stated, default), "utf-8")
    status = main(
        ["run", "-q", "--profile", str(broken), "--transcripts", str(THROW_TRANSCRIPTS), "-k", name]
    )
    out = capsys.readouterr().out
    assert status == 1, out
    assert "== 1 failed (1 case)" in out
