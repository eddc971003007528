"""``jhyap export --format json``: the corpus as plain JSON files that need nothing else.

The proof of that is a small replayer written here with subprocess and json only (not
conformance.harness.replay): it drives the reference engine through the exported cases, following
only the rules that index.json states.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any

import pytest

from conformance import cli
from conformance.spec.decks import canonical, expand_deal
from conformance.spec.transcript import load_corpus
from conformance.spec.transcript_profiles import profiles_for

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "transcripts"


def export(capsys: pytest.CaptureFixture[str], folder: Path, *args: str) -> str:
    code = cli.main(["export", "--format", "json", str(folder), *args])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), err
    return out


def contents(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("export")
    assert cli.main(["export", "--format", "json", str(folder)]) == 0
    return folder


def test_every_file_is_json_and_the_count_is_the_corpus(exported: Path) -> None:
    corpus, problems = load_corpus()
    assert problems == []
    # Transcripts of alternative readings run only under a profile declaring them
    # (jhyap export --profile my-readings.yaml), so not under the shipped profiles.
    alternative = {t.id for t in corpus if not profiles_for(t)}
    assert alternative == {
        "dashain-settlement-seat-order",
        "dashain-turn-timer-take-lowest",
        "dhumbal-call-limit-fixed-at-open",
        "dhumbal-dealer-seat-before-starter",
        "dhumbal-house-rule-before-first-deal",
        "dhumbal-house-rule-fixed-at-open",
        "everestbuzz-reshuffle-next-draw",
        "shared-reshuffle-next-draw",
        "alankar-dhumbal-target-reaching",
        "bga-yaniv-reshuffle-next-draw",
        "family-reshuffle-next-draw-run-on-offer",
        "jhyap-encyclopedia-countered-others-score",
        "jhyap-jacks-zero-call-limit-fixed-at-open",
        "jhyap-jacks-zero-dealer-seat-before-starter",
        "jhyap-jacks-zero-house-rule-before-first-deal",
        "jhyap-jacks-zero-house-rule-fixed-at-open",
        "yaniv-israel-reshuffle-next-draw",
        "yarsa-dhumbal-dealer-seat-before-starter",
        "yarsa-dhumbal-reshuffle-next-draw",
        "yarsa-dhumbal-set-size-triples",
        "yarsa-dhumbal-show-points-before-first-deal",
        "everestbuzz-reshuffle-end-of-turn-keep-pickup",
        "everestbuzz-reshuffle-at-next-throw",
        "yaniv-israel-over-200-game-ends",
        "jhyap-encyclopedia-single-no-combination",
        "alankar-dhumbal-target-ends-game",
        "yarsa-dhumbal-multi-throw-scope-turn",
        "yarsa-dhumbal-single-highest",
        "alankar-dhumbal-card-pick-rule-whole-game",
    }
    corpus = [t for t in corpus if t.id not in alternative]
    files = contents(exported)
    assert sorted(files) == sorted([f"{t.id}.json" for t in corpus] + ["index.json"])
    documents = {name: json.loads(text) for name, text in files.items()}
    index = documents.pop("index.json")
    assert index["format"] == "jhyap-conformance-export"
    assert index["protocol"] == "1.2"
    assert [entry["file"] for entry in index["files"]] == [f"{t.id}.json" for t in corpus]
    for transcript in corpus:
        document = documents[f"{transcript.id}.json"]
        assert document["id"] == transcript.id
        assert set(document) >= {
            "id",
            "title",
            "description",
            "kind",
            "clauses",
            "seats",
            "options",
            "requires",
        }
        assert document["cases"], transcript.id
        for case in document["cases"]:
            if transcript.fresh_engine:  # no start before the steps: they test a bare engine
                assert case["fresh_engine"] is True
                assert len(case["steps"]) == len(transcript.steps)
                continue
            start = case["steps"][0]["request"]
            assert start["cmd"] == "start"
            assert start["profile"]["id"] == case["profile"]  # the resolved profile
            assert len(case["steps"]) == len(transcript.steps) + 1
            assert all(":" in step["source"] for step in case["steps"])
    # The clause map: every transcript listed under each clause it tests.
    for transcript in corpus:
        for clause in transcript.clauses:
            assert transcript.id in index["clauses"][clause]


def test_a_deal_is_expanded_to_the_52_cards(exported: Path) -> None:
    corpus, _ = load_corpus()
    transcript = next(t for t in corpus if t.id == "shared-throws-refused")
    document = json.loads((exported / "shared-throws-refused.json").read_text())
    raw_deal = transcript.raw["steps"][0]["deal"]
    for case in document["cases"]:
        deal = case["steps"][1]
        deck = expand_deal(raw_deal)
        # Protocol 1.1: the layout the deal gives goes with its deck (hands canonical).
        assert deal["request"] == {
            "cmd": "deal",
            "deck": deck,
            "hands": [canonical(raw_deal["hands"][str(s)]) for s in (0, 1)],
            "turned_up": raw_deal["turned_up"],
            "stock": deck[11:],
        }
        assert deck[10] == raw_deal["turned_up"]
        assert len(deal["request"]["deck"]) == len(set(deal["request"]["deck"])) == 52
        assert deal["expect"] == {"accepted": True, "starter": 0}
        assert deal["source"] == f"shared-throws-refused.yaml:{transcript.steps[0].line}"


def test_reexport_is_byte_identical(
    capsys: pytest.CaptureFixture[str], exported: Path, tmp_path: Path
) -> None:
    before = contents(exported)
    assert export(capsys, tmp_path / "again").startswith("wrote ")
    assert contents(tmp_path / "again") == before
    export(capsys, tmp_path / "again")  # over itself
    assert contents(tmp_path / "again") == before


def test_a_smaller_export_removes_the_files_of_the_previous_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "out"
    export(capsys, folder)
    (folder / "notes.txt").write_text("mine")
    out = export(capsys, folder, "--transcripts", str(DATA))
    assert out.startswith("wrote 5 transcripts (5 cases) and index.json to ")
    assert sorted(contents(folder)) == sorted(
        [f"{p.stem}.json" for p in DATA.glob("*.yaml")] + ["index.json", "notes.txt"]
    )


# -- an independent replayer: subprocess and json, and the rules index.json states ----------


class Engine:
    """The reference engine on a pipe."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "reference_engine.server"],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.seq = 0

    def send(self, request: Mapping[str, Any]) -> dict[str, Any]:
        stdin: IO[str] | None = self.proc.stdin
        stdout: IO[str] | None = self.proc.stdout
        assert stdin is not None and stdout is not None
        stdin.write(json.dumps({**request, "seq": self.seq}) + "\n")
        stdin.flush()
        answer: dict[str, Any] = json.loads(stdout.readline())
        assert answer["seq"] == self.seq
        self.seq += 1
        return answer

    def send_line(self, text: str) -> dict[str, Any]:
        """Write ``text`` as the request of the next seq; the answer, whatever its seq."""
        stdin: IO[str] | None = self.proc.stdin
        stdout: IO[str] | None = self.proc.stdout
        assert stdin is not None and stdout is not None
        stdin.write(text + "\n")
        stdin.flush()
        self.seq += 1
        answer: dict[str, Any] = json.loads(stdout.readline())
        return answer

    def ask(self, step: Mapping[str, Any]) -> dict[str, Any]:
        """Send a step: its request, its line, or its oversize line (index.json's rules)."""
        if "line" in step:
            return self.send_line(step["line"])
        if "oversize" in step:
            head = json.dumps({"seq": self.seq, "cmd": "state"})[:-1]
            return self.send_line(head + " " * (step["oversize"] - len(head) - 1) + "}")
        return self.send(step["request"])

    def close(self) -> None:
        self.send({"cmd": "stop"})
        assert self.proc.wait(timeout=10) == 0


