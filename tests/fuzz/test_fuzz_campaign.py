"""`jhyap fuzz` as a campaign: every divergence class in one run, shrinking within the
run's time, transcripts that always replay, response schema checks, coverage steering.

The campaigns' engines are the reference engine, the mutants of tests/mutants/engine.py and
fake engines of tests/fake_engines/: in this process for the tests of the campaign's
judgement (tests/fuzz/engines.py), real subprocesses for the tests marked e2e (two jobs
within a run's time, and every transcript of a mutant diverging in every profile). The
tests' own second check of each file written replays it in this process: a rule mutant
patched in, a protocol mutant as its command runs (over a pipe in an e2e test).
"""

from __future__ import annotations

import shlex
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from conformance import cli
from conformance.commands.run import default_engine
from conformance.fuzz.campaign import fuzz, plan_for
from conformance.fuzz.config import FuzzConfig
from conformance.fuzz.counters import AT_THRESHOLD, CUTS, SEVERAL_LOWEST, applicable_counters
from conformance.fuzz.driver import DivergenceKind
from conformance.fuzz.verify import replay_file
from conformance.harness.inprocess import ReferenceClient
from conformance.harness.outcome import CaseStatus
from conformance.harness.replay import replay
from conformance.spec.transcript import check_transcript_file, load_transcript
from conformance.spec.transcript_profiles import shipped_documents
from jhyap_core.profile import resolve
from tests.cli_helpers import mutant_client, runs_in_process
from tests.conftest import ROOT
from tests.fuzz.test_fuzz import UNHURRIED, config, mutant, read_yaml
from tests.mutants.engine import MUTANTS

FAKE = ROOT / "tests" / "fake_engines"
EVERY_PROFILE = tuple(sorted(shipped_documents()))

# A campaign's engines answer in this process, but in the tests marked e2e.
pytestmark = pytest.mark.usefixtures("fuzz_engines")


def fake(name: str) -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(FAKE / f'{name}.py'))}"


