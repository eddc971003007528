"""Every transcript under every declared ruleset: as written, derived, or not applicable.

The variant files under tests/data/variants/ each change one to three parameters of a
shipped profile, the way engines of the family declare their real rules. The reference
engine must pass the whole corpus under each of them; a broken engine must be caught, as
written where the variant keeps the rule it breaks, derived where the variant changes it.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.commands.run import default_engine, default_engine_env
from conformance.harness import derive
from conformance.harness.derive import Mode, classify, rule_changes, touched
from conformance.harness.runner import Case, RunConfig, build_cases
from conformance.spec import readings
from conformance.spec.profiles import load_profile
from conformance.spec.steps import Transcript
from conformance.spec.transcript import load_corpus, load_transcript
from conformance.spec.transcript_profiles import shipped_documents, with_profile_files
from tests.cli_helpers import mutant_in_process, run_reference_in_process
from tests.conftest import ROOT

pytestmark = pytest.mark.e2e

VARIANTS = ROOT / "tests" / "data" / "variants"
VARIANT_FILES = sorted(VARIANTS.glob("*.yaml"))
MUTANT = ROOT / "tests" / "mutants" / "engine.py"
CORPUS = ROOT / "conformance" / "transcripts"


def mutant(name: str) -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(MUTANT))} {name}"


def run_json(tmp_path: Path, *args: str) -> tuple[int, dict[str, object]]:
    report = tmp_path / "report.json"
    status = main(["run", "-q", *args, "--json", str(report)])
    data: dict[str, object] = json.loads(report.read_text("utf-8"))
    return status, data


def results(report: dict[str, object]) -> list[dict[str, Any]]:
    found = report["results"]
    assert isinstance(found, list)
    return found


def write(path: Path, text: str) -> Path:
    path.write_text(text, "utf-8")
    return path


def test_there_are_twenty_variants_of_one_to_three_parameters() -> None:
    assert len(VARIANT_FILES) >= 20
    for path in VARIANT_FILES:
        document = load_profile(path)
        assert 1 <= len(document["derived_from"]["variant"]) <= 3, path.name


@pytest.mark.parametrize("path", VARIANT_FILES, ids=[p.stem for p in VARIANT_FILES])
def test_the_reference_engine_passes_the_corpus_under_each_variant(path: Path) -> None:
    documents, (pid,) = with_profile_files(shipped_documents(), [str(path)])
    transcripts, problems = load_corpus(None, documents)
    assert problems == []
    cases = build_cases(transcripts, documents, [pid])
    # Every transcript faces the variant.
    assert sorted(c.transcript.id for c in cases) == sorted(t.id for t in transcripts)
    config = RunConfig(engine=default_engine(), env=default_engine_env(), jobs=1, timeout=30)
    outcomes = run_reference_in_process(cases, config).outcomes
    bad = [(o.transcript_id, o.status, o.reason) for o in outcomes if not o.ok]
    assert bad == []
    assert {o.status for o in outcomes} <= {"passed", "not_applicable"}
    # Nothing passes that judged nothing: a derived case whose moves the variant all
    # refuses is not applicable, with the refused step as its reason.
    assert all(not o.judged.nothing for o in outcomes if o.status == "passed")
    # Not applicable only for a setup the variant cannot play, with the reason.
    for o in outcomes:
        if o.status == "not_applicable":
            assert o.mode == "not_applicable" and o.reason
            setup = "cannot set up the transcript's moves"
            assert any(w in o.reason for w in ("seats is outside", "deck", "refuses", setup))


def test_a_rule_the_variant_keeps_is_caught_as_written(tmp_path: Path) -> None:
    # The variant changes the penalty and the target; the mutant breaks the tie rule.
    variant = VARIANTS / "dhumbal-penalty-30-out-150.yaml"
    with mutant_in_process("tie_to_caller"):
        status, report = run_json(tmp_path, "--jobs", "1", "--profile", str(variant))
    assert status == 1
    failed = [r for r in results(report) if r["outcome"] == "failed"]
    written = {r["id"] for r in failed if r["mode"] == "as_written"}
    assert "shared-showdown-tie-beats-caller" in written


def test_a_rule_the_variant_changes_is_caught_derived(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A port that hard-codes Dhumbal's penalty of 25 passes Dhumbal...
    # (The two whole-corpus runs have the mutant answer in this process; the one case whose
    # report is read line by line runs it as a subprocess, over the pipe.)
    engine = mutant("penalty_always_25")
    with mutant_in_process("penalty_always_25"):
        status, report = run_json(tmp_path, "--jobs", "1", "--profile", "dhumbal")
    assert status == 0
    # ... and is caught under the variant it declares, by derived cases, which name the
    # parameter the failing step touches.
    variant = VARIANTS / "dhumbal-penalty-30-out-150.yaml"
    status = main(
        ["run", "--engine", engine, "--profile", str(variant), "-k", "dhumbal-failed-show-tie"]
    )
    out = capsys.readouterr().out
    assert status == 1
    assert "  derived: the expectations are the reference engine's answers under " in out
    assert "dhumbal-penalty-30-out-150, not the transcript's" in out
    assert "  parameters the ruleset changes from dhumbal that this step touches:" in out
    assert "    scoring.beaten_penalty: 25 -> 30\n" in out
    assert "    game_end.out_above: 100 -> 150\n" in out
    assert "== 1 failed derived (1 case)" in out
    with mutant_in_process("penalty_always_25"):
        status, report = run_json(tmp_path, "--jobs", "1", "--profile", str(variant))
    failed = [r for r in results(report) if r["outcome"] == "failed"]
    assert failed and {r["mode"] for r in failed} == {"derived"}
    # Each names the penalty as changed from the profile its transcript was written for.
    assert all(any(c.startswith("scoring.beaten_penalty: ") for c in r["changed"]) for r in failed)
    assert {r["base"] for r in failed} >= {"dhumbal", "dashain"}
    assert all(
        "scoring.beaten_penalty: 25 -> 30" in r["changed"] for r in failed if r["base"] == "dhumbal"
    )
    assert all(
        "scoring.beaten_penalty: 0 -> 30" in r["changed"] for r in failed if r["base"] == "dashain"
    )


def test_out_at_exactly_100_is_caught_under_declared_readings(tmp_path: Path) -> None:
    """Declaring readings once lost the one game reaching exactly 100 points."""
    header = "profile_format: 1\nid: mine\nextends: dhumbal\n"
    profile = write(tmp_path / "mine.yaml", header + "readings: {dealer: seat_before_starter}\n")
    with mutant_in_process("out_at_100"):
        status, report = run_json(tmp_path, "--jobs", "1", "--profile", str(profile))
    assert status == 1
    failed = {r["id"]: r["mode"] for r in results(report) if r["outcome"] == "failed"}
    assert failed["dhumbal-game-to-last-player"] == "as_written"
    # Under the other reshuffle the game ends its first hand another way; a recorded game,
    # derived, still catches it.
    write(tmp_path / "mine.yaml", header + "readings: {reshuffle: next_draw}\n")
    with mutant_in_process("out_at_100"):
        status, report = run_json(tmp_path, "--jobs", "1", "--profile", str(profile))
    assert status == 1
    failed = {r["id"]: r["mode"] for r in results(report) if r["outcome"] == "failed"}
    # The boundary case written since (issue 37) catches it as written too.
    assert failed == {
        "family-out-above-100-boundary": "as_written",
        "regression-dhumbal-4-seats-seed-2": "derived",
    }


@pytest.fixture(scope="module")
def corpus_as_written() -> tuple[list[Transcript], list[Case]]:
    """The shipped corpus and its cases without --profile, built once for the profiles."""
    transcripts, _ = load_corpus(None, shipped_documents())
    return transcripts, build_cases(transcripts, shipped_documents())


@pytest.mark.parametrize("pid", sorted(shipped_documents()))
def test_under_a_shipped_profile_the_written_cases_stay_as_written(
    pid: str, corpus_as_written: tuple[list[Transcript], list[Case]]
) -> None:
    """No hand-written oracle is weakened: what ran under the profile still runs as written."""
    documents = shipped_documents()
    transcripts, as_written = corpus_as_written
    before = {(c.transcript.id, c.profile) for c in as_written}
    cases = build_cases(transcripts, documents, [pid])
    written = {(c.transcript.id, c.profile) for c in cases if c.mode is Mode.WRITTEN}
    assert {k for k in before if k[1] == pid} <= written
    # ... and the run without --profile is the corpus as written, as before.
    assert {c.mode for c in as_written} == {Mode.WRITTEN}


@pytest.mark.usefixtures("reference_in_process")
def test_seats_outside_the_ruleset_are_not_applicable_not_an_abort(tmp_path: Path) -> None:
    profile = write(
        tmp_path / "small.yaml",
        "profile_format: 1\nid: small\nextends: everestbuzz\nrules: {seats: {min: 2, max: 4}}\n",
    )
    status, report = run_json(tmp_path, "--profile", str(profile))
    assert status == 0
    by_id = {r["id"]: r for r in results(report)}
    card_values = by_id["shared-card-values"]
    assert (card_values["outcome"], card_values["mode"]) == ("not_applicable", "not_applicable")
    assert card_values["reason"] == "5 seats is outside the ruleset's 2-4"
    assert card_values["failure"] is None
    # A transcript about a refused table of six still runs as written: 6 is refused here too.
    assert by_id["everestbuzz-table-of-six-refused"]["mode"] == "as_written"


def test_a_deal_the_deck_cannot_hold_is_not_applicable() -> None:
    document = shipped_documents()["dhumbal"]
    transcript = load_transcript(CORPUS / "yaniv-israel-jokers-and-picks.yaml")
    found = classify(transcript, "dhumbal", document, shipped_documents())
    assert found.mode is Mode.NOT_APPLICABLE
    assert found.reason == (
        "the deal names Ah, X more often than the ruleset's deck "
        "(1 pack of 52 cards, no jokers) holds"
    )


def test_a_deal_for_another_deck_is_laid_out_for_the_rulesets() -> None:
    """Jokers added to the deck go after the cards the transcript named: the scenario holds."""
    variant = load_profile(VARIANTS / "dhumbal-two-jokers.yaml")
    transcript = load_transcript(CORPUS / "shared-showdown-tie-beats-caller.yaml")
    found = classify(transcript, variant["id"], variant, shipped_documents())
    assert found.mode is Mode.WRITTEN
    deal = found.transcript.steps[0].request
    assert deal is not None
    assert len(deal["deck"]) == 54 and deal["deck"][-2:] == ["X", "X"]
    assert deal["deck"][:15] == transcript.steps[0].request["deck"][:15]  # type: ignore[index]


def test_a_refused_action_ends_the_derived_replay_after_that_step() -> None:
    # Runs of four or more: the transcript's three-card run is refused, and nothing after.
    variant = load_profile(VARIANTS / "dhumbal-runs-of-four.yaml")
    transcript = load_transcript(CORPUS / "shared-throws-accepted.yaml")
    found = classify(transcript, variant["id"], variant, shipped_documents())
    assert found.mode is Mode.DERIVED
    last = found.transcript.steps[-1]
    assert last.kind == "act" and last.expect.error == "illegal_throw"
    assert len(found.transcript.steps) < len(transcript.steps)
    assert found.transcript.steps[-1].line in {s.line for s in transcript.steps}
    assert found.reason.startswith("the reference engine leaves the transcript at step ")


def test_options_the_ruleset_lacks_are_left_out_and_said() -> None:
    transcript = load_transcript(CORPUS / "dashain-call-limit-20.yaml")
    document = shipped_documents()["dhumbal"]
    found = classify(transcript, "dhumbal", document, shipped_documents())
    assert found.mode is Mode.DERIVED
    assert "call_limit" not in found.options
    assert found.reason.startswith("option call_limit = 20 left out (")


def test_classifications_are_cached_by_transcript_ruleset_and_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JHYAP_CACHE_DIR", str(tmp_path / "cache"))
    transcript = load_transcript(CORPUS / "shared-throws-accepted.yaml")
    variant = load_profile(VARIANTS / "dhumbal-runs-of-four.yaml")
    first = classify(transcript, variant["id"], variant, shipped_documents())

    def no_second_time(*args: object) -> None:
        raise AssertionError("classified again")

    monkeypatch.setattr(derive, "_classify", no_second_time)
    again = classify(transcript, variant["id"], variant, shipped_documents())
    assert again == first
    # Another ruleset is another entry.
    other = {**variant, "id": "other", "rules": {**variant["rules"], "hand_size": 6}}
    with pytest.raises(AssertionError, match="classified again"):
        classify(transcript, "other", other, shipped_documents())


def test_a_cached_classification_as_written_keeps_the_loaded_transcript(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JHYAP_CACHE_DIR", str(tmp_path / "cache"))
    variant = load_profile(VARIANTS / "dhumbal-runs-of-four.yaml")
    written = load_transcript(CORPUS / "shared-deal-order.yaml")
    changed = load_transcript(CORPUS / "alankar-dhumbal-game.yaml")
    for transcript in (written, changed):
        classify(transcript, variant["id"], variant, shipped_documents())
    # From the cache: the same data is the same transcript, not one built anew; changed
    # data (here derived) is built from the entry.
    again = classify(written, variant["id"], variant, shipped_documents())
    assert again.mode is Mode.WRITTEN and again.transcript is written
    derived = classify(changed, variant["id"], variant, shipped_documents())
    assert derived.mode is Mode.DERIVED and derived.transcript != changed


def test_rule_changes_and_the_parameters_a_step_touches() -> None:
    dhumbal = shipped_documents()["dhumbal"]["rules"]
    variant = load_profile(VARIANTS / "dhumbal-penalty-30-out-150.yaml")["rules"]
    changes = rule_changes(variant, dhumbal)
    assert changes == ["scoring.beaten_penalty: 25 -> 30", "game_end.out_above: 100 -> 150"]
    transcript = load_transcript(CORPUS / "dhumbal-failed-show-tie.yaml")
    kinds = {s.kind: s for s in transcript.steps}
    assert touched(kinds["deal"], changes) == ()
    call = next(s for s in transcript.steps if (s.request or {}).get("action") == {"type": "call"})
    assert touched(call, changes) == tuple(changes)
    # A parameter a profile leaves out is the schema's default, not null.
    assert rule_changes({**dhumbal, "deck_runs_out": "round_ends_no_score"}, dhumbal) == [
        "deck_runs_out: reshuffle -> round_ends_no_score"
    ]


@pytest.mark.usefixtures("reference_in_process")
def test_a_standalone_profile_faces_every_transcript(tmp_path: Path) -> None:
    text = (ROOT / "specs" / "dhumbal.yaml").read_text("utf-8")
    text = text.replace("id: dhumbal\n", "id: ourtable\n", 1).replace("dhumbal.", "ourtable.")
    profile = write(tmp_path / "ourtable.yaml", text)
    status, report = run_json(tmp_path, "--profile", str(profile))
    assert status == 0
    transcripts, _ = load_corpus()
    assert len(results(report)) == len(transcripts)
    summary = report["summary"]
    assert isinstance(summary, dict)
    modes = summary["modes"]
    # As many as written as under dhumbal itself: the same rules.
    documents = shipped_documents()
    under_dhumbal = build_cases(transcripts, documents, ["dhumbal"])
    assert modes["as_written"] == sum(1 for c in under_dhumbal if c.mode is Mode.WRITTEN)
    assert summary["passed"] == modes["as_written"] + modes["derived"]
    protocol = [r for r in results(report) if str(r["id"]).startswith("protocol-")]
    assert protocol and all(r["outcome"] == "passed" for r in protocol)


def test_a_transcript_naming_the_ruleset_is_never_derived(tmp_path: Path) -> None:
    """A user's transcript written for their own profile is an oracle for it: it fails."""
    text = (ROOT / "specs" / "dhumbal.yaml").read_text("utf-8")
    text = text.replace("id: dhumbal\n", "id: ours\n", 1).replace("dhumbal.", "ours.")
    text = text.replace("beaten_penalty: 25", "beaten_penalty: 30")
    write(tmp_path / "ours.yaml", text)
    corpus = tmp_path / "transcripts"
    corpus.mkdir()
    source = (CORPUS / "dhumbal-failed-show-tie.yaml").read_text("utf-8")
    source = source.replace("profiles: [dhumbal]", "profiles: [ours]").replace("dhumbal.", "ours.")
    write(corpus / "dhumbal-failed-show-tie.yaml", source)
    args = ["--profile", str(tmp_path / "ours.yaml"), "--transcripts", str(corpus)]
    status, report = run_json(tmp_path, *args)
    assert status == 1
    (only,) = results(report)
    assert (only["mode"], only["outcome"]) == ("as_written", "failed")


