"""Policies see only what a player sees; the heuristic beats random play; simulate's figures."""

from __future__ import annotations

import copy
import io
import json
import math
import random
import shlex
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance import cli
from conformance.commands import jobs_count
from conformance.commands.simulate import Progress
from conformance.simulation.play import SimulationSpec, play_games
from conformance.simulation.stats import mean, share, summarise
from conformance.spec.data import shipped_profile_ids
from conformance.spec.profiles import load_profile
from jhyap_core.cards import DECK, parse_cards
from jhyap_core.vocabulary import Phase
from reference_engine.actions import Call, PickOffer, ThrowCards
from reference_engine.game import Game
from reference_engine.policies import (
    PublicView,
    TableMemory,
    chance_lowest,
    heuristic_policy,
    random_policy,
    step,
)

PROFILES = shipped_profile_ids()


def _midgame(profile: str, seed: int, steps: int) -> tuple[Game, TableMemory]:
    """A 4-seat game played ``steps`` requests into a hand, stopped at a seat's decision."""
    document = load_profile(profile)
    seats = max(document["rules"]["seats"]["min"], min(4, document["rules"]["seats"]["max"]))
    game = Game(document, seats)
    memory = TableMemory(seats)
    rng = random.Random(seed)
    policies = [random_policy] * seats
    for _ in range(steps):
        step(game, memory, policies, rng, max_rounds=50)
        if game.phase is Phase.GAME_OVER:
            break
    while game.legal_actions() is None and game.phase is not Phase.GAME_OVER:
        step(game, memory, policies, rng, max_rounds=50)
    return game, memory


def _hide_differently(game: Game, seat: int, rng: random.Random) -> Game:
    """The same table with one hidden card of another seat swapped for one in the deck."""
    other = copy.deepcopy(game)
    others = [s for s in other.active if s != seat and other.hands[s]]
    if not other.deck or not others:
        return other
    victim = rng.choice(others)
    i, j = rng.randrange(len(other.hands[victim])), rng.randrange(len(other.deck))
    other.hands[victim][i], other.deck[j] = other.deck[j], other.hands[victim][i]
    return other


@settings(max_examples=40, deadline=None)
@given(
    profile=st.sampled_from(PROFILES),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 120),
)
def test_a_view_does_not_change_with_hidden_cards(profile: str, seed: int, steps: int) -> None:
    game, memory = _midgame(profile, seed, steps)
    if game.phase is Phase.GAME_OVER:
        return
    view = memory.view(game)
    rng = random.Random(seed)
    for _ in range(5):
        other = _hide_differently(game, view.seat, rng)
        known = {c for held in memory.known_held for c in held}
        if any(
            c in known for s in range(game.seats) for c in other.hands[s] if c not in game.hands[s]
        ):
            continue  # the swap moved a card everybody saw taken: no longer hidden
        assert memory.view(other) == view
        assert heuristic_policy(memory.view(other), random.Random(1)) == heuristic_policy(
            view, random.Random(1)
        )


def test_a_view_holds_no_other_hand() -> None:
    game, memory = _midgame("dhumbal", 3, 30)
    view = memory.view(game)
    hidden = {c for s in game.active if s != view.seat for c in game.hands[s]} | set(game.deck)
    shown = set(view.hand) | set(view.offer) | set(view.thrown) | set(view.out_of_play)
    shown |= {c for held in view.known_held for c in held}
    assert not (hidden - {c for held in view.known_held for c in held}) & shown
    assert set(view.unseen()) >= hidden - {c for held in view.known_held for c in held}
    assert not any(isinstance(getattr(view, name), Game) for name in PublicView.__slots__)


def _dealt(profile: str, seat0: str, seat1: str, turned_up: str) -> tuple[Game, TableMemory]:
    """A two-seat hand with the given hands (seat 0 is dealt first) and turned-up card."""
    game = Game(load_profile(profile), 2)
    memory = TableMemory(2)
    first = [
        c
        for pair in zip(parse_cards(seat0.split()), parse_cards(seat1.split()), strict=True)
        for c in pair
    ] + parse_cards([turned_up])
    memory.observe(game.deal(first + [c for c in DECK if c not in first]))
    return game, memory


def test_the_heuristic_calls_a_hand_that_is_probably_lowest() -> None:
    game, memory = _dealt("everestbuzz", "Ac Ad Ah As 2c", "Kc Kd Kh Ks Qc", "9d")
    view = memory.view(game)
    assert view.seat == 0 and view.value(view.hand) == 6 and view.legal.call
    assert chance_lowest(view) > 0.99
    assert heuristic_policy(view, random.Random(0)) == Call()