@pytest.fixture
def engine() -> Iterator[Engine]:
    running = Engine()
    hello = running.send({"cmd": "hello", "protocol": "1.0"})
    assert hello["ok"] and hello["protocol"].startswith("1.")
    yield running
    running.close()


def same(expected: Any, actual: Any) -> bool:
    """index.json's "values" rule."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and same(value, actual[key]) for key, value in expected.items()
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(expected) == len(actual)
            and all(same(e, a) for e, a in zip(expected, actual, strict=True))
        )
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    return bool(expected == actual)


def same_set(expected: Any, actual: Any) -> bool:
    return sorted(map(json.dumps, expected)) == sorted(map(json.dumps, actual))


def check_holds(check: Mapping[str, Any], state: Mapping[str, Any], fields: Any) -> bool:
    """index.json's "check" and "check_fields" rules."""
    for name, want in check.items():
        got = state["result"]["settlement"] if name == "settlement" else state[name]
        if name in fields["per_seat"]:
            compare = same_set if name in fields["per_seat_sets"] else same
            if isinstance(want, list) and len(want) != len(got):
                return False
            seats = want.items() if isinstance(want, dict) else enumerate(want)
            if not all(compare(value, got[int(seat)]) for seat, value in seats):
                return False
        elif name in fields["sets"]:
            if not same_set(want, got):
                return False
        elif not same(want, got):
            return False
    return True