def test_a_broken_variant_file_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = write(
        tmp_path / "bad.yaml",
        "profile_format: 1\nid: bad\nextends: dhumbal\nrules: {showdown: {tie: coin_flip}}\n",
    )
    status = main(["run", "--profile", str(bad)])
    captured = capsys.readouterr()
    assert status == 2
    lines = captured.err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(
        f"jhyap run: the profiles cannot be loaded: {bad}:4: rules.showdown.tie: "
    )
    assert "Traceback" not in captured.err
    missing = write(tmp_path / "gone.yaml", "profile_format: 1\nid: gone\nextends: nosuch\n")
    assert main(["run", "--profile", str(missing)]) == 2
    err = capsys.readouterr().err
    assert f"{missing}:3: extends: " in err and "Traceback" not in err


@pytest.mark.usefixtures("reference_in_process")
def test_the_claim_says_how_many_ran_each_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    variant = VARIANTS / "everestbuzz-no-dealer.yaml"
    status = main(["run", "--profile", str(variant)])
    out = capsys.readouterr().out
    assert status == 0
    documents, (pid,) = with_profile_files(shipped_documents(), [str(variant)])
    transcripts, _ = load_corpus(None, documents)
    modes = [c.mode for c in build_cases(transcripts, documents, [pid])]
    written, derived_, reseated_, na = (modes.count(m) for m in Mode)
    # Nobody dealing moves no seat: the seats keep their turns, nothing is re-seated.
    assert reseated_ == 0
    claim = readings.claim_text(documents[pid])
    assert f"claim: {claim}; as written in {written} cases, as the reference engine plays " in out
    assert f"everestbuzz-no-dealer in {derived_}, not applicable in {na}; judged " in out
    assert (
        f"== {written} passed as written, {derived_} passed derived, {na} not applicable "
        f"({written + derived_ + na} cases)"
    ) in out


