"""Fuzzing in this process (conformance/fuzz/local.py): every profile the schema accepts
plays without crashing the generator, one planted bug is one divergence class, and the
coverage lines warn of a counter that stays low."""

from __future__ import annotations

import contextlib
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.commands.fuzz import summary_lines
from conformance.commands.run import default_engine
from conformance.fuzz.campaign import FuzzResult, ProfileStats
from conformance.fuzz.carry import avoiding
from conformance.fuzz.counters import BEATEN_CALLS, SEVERAL_LOWEST, WON_CALLS, applicable_counters
from conformance.fuzz.deals import DEAL_STYLES, TARGETED_STYLES, deal_order
from conformance.fuzz.generate import generate, random_spec
from conformance.fuzz.local import fuzz_locally, play_locally
from conformance.fuzz.plan import choice_key
from conformance.fuzz.steer import steer
from conformance.fuzz.writer import KnownDivergence
from conformance.spec.transcript_profiles import shipped_documents, with_profile_files
from jhyap_core.cards import Card
from jhyap_core.profile import resolve
from jhyap_core.vocabulary import ThrowKind
from reference_engine import throws
from reference_engine.rules import Rules
from reference_engine.server import Session
from tests.conftest import ROOT
from tests.fuzz.test_fuzz import config
from tests.mutants.planted import PLANTED, planted
from tests.strategies import profiles

STYLES = ("", *DEAL_STYLES, *TARGETED_STYLES)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(document=profiles(), seed=st.integers(0, 2**16), style=st.sampled_from(STYLES))
def test_every_profile_the_schema_accepts_fuzzes_without_crashing(
    document: dict[str, Any], seed: int, style: str
) -> None:
    # Then two games: one steered at every counter it can reach (targeted deals and
    # aimed play), one in a drawn deal style; each planned, then played by the reference
    # against itself. No exception, and no divergence (a refused table is a clean end).
    documents = {"drawn": document}
    # Every deal style, on a table of the profile.
    session = Session()
    seats = document["rules"]["seats"]["max"]
    started = session.handle(
        {"seq": 0, "cmd": "start", "profile": resolve(document), "seats": seats}
    )
    assert started["ok"], started
    assert session.game is not None
    for style_drawn in STYLES:
        for k in range(3):
            order = deal_order(session.game, random.Random(seed + k), style_drawn)
            assert sorted(map(str, order)) == sorted(map(str, session.game.full_deck))
    steered = steer(
        random_spec(documents, "drawn", seed),
        document,
        applicable_counters(document),
        random.Random(seed),
        seed,
    )
    styled = replace(random_spec(documents, "drawn", seed + 1), deal_style=style, max_rounds=2)
    for spec in (steered, styled):
        plan = generate(document, replace(spec, max_requests=min(spec.max_requests, 300)))
        assert plan.invariant_problems == ()
        assert play_locally(plan) is None
    # Steering away from a choice (as a game carried past a divergence does) makes a
    # plan that keeps the requests before it and plays as well.
    if len(plan.requests) > 1:
        index = 1 + seed % (len(plan.requests) - 1)
        again = avoiding(document, plan, index)
        assert again.requests[:index] == plan.requests[:index]
        assert again.invariant_problems == ()
        assert play_locally(again) is None


def test_a_deck_leaving_kings_out_fuzzes() -> None:
    # The runs deal chose a card of every rank of a run among the table's cards: with the
    # kings left out, among none ("IndexError: Cannot choose from an empty sequence").
    path = ROOT / "tests" / "data" / "variants" / "dhumbal-no-kings.yaml"
    documents, (name,) = with_profile_files(shipped_documents(), [str(path)])
    for seed in range(8):
        spec = replace(random_spec(documents, name, seed, seats=4), deal_style="runs")
        plan = generate(documents[name], spec)
        assert plan.start_error is None
        assert play_locally(plan) is None


@pytest.mark.parametrize(
    ("bug", "signature"),
    [
        # Before: "dashain deal: events round_started.dealer" (45 games) and "dashain
        # check: state dealer" (7), two classes.
        ("dealer_is_the_seat_after_the_starter", "dashain deal: dealer differs"),
        # Before: "yaniv-israel call: events round_ended.eliminated,round_ended.scores"
        # (13) and "... events count,round_ended.eliminated,round_ended.scores" (3).
        ("cut_at_any_score_past_200", "yaniv-israel scoring: scores differs"),
        # Before: "dashain call: expected accepted, got call_too_early" (6) and "dashain
        # call: expected call_over_limit, got call_too_early" (1).
        ("first_round_lock_one_turn_longer", "dashain calling: refuses with call_too_early"),
        # Before: "bga-yaniv reshuffle: deck differs" at a check and "bga-yaniv picking:
        # card differs" at a draw from the deck, two classes.
        ("new_deck_cut_by_one", "bga-yaniv reshuffle: deck differs"),
        ("won_call_others_pay_nothing", "everestbuzz scoring: deltas differs"),
    ],
)
def test_one_planted_bug_is_one_class(bug: str, signature: str) -> None:
    profile = signature.split()[0]
    cfg = replace(config(default_engine(), profiles=(profile,)), games=60)
    run = fuzz_locally(cfg, lambda: planted(bug))
    assert list(run.signatures) == [signature]


