"""`jhyap fuzz` plumbing: large hands, many jobs within --time, engines that decline a
table, and the steering that reaches every counter a profile can reach."""

from __future__ import annotations

import copy
import random
import shlex
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from conformance.commands.run import default_engine
from conformance.fuzz.campaign import LAG, fuzz, plan_for
from conformance.fuzz.counters import (
    COUNTERS,
    SHARED_WINS,
    applicable_counters,
    unreachable_counters,
)
from conformance.fuzz.deals import DEAL_STYLES, TARGETED_STYLES, deal_order
from conformance.spec.transcript_profiles import shipped_documents
from jhyap_core.profile import resolve
from reference_engine.server import Session
from tests.conftest import ROOT
from tests.fuzz.test_fuzz import config, jhyap

FAKE = ROOT / "tests" / "fake_engines"
EVERY_PROFILE = tuple(sorted(shipped_documents()))


def test_hands_of_15_cards_or_more_are_generated() -> None:
    # The mirrored deal drew a hand value between size + 1 and 15: empty for 15 cards.
    document = copy.deepcopy(dict(shipped_documents()["dhumbal"]))
    document["rules"]["hand_size"] = 15
    document["rules"]["seats"] = {"min": 2, "max": 3}
    session = Session()
    started = session.handle({"seq": 0, "cmd": "start", "profile": resolve(document), "seats": 3})
    assert started["ok"], started
    assert session.game is not None
    for seed in range(20):
        for style in (*DEAL_STYLES, *TARGETED_STYLES):
            order = deal_order(session.game, random.Random(seed), style)
            assert sorted(map(str, order)) == sorted(map(str, session.game.full_deck))
    cfg = config(default_engine(), documents={"dhumbal": document}, profiles=("dhumbal",))
    plan = plan_for(cfg, 0, ())
    assert plan.requests[0].message["profile"]["rules"]["hand_size"] == 15


# Short runs: what is checked is the end at the time however many engines start, and each
# second of a run is two cores of work (5 s and 8 s cost a 2-core test run 26 s of CPU).
@pytest.mark.parametrize(("jobs", "seconds"), [(40, 2), (200, 3)])
@pytest.mark.e2e
def test_many_jobs_end_near_the_time(jobs: int, seconds: int, tmp_path: Path) -> None:
    began = time.monotonic()
    result = jhyap(
        "fuzz", "--jobs", str(jobs), "--time", str(seconds), "--out", str(tmp_path / "out")
    )
    wall = time.monotonic() - began
    assert result.returncode in (0, 2), result.stderr
    assert "Traceback" not in result.stderr
    # The run itself (its own clock) ends at the time; the rest is starting Python and
    # stopping the engines started (before: 32 s for --jobs 40 --time 5).
    ran = float(result.stdout.split(" requests in ")[1].split(" s ")[0])
    assert ran < seconds + 1.0, result.stdout
    assert wall < seconds + 12, wall


def _declining_engine(tmp_path: Path) -> str:
    """An engine that declines every table dealing other than 5 cards (unsupported_option)."""
    script = tmp_path / "decline_hand_size.py"
    script.write_text(
        f"import sys\nsys.path.insert(0, {str(FAKE)!r})\n"
        "from _common import respond, serve\n\n\n"
        "def hook(request, session):\n"
        "    options = request.get('options') or {}\n"
        "    if request.get('cmd') == 'start' and options.get('cards_dealt', 5) != 5:\n"
        "        error = {'code': 'unsupported_option', 'message': 'only 5 cards dealt'}\n"
        "        return respond({'seq': request['seq'], 'ok': False, 'error': error})\n"
        "    return None\n\n\n"
        "raise SystemExit(serve(hook))\n",
        "utf-8",
    )
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


@pytest.mark.usefixtures("fuzz_engines")  # the engine in this process
def test_a_declined_option_is_skipped_not_a_divergence(tmp_path: Path) -> None:
    cfg = config(_declining_engine(tmp_path), profiles=("bga-yaniv",), games=16, out=tmp_path)
    result = fuzz(cfg)
    assert result.findings == []
    stats = result.stats["bga-yaniv"]
    assert stats.unsupported > 0 and stats.games > 0
    assert stats.declined == Counter({"unsupported_option: only 5 cards dealt": stats.unsupported})
    hand_sizes = {v for v in stats.declined_values if v.startswith("cards_dealt=")}
    assert hand_sizes and "cards_dealt=5" not in hand_sizes, hand_sizes
    assert "cards_dealt=5" in stats.accepted_values
    assert all(v in stats.declined_values for v in stats.never_accepted())


@pytest.mark.e2e
def test_a_declined_profile_is_reported_as_not_applicable(tmp_path: Path) -> None:
    # Refused tables (too few or too many seats) included: the engine declines them too,
    # which is no divergence either (before: "expected invalid_seats, got unsupported_profile").
    engine = f"{shlex.quote(sys.executable)} {shlex.quote(str(FAKE / 'unsupported.py'))}"
    result = jhyap(
        "fuzz", "--engine", engine, "--profile", "dhumbal", "--games", "6", "--out", str(tmp_path)
    )
    assert "DIVERGED" not in result.stdout
    assert list(tmp_path.glob("*.yaml")) == []
    assert "not applicable: the engine declined 6 of 6 dhumbal games" in result.stdout
    assert "never reached" not in result.stdout
    assert result.returncode == 2
    assert result.stderr.strip().endswith("the engine declined every game: nothing was fuzzed")


def test_counters_a_profile_cannot_reach_are_shown_with_the_reason() -> None:
    unreachable = unreachable_counters(shipped_documents()["dhumbal"])
    assert unreachable[SHARED_WINS] == "the game does not end after a fixed number of rounds"
    for profile in EVERY_PROFILE:
        document = shipped_documents()[profile]
        reachable = set(applicable_counters(document))
        assert reachable.isdisjoint(unreachable_counters(document))
        assert reachable | set(unreachable_counters(document)) == set(COUNTERS)


@pytest.mark.parametrize("profile", EVERY_PROFILE)
def test_steering_reaches_every_counter_within_a_short_run(profile: str) -> None:
    # The campaign's loop without engines, with its lag: game g sees the coverage of the
    # games before g - LAG. 50 games is what a 60 s run plays on a loaded machine.
    cfg = config(default_engine(), profiles=(profile,), seed=0)
    possible = applicable_counters(cfg.documents[profile])
    history: list[Counter[str]] = []
    reached: Counter[str] = Counter()
    for game in range(50):
        seen: Counter[str] = sum(history[: max(0, game - LAG + 1)], Counter())
        plan = plan_for(cfg, game, tuple(c for c in possible if not seen[c]))
        history.append(plan.coverage)
        reached.update(plan.coverage)
        if all(reached[c] for c in possible):
            break
    assert [c for c in possible if not reached[c]] == []
