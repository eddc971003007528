"""The JavaScript kit (kits/javascript/): its own node tests, and its example engine
(examples/javascript-object/) run through the harness under its declared rules."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "kits" / "javascript"
EXAMPLE = ROOT / "examples" / "javascript-object"
NODE = shutil.which("node")

needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed (CI installs it)")


def _jhyap(*args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "conformance", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.e2e
@needs_node
def test_node_kit_tests_pass(tmp_path: Path) -> None:
    assert NODE is not None
    done = subprocess.run(
        [NODE, "--test", "kits/javascript/test/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        # What the node tests write goes in this test's folder (os.tmpdir() reads TMPDIR).
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # each removed what it made


@pytest.mark.e2e
@pytest.mark.parametrize("profile", ["bga-yaniv", "dashain"])
def test_node_fixtures_are_the_shipped_profiles(profile: str) -> None:
    """The node tests' profiles are `jhyap show` of the shipped ones, less clauses and prose."""
    shown = _jhyap("show", profile, "--format", "json")
    assert shown.returncode == 0, shown.stderr
    resolved = json.loads(shown.stdout)
    fixture = json.loads((KIT / "test" / "fixtures" / f"{profile}.json").read_text("utf-8"))
    assert fixture == {key: resolved[key] for key in fixture}
    assert set(fixture) == {"profile_format", "id", "name", "rules", "options", "option_values"}


def _run_example(engine_dir: Path, report: Path, *ids: str) -> tuple[int, dict[str, Any]]:
    assert NODE is not None
    args: list[str | Path] = [
        "run",
        "-q",
        "--engine",
        f"{NODE} {engine_dir / 'bind.mjs'}",
        "--profile",
        EXAMPLE / "rules.yaml",
        "--json",
        report,
    ]
    for case in ids:
        args += ["-k", case]
    done = _jhyap(*args)
    data: dict[str, Any] = json.loads(report.read_text("utf-8"))
    return done.returncode, data


CASES = (
    "bga-yaniv-game-cut-100",
    "bga-yaniv-reshuffle-next-draw",
    "bga-yaniv-two-packs-pair-on-offer",
    "dashain-turn-timer",
    "protocol-malformed-lines",
)


@pytest.mark.e2e
@needs_node
def test_example_engine_passes_under_its_declared_rules(tmp_path: Path) -> None:
    status, report = _run_example(EXAMPLE, tmp_path / "report.json", *CASES)
    outcomes = {(r["id"], r["outcome"], r["mode"]) for r in report["results"]}
    assert outcomes == {
        # Its failed-call winner scores nothing (its own rule, declared): derived.
        ("bga-yaniv-game-cut-100", "passed", "derived"),
        ("bga-yaniv-reshuffle-next-draw", "passed", "as_written"),
        # The example plays one pack: the `packs: two` option is declined, so skipped.
        ("bga-yaniv-two-packs-pair-on-offer", "skipped", "as_written"),
        ("dashain-turn-timer", "passed", "derived"),
        ("protocol-malformed-lines", "passed", "derived"),
    }
    skipped = next(r for r in report["results"] if r["outcome"] == "skipped")
    assert "unsupported_option" in skipped["reason"]
    assert "option packs" in skipped["reason"]
    assert report["engine"]["name"] == "yaniv-mjs"
    assert report["engine"]["language"] == "javascript"
    assert status == 0


@pytest.mark.e2e
@needs_node
def test_a_wrong_example_engine_fails(tmp_path: Path) -> None:
    """The same binding over an engine whose caller wins ties (not this ruleset's Assaf)."""
    copy = tmp_path / "examples" / "javascript-object"
    shutil.copytree(EXAMPLE, copy)
    shutil.copytree(KIT, tmp_path / "kits" / "javascript")
    engine = copy / "yaniv.mjs"
    text = engine.read_text("utf-8")
    assert text.count("const assaf = lowest <= value;") == 1
    engine.write_text(text.replace("lowest <= value", "lowest < value"), "utf-8")
    status, report = _run_example(copy, tmp_path / "report.json", "bga-yaniv-game-cut-100")
    assert [(r["id"], r["outcome"]) for r in report["results"]] == [
        ("bga-yaniv-game-cut-100", "failed")
    ]
    assert status == 1


def _exchange(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    assert NODE is not None
    lines = "".join(json.dumps({"seq": i, **r}) + "\n" for i, r in enumerate(requests))
    done = subprocess.run(
        [NODE, str(EXAMPLE / "bind.mjs")],
        input=lines,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.mark.e2e
@needs_node
def test_example_takes_the_last_of_two_jokers_on_offer() -> None:
    """A run thrown as Ad X X: the second joker is its last card and may be taken (the
    first is in the middle). Found by `jhyap fuzz`: the binding once handed the library the
    first joker of the pile, which it refused."""
    shown = _jhyap("show", EXAMPLE / "rules.yaml", "--format", "json")
    profile = json.loads(shown.stdout)
    hands = [["Ac", "Ad", "Ah", "2s", "X", "X", "As"], ["5c", "7c", "7d", "7h", "7s", "8h", "Kd"]]
    dealt = {c for h in hands for c in h} | {"2d"}
    pack = [r + s for r in "A23456789TJQK" for s in "cdhs"]
    stock = [c for c in pack if c not in dealt]
    deck = [c for pair in zip(*hands, strict=True) for c in pair] + ["2d", *stock]
    answers = _exchange(
        [
            {"cmd": "hello", "protocol": "1.1"},
            {"cmd": "start", "profile": profile, "options": {"cards_dealt": 7}, "seats": 2},
            {"cmd": "deal", "deck": deck},
            {"cmd": "act", "seat": 0, "action": {"type": "throw", "cards": ["Ad", "X", "X"]}},
            {"cmd": "act", "seat": 0, "action": {"type": "pick", "from": "deck"}},
            {"cmd": "act", "seat": 1, "action": {"type": "throw", "cards": ["Kd"]}},
            {"cmd": "legal"},
            {"cmd": "act", "seat": 1, "action": {"type": "pick", "from": "offer", "card": "X"}},
            {"cmd": "stop"},
        ]
    )
    assert [a["ok"] for a in answers] == [True] * 9, answers
    assert answers[3]["events"] == [
        {"type": "thrown", "seat": 0, "cards": ["Ad", "X", "X"], "kind": "run"}
    ]
    assert answers[6]["legal"]["picks"] == [
        {"from": "deck"},
        {"from": "offer", "card": "Ad"},
        {"from": "offer", "card": "X"},
    ]
    assert answers[7]["events"] == [
        {"type": "picked", "seat": 1, "from": "offer", "card": "X"},
        {"type": "out_of_play", "cards": ["Ad", "X"]},
    ]