def test_coverage_of_a_ruleset_says_how_each_clause_is_tested(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    variant = VARIANTS / "dhumbal-penalty-30-out-150.yaml"
    report = tmp_path / "coverage.json"
    status = main(["coverage", "--profile", str(variant), "--json", str(report)])
    out = capsys.readouterr().out.splitlines()
    assert status == 0
    data = json.loads(report.read_text("utf-8"))
    clauses = data["clauses"]
    # The penalty the variant changes is tested only derived; the tie it keeps, as written.
    assert clauses["dhumbal.scoring.failed-show"]["as_written"] == []
    assert "dhumbal-failed-show-tie" in clauses["dhumbal.scoring.failed-show"]["derived"]
    assert "shared-showdown-tie-beats-caller" in clauses["dhumbal.showdown.failed"]["as_written"]
    counts = data["counts"]
    assert out[-1] == (
        f"under dhumbal-penalty-30-out-150: {len(clauses)} clauses: {counts['as_written']} "
        f"tested as written, {counts['derived_only']} only derived, {counts['untested']} untested"
    )
    assert counts["untested"] == 0 and counts["derived_only"] > 0
    line = next(x for x in out if x.startswith("dhumbal.scoring.failed-show "))
    assert line.split(None, 1)[1].startswith("derived: dhumbal-failed-show-tie, ")
    # A ruleset with a clause nobody cites: exit 1, listed as untested.
    text = (ROOT / "specs" / "dhumbal.yaml").read_text("utf-8")
    text = text.replace("id: dhumbal\n", "id: lone\n", 1).replace("dhumbal.", "lone.")
    lone = write(tmp_path / "lone.yaml", text)
    status = main(["coverage", "--profile", str(lone), "--uncovered"])
    out = capsys.readouterr().out.splitlines()
    assert status == 1
    assert any(x.endswith("(untested)") and x.startswith("lone.") for x in out)


def test_the_readings_page_example_of_a_variant_run_holds(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Over real pipes: the whole corpus under a variant, as the page's reader runs it.
    page = (ROOT / "docs" / "readings.md").read_text("utf-8")
    section = page[page.index("### How each transcript runs under your ruleset") :]
    start = section.index("```console\n") + len("```console\n")
    block = section[start : section.index("\n```", start)].splitlines()
    assert block[0] == "$ jhyap run --engine ./my-engine --profile dhumbal-penalty-30-out-150.yaml"
    monkeypatch.chdir(VARIANTS)
    assert main(["run", "--profile", "dhumbal-penalty-30-out-150.yaml"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert not any(line.startswith("JUDGED NOTHING") for line in out)
    claim = next(x for x in block if x.startswith("claim: "))
    assert claim in out
    verdict = block[-1].rsplit(" in ", 1)[0]
    assert out[-1].rsplit(" in ", 1)[0] == verdict