def test_the_coverage_lines_warn_of_a_counter_that_stays_low() -> None:
    cfg = replace(config(default_engine(), profiles=("dhumbal",)), games=40)
    stats = ProfileStats(games=40, applicable=applicable_counters(cfg.documents["dhumbal"]))
    stats.coverage.update({WON_CALLS: 60, SEVERAL_LOWEST: 1})
    result = FuzzResult({"dhumbal": stats}, 40, 4000, 2.0)
    low = [line for line in summary_lines(cfg, result) if ": low: " in line]
    assert low == ["  dhumbal: low: beaten calls: 0 in 40 games — raise --time or seats"]
    stats.coverage.update({BEATEN_CALLS: 4})  # 10 per 100 games: enough
    assert [line for line in summary_lines(cfg, result) if ": low: " in line] == []
    # Fewer than 20 games are not judged.
    stats.games = result.games = 19
    stats.coverage[BEATEN_CALLS] = 0
    assert [line for line in summary_lines(cfg, result) if ": low: " in line] == []


def _listed(signatures: Counter[str]) -> tuple[KnownDivergence, ...]:
    return tuple(KnownDivergence(s, "listed for the test") for s in sorted(signatures))


@pytest.mark.parametrize(
    ("bug", "before", "after"),
    [
        # A divergence in what the engine reports, carried on: the dealer reported.
        ("dealer_is_the_seat_after_the_starter", (6, 34), (40, 0)),
        # A divergence on a choice, steered away from: a legal call at 7 refused.
        ("call_limit_7_read_as_6", (29, 11), (40, 0)),
    ],
)
def test_a_listed_divergence_does_not_end_the_game(
    bug: str, before: tuple[int, int], after: tuple[int, int]
) -> None:
    # (games that reached their end, games stopped at a divergence)
    profile = PLANTED[bug].profile
    cfg = replace(config(default_engine(), profiles=(profile,)), games=40)
    first = fuzz_locally(replace(cfg, carry_on=False), lambda: planted(bug))
    assert (first.ended, first.stopped) == before
    (signature,) = first.signatures
    run = fuzz_locally(replace(cfg, known=_listed(first.signatures)), lambda: planted(bug))
    assert (run.ended, run.stopped) == after
    assert list(run.signatures) == [signature]
    # Every game that met it was compared past it, to its end.
    met = [g for g in run.games if g.met]
    assert len(met) == run.signatures[signature] > 0
    assert all(g.ended for g in met)


def test_steering_away_keeps_the_requests_before_the_choice() -> None:
    documents = shipped_documents()
    plan = generate(documents["dhumbal"], random_spec(documents, "dhumbal", 5, seats=3))
    index = next(i for i, r in enumerate(plan.requests) if r.message.get("cmd") == "act")
    again = avoiding(documents["dhumbal"], plan, index)
    assert again.requests[:index] == plan.requests[:index]
    assert choice_key(again.requests[index].message) != choice_key(plan.requests[index].message)
    assert again.spec.avoid == ((index, choice_key(plan.requests[index].message)),)
    assert play_locally(again) is None


@pytest.mark.usefixtures("plans_made_afresh")
def test_a_plan_steered_away_from_is_the_plan_made_afresh() -> None:
    # avoiding() resumes the making of the plan from the last mark before the choice it
    # avoids (no choice made again before it): the plan must be the one its spec makes.
    documents = shipped_documents()
    for profile, seed in (("dhumbal", 5), ("bga-yaniv", 2), ("everestbuzz", 7)):
        document = documents[profile]
        plan = generate(document, replace(random_spec(documents, profile, seed), raw_rate=0.2))
        first = len(plan.requests) // 2
        assert any(mark.requests < first for mark in plan.marks)  # resumed, not made afresh
        again = avoiding(document, plan, first)
        twice = avoiding(document, again, len(again.requests) - 2)  # from a resumed plan
        for steered in (again, twice):
            afresh = generate(document, steered.spec)
            assert steered is not afresh
            assert steered == afresh
            assert dict(steered.coverage) == dict(afresh.coverage)
            assert steered.marks == afresh.marks


@contextlib.contextmanager
def _accepting(shape: str) -> Iterator[None]:
    """The engine under test accepts a run that the reference refuses: a run whose lowest
    card's suit is never checked (``4c 3c 2h``), or whose ranks read as a substring of
    "12345678910111213" (``Ac Ad 2c``)."""
    original = throws.classify

    def classify(cards: Sequence[Card], rules: Rules) -> ThrowKind | None:
        kind = original(cards, rules)
        if kind is not None or len(cards) < 3:
            return kind
        ranked = sorted(cards, key=lambda c: c.rank)
        if shape == "lowest suit":
            rest = ranked[1:]
            if len({c.suit for c in rest}) == 1:
                ranks = [c.rank for c in ranked]
                if ranks == list(range(ranks[0], ranks[0] + len(ranks))):
                    return ThrowKind.RUN
        elif "".join(str(c.rank) for c in ranked) in "12345678910111213":
            return ThrowKind.RUN
        return None

    throws.classify = classify
    try:
        yield
    finally:
        throws.classify = original


@pytest.mark.parametrize("shape", ["lowest suit", "substring"])
def test_near_miss_throws_catch_a_run_check_that_accepts_them(shape: str) -> None:
    cfg = replace(config(default_engine(), profiles=("dhumbal",)), games=40)
    run = fuzz_locally(cfg, lambda: _accepting(shape))
    assert list(run.signatures) == ["dhumbal throws: accepts, illegal_throw expected"]
    assert run.stopped == 0  # each probe accepted is left out, and the game goes on