def test_the_heuristic_keeps_what_the_offer_completes() -> None:
    game, memory = _dealt("dhumbal", "Kc Kd 2c 3c 4c", "5d 6d 7h 8h 9s", "Kh")
    view = memory.view(game)
    assert not view.legal.call  # worth 35, over the limit
    # The highest throw is the two kings, but the turned-up king would make them a set.
    throw = heuristic_policy(view, random.Random(0))
    assert throw == ThrowCards(tuple(parse_cards(["2c", "3c", "4c"])))
    memory.observe(game.act(0, throw))
    assert heuristic_policy(memory.view(game), random.Random(0)) == PickOffer(
        parse_cards(["Kh"])[0]
    )


def test_the_heuristic_throws_its_highest_throw() -> None:
    game, memory = _dealt("dhumbal", "Kc Kd 2c 3c 4c", "5d 6d 7h 8h 9s", "Ts")
    throw = heuristic_policy(memory.view(game), random.Random(0))
    assert throw == ThrowCards(tuple(parse_cards(["Kc", "Kd"])))


@pytest.mark.parametrize("profile", PROFILES)
def test_the_heuristic_beats_random_play(profile: str) -> None:
    """Two heuristic seats against two random ones win far more than half the hands."""
    document = load_profile(profile)
    seats = max(document["rules"]["seats"]["min"], min(4, document["rules"]["seats"]["max"]))
    spec = SimulationSpec(document, seats, ("heuristic", "random"), {}, max_rounds=10)
    hands = [h for g in play_games(spec, 20, "margin") for h in g.hands]
    won = sum(h.winner_policy == "heuristic" for h in hands)
    heuristic_seats = sum(1 for p in spec.seat_policies() if p == "heuristic")
    fair_share = heuristic_seats / seats
    assert len(hands) >= 40
    # The margin: at least 90 % of hands against a fair share of 50 %.
    assert fair_share == 0.5
    assert won / len(hands) >= 0.9, (won, len(hands))


@pytest.mark.e2e
def test_the_same_seed_gives_the_same_games_whatever_the_jobs() -> None:
    spec = SimulationSpec(load_profile("everestbuzz"), 3, ("heuristic",), {}, max_rounds=10)
    one = play_games(spec, 6, 42, jobs=1, chunk=2)
    two = play_games(spec, 6, 42, jobs=2, chunk=2)
    assert one == two
    assert one != play_games(spec, 6, 43, jobs=1, chunk=2)


def test_estimates() -> None:
    m = mean([1.0, 2.0, 3.0, 4.0])
    assert m.value == 2.5 and m.n == 4
    assert math.isclose(m.high - m.value, 1.959963984540054 * math.sqrt(5 / 3) / 2)
    s = share(5, 10)
    assert s.value == 0.5
    assert math.isclose(s.low, 0.23659309, rel_tol=1e-6)
    assert math.isclose(s.high, 0.76340691, rel_tol=1e-6)
    assert share(0, 0).n == 0 and math.isnan(share(0, 0).value)


def test_summary_counts_hands_and_games() -> None:
    spec = SimulationSpec(load_profile("everestbuzz"), 3, ("heuristic",), {}, max_rounds=50)
    records = play_games(spec, 4, 7)
    summary = summarise(records)
    # A friends' table of EverestBuzz plays three hands a game, each ended by a call.
    assert summary.hands == 12 and summary.hands_per_game.value == 3.0
    assert summary.unfinished_games == 0
    assert sum(e.value for e in summary.win_by_position) == pytest.approx(1.0)


