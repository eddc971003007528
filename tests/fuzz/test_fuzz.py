"""`jhyap fuzz`: seeded plans, the differential driver, shrinking and fuzz transcripts.

The engines are the reference engine and broken variants of it from tests/mutants/engine.py:
in this process for the tests of the campaign's judgement (tests/fuzz/engines.py), real
subprocesses over the protocol for the tests marked e2e (one of each kind of campaign, and
every test of the command).
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from conformance.commands.run import default_engine, default_engine_env
from conformance.fuzz import generate as fuzz_generate
from conformance.fuzz import steer
from conformance.fuzz.campaign import fuzz, plan_for
from conformance.fuzz.config import FuzzConfig
from conformance.fuzz.counters import RESHUFFLE_COUNTERS
from conformance.fuzz.driver import (
    Divergence,
    DivergenceKind,
    compare_answers,
    compare_raw,
    state_invariants,
    step_name,
)
from conformance.fuzz.generate import (
    COUNTERS,
    RAW_PROBES,
    GameSpec,
    generate,
    random_spec,
    raw_request,
    request,
)
from conformance.fuzz.writer import (
    KnownDivergenceError,
    load_known_divergences,
    steps_of,
)
from conformance.spec.profiles import load_profile
from conformance.spec.transcript import load_transcript
from conformance.spec.transcript_profiles import shipped_documents, with_profile_files
from reference_engine.rules import ReshuffleMoment
from reference_engine.server import Session
from tests.cli_helpers import jhyap as jhyap_here
from tests.conftest import ENGINE_ENV, ROOT

MUTANT_ENGINE = ROOT / "tests" / "mutants" / "engine.py"
FUZZ_REPORT_SCHEMA = ROOT / "schema" / "fuzz-report.schema.json"
PROFILES = ("dashain", "dhumbal", "everestbuzz")
# libyaml's loader where built: the same data as yaml.safe_load, several times faster on
# the long transcripts fuzz writes.
_YAML_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# A campaign's engines answer in this process, but in the tests marked e2e.
pytestmark = pytest.mark.usefixtures("fuzz_engines")


def read_yaml(path: Path) -> Any:
    """The data of the YAML file ``path`` (what ``yaml.safe_load`` reads)."""
    return yaml.load(path.read_text("utf-8"), Loader=_YAML_LOADER)


def mutant(name: str) -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(MUTANT_ENGINE))} {name}"


def config(engine: str, **changes: object) -> FuzzConfig:
    env = default_engine_env()
    base = FuzzConfig(
        engine=engine,
        reference=default_engine(),
        documents=shipped_documents(),
        profiles=PROFILES,
        engine_env=env,
        reference_env=env,
        games=12,
        seed=3,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def jhyap(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    # $JHYAP_ENGINE_ENV passed on: the command's own engines then get what the run lists
    # (PYTHONPYCACHEPREFIX: their compiled modules in the run's folder, not the checkout).
    return subprocess.run(
        [sys.executable, "-m", "conformance", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env=default_engine_env([ENGINE_ENV]),
    )


def assert_run_fails_then_passes(
    capsys: pytest.CaptureFixture[str], engine: str, folder: Path, transcript_id: str
) -> None:
    """`jhyap run` (in this process: the command's own code, without a Python start-up) of
    the transcript ``transcript_id`` fails against ``engine`` and passes the reference."""
    code, out, _ = jhyap_here(
        capsys, "run", "--engine", engine, "--transcripts", str(folder), "-k", transcript_id
    )
    assert code == 1, out
    code, out, _ = jhyap_here(capsys, "run", "--transcripts", str(folder), "-k", transcript_id)
    assert code == 0, out


# -- plans ----------------------------------------------------------------------------


def variant_replies(
    variant: Path, seeds: int, seats: int | None = None
) -> Iterator[list[tuple[Mapping[str, Any], dict[str, Any]]]]:
    """Seed by seed from 0 (``seeds`` at most: a caller may stop early), each request of the
    fuzzer's plan under the profile file ``variant`` (``seats`` seats, or the plan's own)
    with the reference's answer to it, the raw-line probes left out."""
    documents = {"variant": load_profile(variant)}
    for seed in range(seeds):
        spec = steer.random_spec(documents, "variant", seed, seats=seats)
        plan = fuzz_generate.generate(documents["variant"], spec)
        session = Session()
        yield [
            (req.message, session.handle({**req.message, "seq": seq}))
            for seq, req in enumerate(plan.requests)
            if req.raw is None
        ]


def variant_answers(variant: Path, seeds: int, seats: int) -> Iterator[list[list[dict[str, Any]]]]:
    """Seed by seed from 0 (``seeds`` at most: a caller may stop early), the events the
    reference answers to each request of the fuzzer's plan for ``seats`` seats under the
    profile file ``variant``, the raw-line probes left out."""
    for replies in variant_replies(variant, seeds, seats):
        yield [answer.get("events") or [] for _, answer in replies]


@pytest.mark.usefixtures("plans_made_afresh")
def test_the_same_seed_gives_the_same_games() -> None:
    cfg = config(default_engine())
    first = [[r.body for r in plan_for(cfg, g).requests] for g in range(9)]
    again = [[r.body for r in plan_for(cfg, g).requests] for g in range(9)]
    other = [[r.body for r in plan_for(replace(cfg, seed=4), g).requests] for g in range(9)]
    assert first == again
    assert first != other
    assert [json.loads(p[0])["cmd"] for p in first] == ["start"] * 9


def test_a_process_keeps_the_plans_it_asks_to_keep() -> None:
    documents = shipped_documents()
    document = documents["dhumbal"]
    spec = random_spec(documents, "dhumbal", 7)
    try:
        fuzz_generate.keep_plans(2)
        plan = generate(document, spec)
        assert generate(document, spec) is plan  # the same mapping and spec: kept
        copy = json.loads(json.dumps(document))
        other = generate(copy, spec)  # an equal mapping is another profile: made again
        assert other is not plan and other.requests == plan.requests
        generate(document, replace(spec, seed=8))  # a third plan: the oldest goes
        assert generate(document, spec) is not plan
        fuzz_generate.keep_plans(0)
        assert generate(document, spec) is not generate(document, spec)
    finally:
        fuzz_generate.keep_plans(64)