def without_vendor_fields(state: Any) -> Any:
    if isinstance(state, dict):
        return {k: without_vendor_fields(v) for k, v in state.items() if not k.startswith("x-")}
    if isinstance(state, list):
        return [without_vendor_fields(v) for v in state]
    return state


def replay(engine: Engine, case: Mapping[str, Any], rules: Mapping[str, Any]) -> list[str]:
    """Play one exported case; the error codes of its refusals. AssertionError names the
    step's source line when an answer does not meet its expectation."""
    codes = []
    for number, step in enumerate(case["steps"]):
        where = f"{step['source']} [{case['profile']}]"
        if "check" in step:
            answer = engine.send(step["request"])
            assert answer["ok"], where
            assert check_holds(step["check"], answer["state"], rules["check_fields"]), where
            continue
        expect = step["expect"]
        if "error" in expect:
            fresh = case.get("fresh_engine", False)
            before = engine.send({"cmd": "state"}) if number or fresh else None
            answer = engine.ask(step)
            assert not answer["ok"], where
            assert answer["error"]["code"] == expect["error"], where
            assert answer["seq"] == expect.get("seq", engine.seq - 1), where
            codes.append(answer["error"]["code"])
            if before is not None:
                after = engine.send({"cmd": "state"})
                assert without_vendor_fields(after.get("state", after.get("error"))) == (
                    without_vendor_fields(before.get("state", before.get("error")))
                ), where
            continue
        answer = engine.ask(step)
        assert answer["ok"] is expect["accepted"] is True, where
        if "legal" in expect:
            assert answer["legal"] == expect["legal"], where
        if "events" in expect:
            assert same(expect["events"], answer["events"]), where
        if "starter" in expect:
            started = [e for e in answer["events"] if e["type"] == "round_started"]
            assert started[0]["starter"] == expect["starter"], where
    return codes


@pytest.mark.e2e
def test_an_independent_replayer_plays_an_exported_case(exported: Path, engine: Engine) -> None:
    rules = json.loads((exported / "index.json").read_text())["compare"]
    document = json.loads((exported / "shared-throws-refused.json").read_text())
    corpus, _ = load_corpus()
    raw = next(t for t in corpus if t.id == "shared-throws-refused").raw["steps"]
    expected = [step["expect"]["error"] for step in raw if "error" in (step.get("expect") or {})]
    assert len(expected) == 15
    assert [case["profile"] for case in document["cases"]] == ["dashain", "everestbuzz", "dhumbal"]
    for case in document["cases"]:
        assert replay(engine, case, rules) == expected


@pytest.mark.e2e
def test_the_independent_replayer_passes_the_whole_export(exported: Path, engine: Engine) -> None:
    index = json.loads((exported / "index.json").read_text())
    played = 0
    for entry in index["files"]:
        for case in json.loads((exported / entry["file"]).read_text())["cases"]:
            if case.get("fresh_engine"):
                fresh = Engine()
                assert fresh.send({"cmd": "hello", "protocol": "1.0"})["ok"]
                replay(fresh, case, index["compare"])
                fresh.close()
            else:
                replay(engine, case, index["compare"])
            played += 1
    assert played == sum(len(entry["profiles"]) for entry in index["files"])


@pytest.mark.e2e
def test_the_replayer_sees_a_wrong_expectation(tmp_path: Path, engine: Engine) -> None:
    assert cli.main(["export", str(tmp_path), "--transcripts", str(DATA)]) == 0
    rules = json.loads((tmp_path / "index.json").read_text())["compare"]
    case = json.loads((tmp_path / "harness-wrong-expectation.json").read_text())["cases"][0]
    with pytest.raises(AssertionError, match=r"harness-wrong-expectation\.yaml:17 \[dashain\]"):
        replay(engine, case, rules)