def test_simulate_command_json(capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(
        ["simulate", "dhumbal", "--games", "3", "--seed", "5", "--json", "-", "-o", "call_limit=15"]
    )
    out = json.loads(capsys.readouterr().out)
    assert status == 0
    assert out["profile"] == "dhumbal" and out["options"] == {"call_limit": 15}
    assert out["games"] == 3 and out["seats"] == 4
    assert out["policies"] == ["heuristic"] * 4
    again = cli.main(
        ["simulate", "dhumbal", "--games", "3", "--seed", "5", "--json", "-", "-o", "call_limit=15"]
    )
    captured = capsys.readouterr()
    assert again == 0 and json.loads(captured.out) == out
    # stderr is no terminal here: the progress is a log, which ends with the count played.
    assert captured.err == "jhyap simulate: played 3/3 games\n"


def test_the_readme_simulate_line_is_a_quick_one() -> None:
    """A newcomer's first simulate: 200 games on every CPU (a few seconds), not 1,000 in one
    process (minutes)."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text("utf-8")
    line = next(x for x in readme.splitlines() if x.startswith("jhyap simulate "))
    words = shlex.split(line.split("#")[0])[1:]
    args = cli.build_parser(words).parse_args(words)
    assert (args.games, args.jobs) == (200, jobs_count("auto"))
    assert words[words.index("--jobs") + 1] == "auto"


def test_simulate_counts_one_game_and_one_hand_in_the_singular(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert (
        cli.main(["simulate", "dhumbal", "--games", "1", "--seats", "2", "--max-rounds", "1"]) == 0
    )
    out, err = capsys.readouterr()
    assert err == "jhyap simulate: played 1/1 game\n"
    assert out.splitlines()[:2] == [
        "dhumbal (defaults), 2 seats, heuristic play, 1 game, seed 0",
        "1 hand; 95 % confidence intervals in brackets",
    ]
    assert "  (1 game unfinished after 1 hand is left out of the per-game figures)" in out


def test_simulate_logs_its_progress_every_few_seconds_off_a_terminal() -> None:
    stream = io.StringIO()
    now = [0.0]
    progress = Progress(100, stream, clock=lambda: now[0])
    for done, at in ((25, 1.0), (50, 5.5), (75, 9.0), (100, 9.5)):
        now[0] = at
        progress(done)
    progress.finish()
    assert stream.getvalue() == (
        "jhyap simulate: played 50/100 games\njhyap simulate: played 100/100 games\n"
    )


def test_simulate_command_refuses_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["simulate", "dhumbal", "--policy", "clever"]) == 2
    assert capsys.readouterr().err == (
        "jhyap simulate: unknown policy 'clever'; policies: random, heuristic\n"
    )
    assert cli.main(["simulate", "dhumbal", "--seats", "9", "--games", "1"]) == 2
    assert "seats must be 2 to 6, not 9" in capsys.readouterr().err


# -- the "How the variants play" page ----------------------------------------------------


def _estimate(value: float, half: float, n: int = 300) -> dict[str, float]:
    return {"value": value, "low": value - half, "high": value + half, "n": n}


def _limit_study(five: dict[str, float], fifteen: dict[str, float]) -> dict[str, object]:
    points = []
    for policy in ("heuristic", "random"):
        for limit, turns in ((5, five), (15, fifteen)):
            points.append(
                {
                    "profile": "dhumbal",
                    "kind": "limit",
                    "policy": policy,
                    "options": {"call_limit": limit},
                    "seats": 4,
                    "summary": {"turns_per_hand": turns},
                }
            )
    return {"points": points}


def test_a_claim_holds_only_beyond_both_intervals() -> None:
    from conformance.site.variants_play import _limit_lengthens

    test = _limit_lengthens("dhumbal")
    verdict, numbers = test(_limit_study(_estimate(25.0, 1.0), _estimate(11.0, 1.0)))
    assert verdict == "holds"
    assert numbers.startswith("heuristic play: 25.0 (24.0 to 26.0) turns a hand at a limit of 5")
    assert test(_limit_study(_estimate(12.0, 1.5), _estimate(11.0, 1.5)))[0] == "does not hold"
    assert test({"points": []})[0] == "not measurable"


def test_the_page_and_its_figures(site_study: dict[str, str]) -> None:
    page = site_study["play.md"]
    assert page.startswith("# How the variants play\n")
    for pid in PROFILES:
        assert f"play/{pid}-positions.svg" in site_study
    # Every claim of the rule texts is on the page with a verdict.
    from conformance.site.variants_play import CLAIMS

    for claim in CLAIMS:
        assert f': {claim.claim}"\n    Source: {claim.source} ([' in page
    assert all(
        svg.lstrip().startswith("<?xml") for p, svg in site_study.items() if p.endswith(".svg")
    )


def test_the_committed_study_is_current() -> None:
    """docs/data/variant-study.json must match the profiles and the engine, or builds redo it.

    Refresh it with: python -m conformance.simulation.study
    """
    from conformance.simulation import study

    documents = {pid: load_profile(pid) for pid in PROFILES}
    committed = json.loads(study.SNAPSHOT.read_text(encoding="utf-8"))
    assert committed["key"] == study.study_key(documents), (
        "the variant study is stale: run python -m conformance.simulation.study"
    )


@pytest.fixture(scope="module")
def site_study() -> dict[str, str]:
    from conformance.site import variants_play

    return variants_play.generate({pid: load_profile(pid) for pid in PROFILES})