def quick(engine: str, out: Path, **changes: object) -> FuzzConfig:
    """A short campaign: one game a profile, shrinking cut short."""
    base = config(
        engine,
        profiles=EVERY_PROFILE,
        games=len(EVERY_PROFILE),
        out=out,
        shrink_budget=3000,
        shrink_grace=2.0,
        max_findings=4,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def assert_keeps_its_promise(cfg: FuzzConfig, path: Path, mutant_name: str) -> None:
    """The file validates, fails against the mutant ``mutant_name`` and passes against the
    reference, under the profile it is filed under."""
    assert check_transcript_file(path, cfg.documents) == [], path
    data = read_yaml(path)
    (profile,) = data["profiles"]
    assert data["fuzz"]["signature"].startswith(f"{profile} ")
    # Both in this process, each a fresh engine: the fuzzer's own check (verified_ok)
    # replayed the file on a fresh engine each, as its command runs (a process in an e2e
    # test). A mutant of the protocol layer is replayed as its command runs again.
    transcript = load_transcript(path, cfg.documents)
    client = ReferenceClient()
    resolved = resolve(cfg.documents[profile], transcript.options)
    reference = replay(client, client.handshake(), transcript, profile, resolved)
    if runs_in_process(mutant_name):
        broken = mutant_client(mutant_name)()
        engine = replay(broken, broken.handshake(), transcript, profile, resolved)
    else:
        engine = replay_file(cfg.engine, cfg.engine_env, path, cfg.documents, profile)
    assert reference.status == CaseStatus.PASSED, (path, reference.reason)
    assert engine.status != CaseStatus.PASSED, path


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_every_transcript_fuzz_writes_keeps_its_promise(name: str, tmp_path: Path) -> None:
    cfg = quick(mutant(name), tmp_path)
    result = fuzz(cfg)
    written = sorted(tmp_path.glob("*.yaml"))
    # A game carried on past its first divergence may file a second class (``-2``).
    assert sorted(f.transcript for f in result.findings if f.transcript) == written
    for finding in result.findings:
        assert finding.verified_ok, finding.verified
        assert finding.profile == finding.shrunk.plan.profile
        assert finding.shrunk.divergence.signature == finding.found.signature
    for path in written:
        assert_keeps_its_promise(cfg, path, name)


@pytest.mark.e2e
def test_a_mutant_diverging_everywhere_writes_a_transcript_keeping_its_promise_per_profile(
    tmp_path: Path,
) -> None:
    # The per-mutant test above stops at 4 classes: here every profile gets its file (two
    # packs, jokers, fixed rounds, transfers), each filed under the profile it diverges in.
    cfg = quick(mutant("deal_in_blocks"), tmp_path, max_findings=len(EVERY_PROFILE))
    result = fuzz(cfg)
    assert sorted(f.profile for f in result.findings) == list(EVERY_PROFILE)
    assert [f.verified for f in result.findings if not f.verified_ok] == []
    written = sorted(tmp_path.glob("*.yaml"))
    assert len(written) == len(EVERY_PROFILE)
    for path in written:
        assert_keeps_its_promise(cfg, path, "deal_in_blocks")


def test_tables_of_two_packs_and_jokers_are_written_with_their_deck(tmp_path: Path) -> None:
    # yaniv-israel plays two packs of 54 cards from four seats.
    cfg = quick(mutant("deal_in_blocks"), tmp_path, profiles=("yaniv-israel",), games=1, seats=4)
    result = fuzz(cfg)
    (finding,) = result.findings
    assert finding.transcript is not None
    data = read_yaml(finding.transcript)
    assert data["deck"] == {"packs": 2, "jokers": 2}
    assert_keeps_its_promise(cfg, finding.transcript, "deal_in_blocks")


def test_one_run_reports_both_planted_bugs(tmp_path: Path) -> None:
    # A total exactly at the threshold and a tie-break among several lowest hands: both
    # on branches the steering aims at. The run stops once both are filed (its only two
    # classes); each shrink is cut short by a request budget, not by the clock, so that
    # it costs the same on a loaded machine and an idle one.
    cfg = config(
        fake("two_bugs"),
        profiles=("dhumbal",),
        games=40,
        seed=0,
        jobs=2,
        out=tmp_path,
        shrink_budget=400,
        shrink_grace=UNHURRIED,
        max_findings=2,
    )
    result = fuzz(cfg)
    found = {f.found.signature for f in result.findings}
    assert "dhumbal showdown: winner differs" in found
    assert "dhumbal game-end: eliminated differs" in found
    assert all(f.verified_ok for f in result.findings)


def test_a_field_neither_defined_nor_x_fails_the_schema_check(tmp_path: Path) -> None:
    cfg = quick(fake("unknown_fields"), tmp_path, profiles=("dhumbal",), games=2)
    result = fuzz(cfg)
    (finding,) = result.findings
    assert finding.found.kind == DivergenceKind.SCHEMA
    assert finding.found.signature.startswith("dhumbal deal: schema event.schema.json#")
    assert finding.verified_ok, finding.verified
    assert finding.transcript is not None  # filed under its own class (once: protocol)
    assert read_yaml(finding.transcript)["fuzz"]["class"] == DivergenceKind.SCHEMA
    # Switched off, as `jhyap run --no-validate-protocol` does: the engine is otherwise right.
    assert fuzz(replace(cfg, check_schema=False, out=tmp_path / "off")).findings == []
    # Vendor fields (x-) are allowed.
    assert fuzz(quick(fake("vendor_fields"), tmp_path / "x", profiles=("dhumbal",))).findings == []


@pytest.mark.e2e
def test_time_bounds_the_whole_run_shrinking_included(tmp_path: Path) -> None:
    cfg = config(
        fake("two_bugs"), profiles=("dhumbal",), games=None, seconds=8.0, jobs=2, out=tmp_path
    )
    result = fuzz(cfg)
    # The checks of a transcript found just before the end may run past it a little.
    assert result.seconds < 8.0 + 6.0
    assert result.findings
    for finding in result.findings:
        assert finding.shrink_seconds <= finding.find_seconds + cfg.shrink_grace + 2.0


def test_a_known_divergence_is_counted_and_the_run_goes_on(tmp_path: Path) -> None:
    from conformance.fuzz.writer import KnownDivergence

    known = (KnownDivergence("dhumbal showdown: winner differs", "planted"),)
    cfg = config(
        fake("two_bugs"),
        profiles=("dhumbal",),
        games=40,
        seed=0,
        jobs=2,
        out=tmp_path,
        known=known,
        shrink_budget=2000,
        shrink_grace=2.0,
    )
    result = fuzz(cfg)
    assert result.known_hits["dhumbal showdown: winner differs"] >= 1
    assert all(f.found.signature != known[0].signature for f in result.findings)
    assert result.games == 40


def test_max_findings_caps_the_run(tmp_path: Path) -> None:
    cfg = quick(mutant("deal_in_blocks"), tmp_path, max_findings=2)
    result = fuzz(cfg)
    assert len(result.findings) == 2 and result.capped
    assert len(list(tmp_path.glob("*.yaml"))) == 2


def test_coverage_counts_only_what_a_game_reached_before_it_diverged(tmp_path: Path) -> None:
    result = fuzz(quick(mutant("deal_in_blocks"), tmp_path, profiles=("dhumbal",), games=3))
    # Every game diverges at its first deal: nothing after it is counted.
    assert sum(result.stats["dhumbal"].coverage.values()) == 0
    assert result.repeats["dhumbal deal: hands differs"] == 2


@pytest.mark.parametrize("profile", ["dhumbal", "bga-yaniv", "everestbuzz"])
def test_steering_reaches_the_rare_counters(profile: str) -> None:
    # The campaign's own loop without engines: each game aimed at what the games before
    # it left at zero.
    cfg = config(default_engine(), profiles=(profile,))
    possible = applicable_counters(cfg.documents[profile])
    coverage: Counter[str] = Counter()
    for game in range(150):
        missing = tuple(c for c in possible if not coverage[c])
        if not missing:
            break
        coverage.update(plan_for(cfg, game, missing).coverage)
    assert [c for c in possible if not coverage[c]] == []
    rare = {SEVERAL_LOWEST, AT_THRESHOLD, CUTS} & set(possible)
    assert rare and all(coverage[c] for c in rare)


def test_rerun_and_replay_commands_carry_engine_env(tmp_path: Path) -> None:
    cfg = quick(
        mutant("deal_in_blocks"),
        tmp_path,
        profiles=("dhumbal",),
        games=1,
        engine_env_items=("JHYAP_TRACE=1",),
    )
    (finding,) = fuzz(cfg).findings
    assert "--engine-env JHYAP_TRACE=1" in finding.data["fuzz"]["rerun"]
    assert "--engine-env JHYAP_TRACE=1" in finding.data["fuzz"]["replay"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--time", "nan"], "--time"),
        (["--time", "inf"], "--time"),
        (["--max-findings", "0"], "--max-findings"),
        (["--jobs", "0"], "--jobs"),
        (["--engine-env", "1BAD"], "--engine-env"),
    ],
)
def test_numbers_and_names_are_checked_up_front(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # In this process: refused before any engine starts (tests/conftest.py fails a start).
    code = cli.main(["fuzz", "--games", "1", *args])
    out, err = capsys.readouterr()
    assert code == 2, out
    assert message in err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err


def test_out_naming_a_file_is_refused_before_fuzzing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # In this process: refused before any engine starts (tests/conftest.py fails a start).
    taken = tmp_path / "a-file"
    taken.write_text("keep me\n", "utf-8")
    code = cli.main(["fuzz", "--engine", mutant("deal_in_blocks"), "--out", str(taken)])
    assert code == 2
    assert "--out" in capsys.readouterr().err
    assert taken.read_text("utf-8") == "keep me\n"