@pytest.mark.e2e
def test_a_command_keeps_no_plan() -> None:
    code = "from conformance.fuzz import generate; print(generate._KEPT.size)"
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert found.stdout == "0\n"


def test_plans_mix_probes_with_legal_play_and_vary_seats_and_options() -> None:
    documents = shipped_documents()
    seats, probes, values, money = set(), 0, set(), set()
    for game in range(60):
        spec = random_spec(documents, "dashain", game)
        plan = generate(documents["dashain"], spec)
        seats.add(spec.seats)
        values.add(spec.options["turn_timer"])
        money.add(spec.options["dollars_per_point"])
        probes += sum(r.probe for r in plan.requests)
        assert plan.invariant_problems == ()
    assert seats == {1, 2, 3, 4, 5, 6, 7}  # min-1 .. max+1
    # turn_timer has no maximum (0 or more, step 1): its edges, the default, and values
    # between, up to 100 steps above the minimum or the default, whichever is higher.
    assert {0, 1, 99, 100} < values
    assert all(type(v) is int and 0 <= v <= 100 for v in values)
    # A decimal option travels as a string in plain notation with at least two decimals.
    assert {"0.01", "0.02", "0.05", "1.04", "1.05"} < money
    assert all(isinstance(v, str) and re.fullmatch(r"[0-9]+\.[0-9]{2}", v) for v in money)
    assert probes > 0


def test_plans_deal_every_card_of_tables_with_jokers_and_two_packs() -> None:
    documents = shipped_documents()  # bga-yaniv: two jokers a pack; a second pack as an option
    sizes: set[int] = set()
    played = 0
    for game in range(30):
        spec = random_spec(documents, "bga-yaniv", game)
        plan = generate(documents["bga-yaniv"], spec)
        assert plan.invariant_problems == ()
        deals = [r.message["deck"] for r in plan.requests if r.cmd == "deal" and not r.probe]
        sizes.update(len(deck) for deck in deals)
        assert all(deck.count("X") == 2 * len(deck) // 54 for deck in deals)
        played += plan.coverage["won calls"] + plan.coverage["beaten calls"]
    assert sizes == {54, 108}
    assert played > 0


def test_a_refused_table_is_a_one_request_plan() -> None:
    documents = shipped_documents()
    spec = GameSpec("dhumbal", 7, {}, seed=1)
    plan = generate(documents["dhumbal"], spec)
    assert plan.start_error == "invalid_seats"
    assert [r.cmd for r in plan.requests] == ["start"]


def test_raw_line_probes_are_answered_as_the_protocol_says_and_change_nothing() -> None:
    from jhyap_core.profile import resolve
    from jhyap_core.vocabulary import JhyapError
    from reference_engine.server import Session, decode_request

    document = shipped_documents()["dashain"]
    resolved = resolve(document)
    start = {"cmd": "start", "profile": resolved, "options": resolved["option_values"]}
    mid_hand = generate(document, GameSpec("dashain", 3, {}, seed=5, raw_rate=0.0))
    deal = next(r for r in mid_hand.requests if r.cmd == "deal")
    for phase in ("awaiting_deal", "call_or_throw"):
        session = Session()
        session.handle({"seq": 0, **start, "seats": 3})
        if phase == "call_or_throw":
            session.handle({"seq": 1, **deal.message})
        assert session.game is not None and session.game.phase.value == phase
        for kind, probe in RAW_PROBES.items():
            line, put = raw_request(kind).line(41)
            before = session.game.state()
            try:
                answer = session.handle(decode_request(line.encode("utf-8")))
            except JhyapError as exc:
                answer = {"seq": None, "ok": False, "error": {"code": exc.code.value}}
            code = answer["error"]["code"] if not answer["ok"] else None
            assert (code in probe.error.split(" or ")) if probe.error else code is None, kind
            wanted = {"null": None, "echoed": 41, "own": 9007199254740991}[probe.seq]
            assert answer["seq"] == wanted and put == (41 if probe.seq == "echoed" else None)
            assert session.game.state() == before, kind
            assert all(c.startswith("protocol.") for c in probe.clauses)
    assert len(RAW_PROBES) == 31


def test_raw_line_probes_leave_the_games_own_requests_as_they_were() -> None:
    documents = shipped_documents()
    kinds: set[str] = set()
    for game in range(20):
        spec = random_spec(documents, "dhumbal", game)
        with_raw = generate(documents["dhumbal"], spec)
        without = generate(documents["dhumbal"], replace(spec, raw_rate=0.0))
        assert with_raw.invariant_problems == ()
        assert [r.body for r in with_raw.requests if r.raw is None] == [
            r.body for r in without.requests
        ]
        raw = [r for r in with_raw.requests if r.raw is not None]
        assert with_raw.coverage["raw-line probes"] == len(raw)
        assert without.coverage["raw-line probes"] == 0
        kinds.update(r.message["kind"] for r in raw)
    assert spec.raw_rate == 0.03
    assert len(kinds) > 20


def test_a_raw_line_probe_is_sent_compared_and_written_as_a_raw_step() -> None:
    echoed, no_seq = raw_request("unknown-cmd"), raw_request("no-seq")
    assert echoed.line(12) == ('{"seq":12,"cmd":"shuffle"}', 12)
    assert no_seq.line(12) == ('{"cmd":"state"}', None)
    assert raw_request("not-json").line(12) == ("this is not json", None)
    assert step_name(echoed.message) == "raw unknown-cmd"
    refused = {"seq": None, "ok": False, "error": {"code": "bad_request", "message": "x"}}
    assert compare_raw(refused, None, {**refused, "seq": 0}, None) == ["seq: expected null, got 0"]
    unknown = {"seq": 12, "ok": False, "error": {"code": "unknown_command", "message": "x"}}
    # Each side's seq is judged against the line its own client sent.
    assert compare_raw(unknown, 12, {**unknown, "seq": 30}, 30) == []
    assert compare_raw(unknown, 12, {**refused, "seq": 30}, 30) == [
        "error: expected unknown_command, got bad_request"
    ]
    assert compare_raw(unknown, 12, {**unknown, "seq": "30"}, 30) == [
        'seq: expected echoed, got "30"'
    ]
    largest = raw_request("seq-largest")
    start = request({"cmd": "start"})
    answers: list[dict[str, Any]] = [
        {"seq": 1, "ok": True, "events": []},
        {**unknown, "seq": 2},
        {**refused, "seq": None},
        {"seq": 9007199254740991, "ok": False, "error": {"code": "invalid_deck", "message": ""}},
        {"seq": 5, "ok": True, "state": {}},
    ]
    extra = raw_request("extra-fields")
    assert steps_of([start, echoed, no_seq, largest, extra], answers) == [
        {"raw": {"json": {"cmd": "shuffle"}}, "expect": {"error": "unknown_command"}},
        {
            "raw": {"json": {"cmd": "state"}, "add_seq": False},
            "expect": {"error": "bad_request", "seq": None},
        },
        {
            "raw": {"json": {"seq": 9007199254740991, "cmd": "deal", "deck": ["Ac"]}},
            "expect": {"error": "invalid_deck", "seq": 9007199254740991},
        },
        {"raw": {"json": {"cmd": "state", "colour": "blue", "x-trace": "abc"}}},
    ]


# -- comparing ------------------------------------------------------------------------


def test_answers_compare_as_a_replay_would() -> None:
    act = request({"cmd": "act", "seat": 0, "action": {"type": "call"}})
    refused = {"ok": False, "error": {"code": "call_over_limit", "message": "x"}}
    accepted = {"ok": True, "events": [{"type": "called", "seat": 0, "value": 9}]}
    assert compare_answers(act, refused, refused) == []
    assert compare_answers(act, refused, accepted) == [
        "error: expected call_over_limit, got accepted"
    ]
    other = {"ok": True, "events": [{"type": "called", "seat": 0, "value": 8}]}
    assert compare_answers(act, accepted, other) == ["events[0].value: expected 9, got 8"]
    state = request({"cmd": "state"})
    hands = {"ok": True, "state": {"hands": [["Ac", "2c"]], "round": 1}}
    shuffled = {"ok": True, "state": {"hands": [["2c", "Ac"]], "round": 1}}
    assert compare_answers(state, hands, shuffled) == []  # hands are sets, as in a check


def test_state_invariants_catch_lost_cards_and_uneven_transfers() -> None:
    state = {
        "phase": "pick",
        "hands": [["Ac"] * 4, ["2c"] * 5],
        "offer": ["3c"],
        "thrown": ["4c"],
        "deck": ["5c"] * 40,
        "out_of_play": [],
        "scores": [5, -4],
    }
    assert state_invariants(state, transfer=True) == [
        "invariant: 51 cards accounted for, not 52",
        "invariant: transfer scores [5, -4] do not sum to zero",
    ]
    assert state_invariants(state, transfer=False) == ["invariant: 51 cards accounted for, not 52"]


# -- runs -------------------------------------------------------------------------------

# For the tests of what a shrink ends at: a shrink that ends by its budget or of itself, never
# by the clock (its reserve is measured on its own replays: one slow batch on a loaded
# machine, a garbage collection, would end it early).
UNHURRIED = 600.0


def test_the_reference_against_itself_finds_nothing_and_counts_coverage() -> None:
    result = fuzz(config(default_engine(), games=15, jobs=2))
    assert result.finding is None
    assert result.games == 15
    assert result.requests > 500
    assert sum(s.games for s in result.stats.values()) == 15
    reached = {name for s in result.stats.values() for name in s.coverage}
    assert reached <= set(COUNTERS)
    assert "won calls" in reached
    # Raw-line probes included: the reference answers them as its model does.
    assert sum(s.coverage["raw-line probes"] for s in result.stats.values()) > 10


def test_a_declared_reading_is_fuzzed_as_its_own_profile(tmp_path: Path) -> None:
    # The mutant plays EverestBuzz's other reshuffle reading: it diverges from the base
    # profile, and agrees with the reference once it declares that reading.
    declared = tmp_path / "next-draw.yaml"
    declared.write_text(
        "profile_format: 1\nid: next-draw\nextends: everestbuzz\n"
        "readings:\n  reshuffle: next_draw\n"
    )
    documents, ids = with_profile_files(shipped_documents(), [str(declared)])
    engine = mutant("everestbuzz_reshuffle_at_next_draw")
    # The base run's first finding is all it is asked for: not shrunk, none other filed.
    base = fuzz(
        config(
            engine,
            documents=documents,
            profiles=("everestbuzz",),
            games=20,
            max_findings=1,
            shrink_budget=0,
        )
    )
    assert base.finding is not None
    assert base.finding.found.signature.startswith("everestbuzz ")
    under_reading = fuzz(config(engine, documents=documents, profiles=tuple(ids), games=20))
    assert ids == ["next-draw"]
    assert under_reading.finding is None
    at_next_draw = RESHUFFLE_COUNTERS[ReshuffleMoment.WHEN_DRAW_FINDS_DECK_EMPTY]
    assert under_reading.stats["next-draw"].coverage[at_next_draw] > 0


@pytest.mark.parametrize(
    ("name", "signature"),
    [
        # Over real pipes: the campaign, its checks of the transcript and `jhyap run` of it.
        pytest.param("deal_in_blocks", "dashain deal: hands differs", marks=pytest.mark.e2e),
        ("refusal_changes_state", "turn: turns_taken differs"),
        ("two_card_runs", "throws: accepts, illegal_throw expected"),
    ],
)
def test_a_broken_engine_is_caught_and_shrunk_to_a_failing_transcript(
    name: str, signature: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The run stops once that class is filed (it is the run's first): the classes after it
    # are not looked at.
    cfg = config(
        mutant(name),
        games=40,
        out=tmp_path,
        shrink_budget=8000,
        shrink_grace=UNHURRIED,
        max_findings=1,
    )
    result = fuzz(cfg)
    finding = next(f for f in result.findings if signature in f.found.signature)
    assert finding.transcript is not None
    assert finding.verified_ok, finding.verified
    steps = finding.data["steps"]
    assert 1 <= len(steps) <= 30
    transcript = load_transcript(finding.transcript)
    assert transcript.kind == "fuzz"
    assert transcript.raw["fuzz"]["signature"] == finding.shrunk.divergence.signature
    # `jhyap run` on the written transcript: fails against the mutant, passes against
    # the reference.
    assert_run_fails_then_passes(capsys, mutant(name), tmp_path, transcript.id)


@pytest.mark.parametrize(
    ("name", "place", "game", "index", "signature", "kind", "step"),
    [
        (
            "non_json_seq_zero",
            1,
            0,
            67,
            "dashain raw truncated-json: seq expected null, got 0",
            "protocol",
            {
                "raw": {"text": '{"seq":3,"cmd":"state"'},
                "expect": {"error": "bad_request", "seq": None},
            },
        ),
        (
            "unknown_command_bad_request",
            3,
            5,
            12,
            "everestbuzz raw cmd-wrong-case: expected unknown_command, got bad_request",
            "refusal",
            {"raw": {"json": {"cmd": "STATE"}}, "expect": {"error": "unknown_command"}},
        ),
        pytest.param(
            "string_seq_echoed",
            2,
            11,
            828,
            'everestbuzz raw seq-string: seq expected null, got "7"',
            "protocol",
            {
                "raw": {"json": {"seq": "7", "cmd": "state"}},
                "expect": {"error": "bad_request", "seq": None},
            },
            marks=pytest.mark.e2e,  # over real pipes: raw lines as written to a process
        ),
    ],
)
def test_an_engine_mishandling_raw_lines_is_caught_with_a_raw_step_transcript(
    name: str,
    place: int,
    game: int,
    index: int,
    signature: str,
    kind: str,
    step: object,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The run stops once the class is filed (the ``place``-th of the run): the classes
    # after it are not looked at.
    cfg = config(mutant(name), games=40, out=tmp_path, shrink_grace=UNHURRIED, max_findings=place)
    result = fuzz(cfg)
    # Each profile's answer to the line is its own class: the one of this profile.
    finding = next(f for f in result.findings if f.found.signature == signature)
    assert result.findings.index(finding) == place - 1
    assert finding.transcript is not None
    assert (finding.game, finding.found.index) == (game, index)
    assert (finding.found.signature, finding.found.kind) == (signature, kind)
    assert finding.shrunk.divergence.signature == signature
    assert finding.shrunk.divergence.index == 1  # the start, then the line
    assert finding.verified_ok, finding.verified
    data = read_yaml(finding.transcript)
    assert data["steps"] == [step]
    assert data["clauses"] == list(RAW_PROBES[signature.split()[2].rstrip(":")].clauses)
    assert_run_fails_then_passes(capsys, mutant(name), tmp_path, data["id"])


@pytest.mark.usefixtures("plans_made_afresh")
def test_shrinking_is_deterministic_for_a_seed(tmp_path: Path) -> None:
    # A budget the shrink runs out of (800 requests: 11 steps left of the game, where 3,000
    # shrink it to 2): the same seed stops at the same transcript too. A shrink that ends
    # of itself is in test_a_broken_engine_is_caught_and_shrunk_to_a_failing_transcript.
    written = []
    for attempt in ("a", "b"):
        cfg = config(
            mutant("two_card_runs"),
            games=40,
            out=tmp_path / attempt,
            shrink_budget=800,
            shrink_grace=UNHURRIED,
            max_findings=1,  # the run stops once its first class is filed
        )
        result = fuzz(cfg)
        assert result.finding is not None and result.finding.transcript is not None
        data = read_yaml(result.finding.transcript)
        assert str(tmp_path / attempt) in data["fuzz"].pop("replay")
        written.append(data)
    assert written[0] == written[1]
    assert written[0]["steps"]


def test_a_start_divergence_becomes_a_start_error_transcript(tmp_path: Path) -> None:
    result = fuzz(config(mutant("one_seat_too_many"), games=3, seats=7, out=tmp_path))
    finding = result.finding
    assert finding is not None and finding.transcript is not None
    data = read_yaml(finding.transcript)
    assert data["start_error"] == "invalid_seats"
    assert data["seats"] == 7
    assert "steps" not in data
    assert finding.verified_ok, finding.verified


# -- the command --------------------------------------------------------------------------


@pytest.mark.e2e
def test_the_command_reports_a_divergence_with_exit_1(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    result = jhyap(
        "fuzz", "--engine", mutant("deal_in_blocks"), "--games", "3", "--out",
        str(tmp_path / "found"), "--json", str(report),
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    # Every shipped profile in turn, in the order of their ids: game 0 is the first one;
    # each profile's deal is its own divergence class, each reported.
    assert "DIVERGED in game 0 (alankar-dhumbal)" in result.stdout
    assert "3 distinct divergence(s)" in result.stdout
    data = json.loads(report.read_text("utf-8"))
    jsonschema.validate(data, json.loads(FUZZ_REPORT_SCHEMA.read_text("utf-8")))
    assert (data["format"], data["format_version"]) == ("jhyap-fuzz-report", 1)
    assert data["command"][:2] == ["jhyap", "fuzz"]
    assert data["exit_status"] == 1
    assert [d["signature"] for d in data["divergences"]] == [
        f"{p} deal: hands differs" for p in ("alankar-dhumbal", "bga-yaniv", "dashain")
    ]
    assert all(d["verified"] for d in data["divergences"])
    assert all(Path(d["transcript"]).exists() for d in data["divergences"])


@pytest.mark.e2e
def test_a_known_divergence_does_not_fail_the_run(tmp_path: Path) -> None:
    known = tmp_path / "known.yaml"
    known.write_text(
        "- signature: '* deal: hands differs'\n"
        "  clause: dashain.deal.order\n"
        "  reason: we deal in blocks on purpose\n"
    )
    result = jhyap(
        "fuzz", "--engine", mutant("deal_in_blocks"), "--games", "3", "--profile", "dashain",
        "--known-divergences", str(known), "--out", str(tmp_path / "found"),
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "known divergence (" in result.stdout
    assert "games): dashain deal: hands differs" in result.stdout
    assert not (tmp_path / "found").exists()


@pytest.mark.e2e
def test_an_unusable_engine_exits_2(tmp_path: Path) -> None:
    result = jhyap("fuzz", "--engine", str(tmp_path / "no-such-engine"), "--games", "1")
    assert result.returncode == 2
    assert "the engine is unusable" in result.stderr


@pytest.mark.e2e
def test_a_bad_known_divergences_file_exits_2(tmp_path: Path) -> None:
    known = tmp_path / "known.yaml"
    known.write_text("- {signature: x}\n")
    with pytest.raises(KnownDivergenceError, match="entry 1: reason must say why"):
        load_known_divergences(known)
    result = jhyap("fuzz", "--games", "1", "--known-divergences", str(known))
    assert result.returncode == 2
    assert "entry 1: reason must say why it is accepted" in result.stderr


def test_divergence_signatures_do_not_name_seeds() -> None:
    found = Divergence(3, DivergenceKind.REFUSAL, "dhumbal call: expected a, got b", (), None, None)
    assert "seed" not in found.signature and found.describe().endswith("(refusal)")


# -- the pytest route -----------------------------------------------------------------------

pytest_plugins = ["pytester"]


@pytest.mark.e2e
def test_the_pytest_route_adds_a_fuzz_item(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.harness.test_pytest_plugin import DATA, plugin_args

    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    found = tmp_path / "found"

    def session(engine: str) -> pytest.RunResult:
        return pytester.runpytest(
            *plugin_args(), "-p", "no:cacheprovider", f"--jhyap-engine={engine}",
            f"--jhyap-transcripts={DATA}", "--jhyap-fuzz-games=2", f"--jhyap-fuzz-out={found}",
            "-k", "fuzz",
        )  # fmt: skip

    broken = session(mutant("deal_in_blocks"))
    broken.assert_outcomes(failed=1, deselected=5)
    broken.stdout.fnmatch_lines(
        ["*DIVERGED in game 0 (alankar-dhumbal)*", "*transcript: *kind fuzz*"]
    )
    session(default_engine()).assert_outcomes(passed=1, deselected=5)


def test_a_report_on_standard_output_leaves_the_text_on_standard_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `--json -` is standard output, as for run, coverage, simulate and merge: not a file
    # named "-" in the folder the command ran in.
    monkeypatch.chdir(tmp_path)
    found = str(tmp_path / "found")
    code, out, err = jhyap_here(
        capsys, "fuzz", "--games", "2", "--profile", "dhumbal", "--out", found, "--json", "-"
    )
    assert code == 0, err
    data = json.loads(out)
    jsonschema.validate(data, json.loads(FUZZ_REPORT_SCHEMA.read_text("utf-8")))
    assert (data["format"], data["exit_status"], data["games"]) == ("jhyap-fuzz-report", 0, 2)
    assert err.splitlines()[0].startswith("jhyap fuzz: ")
    assert err.splitlines()[-1] == "no divergence"
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_the_generator_reaches_a_first_starter_after_another_seat_won() -> None:
    # A parameter the fuzzer reaches through the profile it plays: under the variant, a
    # hand won by another seat is followed by a hand that seat 0 starts.
    from conformance.fuzz.steer import random_spec
    from conformance.spec.profiles import load_profile
    from reference_engine.server import Session

    variant = ROOT / "tests/data/variants/dhumbal-first-starter-every-hand.yaml"
    documents = {"variant": load_profile(variant)}
    reached = []
    for seed in range(40):
        plan = fuzz_generate.generate(
            documents["variant"], random_spec(documents, "variant", seed, seats=3)
        )
        session, winner = Session(), None
        for seq, req in enumerate(plan.requests):
            if req.raw is not None:
                continue
            for event in session.handle({**req.message, "seq": seq}).get("events") or ():
                if event["type"] == "round_ended":
                    winner = event["winner"]
                elif event["type"] == "round_started" and winner not in (None, 0):
                    reached.append((winner, event["starter"]))
        if reached:
            break
    assert reached and {starter for _, starter in reached} == {0}


def test_the_generator_reaches_offers_going_under_the_deck() -> None:
    # Under the variant (deck_runs_out offer_under_deck), the fuzzer's games send covered
    # offers under the deck, and never put a card out of play or ask for a new deck.
    variant = ROOT / "tests/data/variants/dhumbal-offer-under-deck.yaml"
    kinds: set[str] = set()
    for answers in variant_answers(variant, seeds=3, seats=3):
        for events in answers:
            kinds.update(event["type"] for event in events)
    assert "under_deck" in kinds
    assert not kinds & {"out_of_play", "reshuffle_needed", "reshuffled"}


def test_the_generator_reaches_the_card_under_kept_aside() -> None:
    # Under the variant (reshuffle.kept_aside offer_and_card_under), some reshuffle the
    # fuzzer's games make is followed by the previous throw's top card going out of play.
    variant = ROOT / "tests/data/variants/dhumbal-card-under-kept.yaml"
    kept = 0
    for answers in variant_answers(variant, seeds=40, seats=3):
        for events in answers:
            types = [event["type"] for event in events]
            kept += types[:2] == ["reshuffled", "out_of_play"]
        if kept:
            break
    assert kept


def test_the_generator_reaches_a_hand_ended_by_a_draw_from_the_empty_deck() -> None:
    # Under the variant (deck_runs_out_when draw_finds_deck_empty), some hand of the fuzzer's
    # games ends at a pick request that picks nothing: a draw from the empty deck.
    variant = ROOT / "tests/data/variants/dhumbal-deck-out-ends-at-draw.yaml"
    ended = 0
    for answers in variant_answers(variant, seeds=40, seats=3):
        for events in answers:
            ended += [e["type"] for e in events][:1] == ["round_ended"] and (
                events[0]["outcome"] == "deck_ran_out"
            )
        if ended:
            break
    assert ended


@pytest.mark.parametrize(
    ("name", "caller_scores"),
    [
        ("yaniv-israel-asaf-hand-doubled", lambda hand: 2 * hand),
        ("yaniv-israel-asaf-fixed-30", lambda hand: 30),
    ],
)
def test_the_generator_reaches_a_beaten_call_under_the_new_beaten_call_values(
    name: str, caller_scores: Callable[[int], int]
) -> None:
    # caller_hand_times and penalty_only, reached through the profile the fuzzer plays: a
    # beaten call whose caller scores double their hand, or 30 whatever their hand.
    reached = []
    for answers in variant_answers(ROOT / f"tests/data/variants/{name}.yaml", 40, seats=3):
        for event in (event for events in answers for event in events):
            if event["type"] == "round_ended" and event["outcome"] == "beaten_call":
                caller = event["caller"]
                reached.append(
                    (caller_scores(event["hand_values"][caller]), event["deltas"][caller])
                )
        if reached:
            break
    assert reached and all(expected == scored for expected, scored in reached)


def test_the_generator_reaches_a_slapdown_and_refuses_a_wrong_one() -> None:
    # throws.slapdown, reached through the profile the fuzzer plays: a card drawn of the rank
    # of the drawer's single slapped down, and a slapdown the table refuses.
    from conformance.fuzz.steer import random_spec
    from conformance.spec.profiles import load_profile
    from reference_engine.server import Session

    documents = {"variant": load_profile(ROOT / "tests/data/variants/bga-yaniv-slapdown.yaml")}
    slapped, refused = 0, 0
    for seed in range(40):
        plan = fuzz_generate.generate(
            documents["variant"], random_spec(documents, "variant", seed, seats=3)
        )
        session = Session()
        for seq, req in enumerate(plan.requests):
            if req.raw is not None:
                continue
            answer = session.handle({**req.message, "seq": seq})
            slapped += any(e["type"] == "slapped_down" for e in answer.get("events") or ())
            refused += (answer.get("error") or {}).get("code") == "slapdown_not_allowed"
        if slapped and refused:
            break
    assert slapped > 0 and refused > 0


def _offer_picks_by_scope(pid: str, choice: str, games: int) -> dict[str, int]:
    """Over the generator's games under reading multi_throw_scope ``choice`` of ``pid``
    (only those with the pick rule on), the picks from the offer: right after the picker's
    own throw of several cards, after a single by a seat that threw several earlier in this
    hand, or only in earlier hands, or never; and the single throws of seats that threw
    several earlier in the hand."""
    from conformance.fuzz.steer import random_spec
    from conformance.spec import readings
    from reference_engine.server import Session

    declared = readings.declared(shipped_documents()[pid], "multi_throw_scope", choice)
    documents = {declared["id"]: declared}
    kinds = ("own_turn", "this_hand", "earlier_hand", "never", "single_after_several")
    found = dict.fromkeys(kinds, 0)
    played = 0
    for seed in range(200):
        spec = random_spec(documents, declared["id"], seed, seats=3)
        if spec.options.get("card_pick_rule") is False:
            continue
        plan = fuzz_generate.generate(declared, spec)
        session, several = Session(), False
        hand: set[int] = set()
        game: set[int] = set()
        for seq, req in enumerate(plan.requests):
            if req.raw is not None:
                continue
            for event in session.handle({**req.message, "seq": seq}).get("events") or ():
                if event["type"] == "round_started":
                    hand.clear()
                elif event["type"] == "thrown":
                    several = len(event["cards"]) >= 2
                    if not several and event["seat"] in hand:
                        found["single_after_several"] += 1
                    if several:
                        hand.add(event["seat"])
                        game.add(event["seat"])
                elif event["type"] == "picked" and event["from"] == "offer":
                    seat = event["seat"]
                    if several:
                        found["own_turn"] += 1
                    elif seat in hand:
                        found["this_hand"] += 1
                    else:
                        found["earlier_hand" if seat in game else "never"] += 1
        played += 1
        if played == games:
            break
    return found


def test_the_generator_reaches_a_turn_scope_refusing_an_earlier_multi_throw() -> None:
    # Under yarsa-dhumbal's reading turn, seats that threw several cards earlier in the hand
    # throw singles and then never take from the offer: every such pick follows the picker's
    # own throw of several cards on that turn.
    found = _offer_picks_by_scope("yarsa-dhumbal", "turn", games=10)
    assert found["own_turn"] > 0
    assert found["single_after_several"] > 0
    assert (found["this_hand"], found["earlier_hand"], found["never"]) == (0, 0, 0)


def test_the_generator_reaches_a_game_scope_opening_the_offer_in_a_later_hand() -> None:
    # Under alankar-dhumbal's reading game with the Card Pick Rule on, a seat whose throws of
    # several cards were all in earlier hands takes from the offer; one that never threw
    # several does not.
    found = _offer_picks_by_scope("alankar-dhumbal", "game", games=20)
    assert found["own_turn"] > 0
    assert found["earlier_hand"] > 0
    assert found["never"] == 0


def test_the_generator_reaches_the_first_pick_without_a_turned_up_card() -> None:
    # Under deal.first_offer none (the variant's), every hand deals with turned_up null, the
    # hand's first pick is from the deck, a later pick takes from the offer, and a probe
    # picking from the absent offer is refused card_not_on_offer.
    from conformance.fuzz.steer import random_spec
    from conformance.spec.profiles import load_profile
    from reference_engine.server import Session

    variant = ROOT / "tests/data/variants/alankar-dhumbal-no-first-offer.yaml"
    documents = {"variant": load_profile(variant)}
    turned_up: set[Any] = set()
    first_picks: set[str] = set()
    offer_picks = refused_first = 0
    for seed in range(40):
        spec = random_spec(documents, "variant", seed, seats=3)
        plan = fuzz_generate.generate(documents["variant"], spec)
        session, first = Session(), False
        for seq, req in enumerate(plan.requests):
            if req.raw is not None:
                continue
            answer = session.handle({**req.message, "seq": seq})
            action = req.message.get("action") or {}
            if first and not answer["ok"] and action.get("from") == "offer":
                # A probe from another seat or before the throw is refused for that first.
                code = answer["error"]["code"]
                assert code in ("card_not_on_offer", "not_your_turn", "invalid_seat", "wrong_phase")
                refused_first += code == "card_not_on_offer"
            for event in answer.get("events") or ():
                if event["type"] == "dealt":
                    turned_up.add(event["turned_up"])
                    first = True
                elif event["type"] == "picked":
                    if first:
                        first_picks.add(event["from"])
                        first = False
                    elif event["from"] == "offer":
                        offer_picks += 1
        if refused_first and offer_picks:
            break
    assert turned_up == {None}
    assert first_picks == {"deck"}
    assert offer_picks > 0 and refused_first > 0


def test_the_generator_reaches_a_run_refused_out_of_order_then_placed_lowest_first() -> None:
    # throws.run.order ascending, reached through the profile the fuzzer plays: a run placed
    # otherwise than lowest first is refused illegal_throw, then thrown lowest first.

    variant = ROOT / "tests/data/variants/dhumbal-runs-ascending.yaml"
    refused, thrown = 0, 0
    for replies in variant_replies(variant, seeds=40):
        for message, answer in replies:
            action = message.get("action") or {}
            cards = action.get("cards") if isinstance(action, dict) else None
            if not isinstance(cards, list) or len(cards) < 3:
                continue
            if answer["ok"]:
                thrown += any(
                    e["type"] == "thrown" and e["kind"] == "run" for e in answer["events"]
                )
            elif (
                answer["error"]["code"] == "illegal_throw"
                and "lowest first" in answer["error"]["message"]
            ):
                refused += 1
        if refused and thrown:
            break
    assert refused > 0 and thrown > 0


def test_the_generator_reaches_runs_laid_by_rank_and_sets_as_placed() -> None:
    # throws.laid runs_by_rank, reached through the profile the fuzzer plays: a run placed out
    # of rank order lies by rank, a set placed out of canonical order lies as placed.
    from jhyap_core.cards import parse_cards, sorted_names

    variant = ROOT / "tests/data/variants/bga-yaniv-runs-by-rank.yaml"
    reached: dict[str, int] = {"run": 0, "set": 0}
    for replies in variant_replies(variant, seeds=60):
        for message, answer in replies:
            action = message.get("action")
            if not answer["ok"] or not isinstance(action, dict) or action.get("type") != "throw":
                continue
            placed = action["cards"]
            for event in answer["events"]:
                if event["type"] != "thrown" or event["kind"] == "single":
                    continue
                kind, laid = event["kind"], event["cards"]
                if kind == "set" and placed != sorted_names(parse_cards(placed)):
                    assert laid == placed
                    reached["set"] += 1
                elif kind == "run" and laid != placed:
                    reached["run"] += 1
        if all(reached.values()):
            break
    assert all(reached.values()), reached


def test_the_generator_reaches_a_refused_joker_alone() -> None:
    # throws.single_joker false, reached through the profile the fuzzer plays: its probes
    # throw single cards of the hand, a joker among them, refused while another throw is legal.

    variant = ROOT / "tests/data/variants/bga-yaniv-jokers-only-in-runs.yaml"
    refused = 0
    for replies in variant_replies(variant, seeds=80):
        for _, answer in replies:
            if not answer["ok"] and "a joker may not be thrown alone" in answer["error"]["message"]:
                refused += 1
        if refused:
            break
    assert refused > 0


def test_the_generator_reaches_a_spare_joker_below_a_run() -> None:
    # throws.run.jokers_extend down_first, reached through the profile the fuzzer plays: a
    # thrown run whose spare joker stands below its lowest natural card.
    from conformance.spec.profiles import load_profile
    from jhyap_core.cards import parse_cards
    from jhyap_core.profile import resolve
    from reference_engine import throws
    from reference_engine.rules import Rules

    variant = ROOT / "tests/data/variants/yaniv-israel-jokers-extend-down.yaml"
    rules = Rules.from_profile(resolve(load_profile(variant)))
    below = 0
    for replies in variant_replies(variant, seeds=80):
        for _, answer in replies:
            for event in answer.get("events") or ():
                if event["type"] == "thrown" and event["kind"] == "run" and "X" in event["cards"]:
                    positions = throws.run_positions(parse_cards(event["cards"]), rules)
                    assert positions is not None
                    naturals = [rank for card, rank in positions if not card.is_joker]
                    below += positions[0][0].is_joker and positions[0][1] < min(naturals)
        if below:
            break
    assert below > 0


def test_the_generator_reaches_the_highest_single_reading() -> None:
    # Reading single_card highest of yarsa-dhumbal (throws.single highest_when_no_combination),
    # reached through the profile the fuzzer plays: singles thrown from hands without a set or
    # sequence, each of the hand's highest value.
    from conformance.fuzz.steer import random_spec
    from conformance.spec import readings
    from jhyap_core.cards import parse_cards
    from jhyap_core.profile import resolve
    from reference_engine import throws
    from reference_engine.rules import Rules, SingleThrow
    from reference_engine.server import Session

    declared = readings.declared(shipped_documents()["yarsa-dhumbal"], "single_card", "highest")
    rules = Rules.from_profile(resolve(declared))
    any_single = rules.with_values({"throws.single": SingleThrow.ANY})
    reached = 0
    for seed in range(40):
        plan = fuzz_generate.generate(
            declared, random_spec({declared["id"]: declared}, declared["id"], seed)
        )
        session = Session()
        for seq, req in enumerate(plan.requests):
            if req.raw is not None:
                continue
            before = session.handle({"cmd": "state", "seq": seq})
            answer = session.handle({**req.message, "seq": seq})
            for event in answer.get("events") or ():
                if event["type"] != "thrown" or event["kind"] != "single" or not before["ok"]:
                    continue
                hand = parse_cards(before["state"]["hands"][event["seat"]])
                if all(len(t) == 1 for t in throws.legal_throws(hand, any_single)):
                    value = rules.cards.card_value
                    assert value(parse_cards(event["cards"])[0]) == max(map(value, hand))
                    reached += 1
        if reached:
            break
    assert reached > 0


@pytest.mark.parametrize(
    ("name", "spared", "above_lowest"),
    [
        # every other hand as low as the lowest
        (
            "yaniv-israel-tied-lowest-score-nothing",
            lambda value, lowest, caller: value == lowest,
            False,
        ),
        # every other hand that beats the call (equal or lower: Israeli Yaniv's tie rule), one
        # of them above the lowest
        ("yaniv-israel-beaters-score-nothing", lambda value, lowest, caller: value <= caller, True),
    ],
)
def test_the_generator_reaches_several_winners_scoring_nothing(
    name: str, spared: Callable[[int, int, int], bool], above_lowest: bool
) -> None:
    # scoring.beaten_others score_own_hands_but_lowest and score_own_hands_but_beaters,
    # reached through the profile the fuzzer plays (its deals aimed at ties and tie-breaks): a
    # beaten call where two or more other seats are spared, each scoring 0, the rest their
    # hands.
    reached = []
    for answers in variant_answers(ROOT / f"tests/data/variants/{name}.yaml", 80, seats=4):
        for event in (event for events in answers for event in events):
            if event["type"] != "round_ended" or event["outcome"] != "beaten_call":
                continue
            values, caller = event["hand_values"], event["caller"]
            others = [s for s, v in enumerate(values) if v is not None and s != caller]
            lowest = min(values[s] for s in others)
            zero = {s for s in others if spared(values[s], lowest, values[caller])}
            if len(zero) >= 2 and (not above_lowest or max(values[s] for s in zero) > lowest):
                expected = {s: 0 if s in zero else values[s] for s in others}
                reached.append((expected, {s: event["deltas"][s] for s in others}))
        if reached:
            break
    assert reached and all(expected == scored for expected, scored in reached)


def test_the_generator_reaches_hands_of_jokers_only_below_zero() -> None:
    # card_values.only_jokers, reached through the profile the fuzzer plays: the -5 variant
    # with hands of two cards and four jokers a pack, so that hands of jokers only come
    # often; each hand value below 0 at a hand's end is -5 for each joker.
    from conformance.fuzz.steer import random_spec
    from conformance.spec.profiles import load_profile
    from reference_engine.server import Session

    document = load_profile(ROOT / "tests/data/variants/yaniv-israel-jokers-only-minus-5.yaml")
    document["rules"]["hand_size"] = 2
    document["rules"]["deck"]["jokers"] = 4
    documents = {"variant": document}
    reached = []
    for seed in range(40):
        plan = fuzz_generate.generate(document, random_spec(documents, "variant", seed, seats=3))
        session = Session()
        for seq, req in enumerate(plan.requests):
            if req.raw is not None:
                continue
            for event in session.handle({**req.message, "seq": seq}).get("events") or ():
                if event["type"] == "round_ended":
                    reached += [v for v in event["hand_values"] if v is not None and v < 0]
        if reached:
            break
    assert reached and all(v in (-5, -10) for v in reached)


def test_the_generator_reaches_an_own_hand_drop_under_multiples_for() -> None:
    # scoring.multiples_for own_hand, reached through the profile the fuzzer plays: a seat
    # whose own hand lands its total on a multiple of 50 drops by 50. (The other branch, a
    # beaten caller's penalty alone landing on a multiple, is left to the rule model's
    # showdown check and the oracle transcript: the generator does not aim at it.)
    from conformance.fuzz.steer import random_spec
    from conformance.spec.profiles import load_profile
    from reference_engine.server import Session

    document = load_profile(ROOT / "tests/data/variants/yaniv-israel-drop-50-own-hand.yaml")
    documents = {"variant": document}
    reached = []
    for seed in range(40):
        plan = fuzz_generate.generate(document, random_spec(documents, "variant", seed, seats=3))
        session, before = Session(), [0, 0, 0]
        for seq, req in enumerate(plan.requests):
            if req.raw is not None:
                continue
            for event in session.handle({**req.message, "seq": seq}).get("events") or ():
                if event["type"] != "round_ended":
                    continue
                penalty_alone = event["caller"] if event["outcome"] == "beaten_call" else None
                for seat, delta in enumerate(event["deltas"]):
                    total = before[seat] + delta
                    own = delta and event["hand_values"][seat] and seat != penalty_alone
                    if own and total % 50 == 0 and total != 200:
                        reached.append((total, event["scores"][seat]))
                before = list(event["scores"])
        if reached:
            break
    assert reached and all(score == total - 50 for total, score in reached)
