"""bench/planted_bugs.py: every plant applies to its example engine and changes its play
(in process), and a small selection of the bench runs end to end over the protocol."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

import pytest

from bench import planted_bugs as bench
from jhyap_core.cards import parse_cards
from jhyap_core.vocabulary import JhyapError
from jhyap_kit import Pick, Source, Throw, ThrowKind
from reference_engine import throws
from reference_engine.rules import Rules
from tests.conftest import ROOT, deck_from_hands, profile_document


def object_api(
    shape: str | None, hands: Sequence[str] = ("5c 9s 5h 2h 3c", "Kd Qd Jd Td 8d")
) -> Any:
    """The object-API binding, ``shape`` planted (None: as it is), at a fresh two-seat
    dhumbal table dealt ``hands`` (seat 0 starts)."""
    module = bench.load_binding(bench.OBJECT_API.binding)
    engine_class = (
        module.ObjectApiEngine if shape is None else bench.OBJECT_API.plants[shape](module)
    )
    engine = engine_class()
    engine.start(profile_document("dhumbal"), {}, 2)
    engine.deal(deck_from_hands(hands, "4s"), None)
    return engine


def loop_module(shape: str | None) -> Any:
    module = bench.load_binding(bench.PYTHON_LOOP.binding)
    if shape is not None:
        bench.PYTHON_LOOP.plants[shape](module)
    return module


# -- the shapes' own predicates, on issue 37's examples ----------------------------------------


@pytest.mark.parametrize(
    ("predicate", "accepted", "refused"),
    [
        (bench.substring_run, [(1, "c"), (1, "d"), (2, "c")], [(1, "c"), (3, "c"), (5, "c")]),
        (
            bench.lowest_suit_unchecked_run,
            [(4, "c"), (3, "c"), (2, "h")],
            [(4, "h"), (3, "c"), (2, "c")],
        ),
        (bench.gapped_run, [(2, "c"), (4, "c"), (7, "c")], [(2, "c"), (4, "d"), (7, "c")]),
        (bench.ace_high_run, [(12, "s"), (13, "s"), (1, "s")], [(13, "s"), (1, "s"), (2, "s")]),
        (bench.two_card_run, [(5, "c"), (6, "c")], [(5, "c"), (7, "c")]),
        (bench.mixed_suit_run, [(5, "c"), (6, "d"), (7, "h")], [(5, "c"), (6, "d"), (8, "h")]),
    ],
)
def test_each_wrong_run_check_accepts_its_example_and_not_a_neighbour(
    predicate: Any, accepted: list[tuple[int, str]], refused: list[tuple[int, str]]
) -> None:
    assert (predicate(accepted), predicate(refused)) == (True, False)


def test_the_wrong_winners_differ_from_the_lowest_hand_first_after_the_caller() -> None:
    # Seat 0 calls with 5; seat 1 holds the lowest hand (1), seat 2 is lower than the caller.
    assert bench.last_lower_seat({0: 5, 1: 1, 2: 4}, [1, 2, 0], 0) == 2
    # Seat 1 calls with 5; seats 2 and 0 tie lowest: first after the caller is 2.
    assert bench.lowest_seat_number({0: 2, 1: 5, 2: 2}, [2, 0, 1], 1) == 0
    # A tie with the caller: the call stands.
    assert bench.caller_keeps_ties({0: 3, 1: 3, 2: 9}, [1, 2, 0], 0) is None


# -- the registry ----------------------------------------------------------------------------


def js_shapes() -> set[str]:
    text = (ROOT / "bench" / "planted_bugs.mjs").read_text()
    tables = re.findall(r"^const (?:RUNS|WINNERS|OTHERS) = \{\n(.*?)^\};", text, re.M | re.S)
    return {m for body in tables for m in re.findall(r"^  (\w+)(?::|\(\))", body, re.M)}


def test_every_shape_is_planted_in_every_engine_or_said_why_not() -> None:
    for name, engine in bench.ENGINES.items():
        planted = set(engine.plants) | set(engine.js_plants)
        assert planted | set(engine.not_plantable) == set(bench.SHAPES), name
        assert not planted & set(engine.not_plantable), name
    assert js_shapes() == set(bench.JAVASCRIPT_OBJECT.js_plants)
    # Issue 37's shapes are planted in both Python engines.
    issue = {n for n, s in bench.SHAPES.items() if s.source == "issue 37"}
    assert issue <= set(bench.PYTHON_LOOP.plants) & set(bench.OBJECT_API.plants)


def test_loading_a_binding_leaves_the_process_as_it_was() -> None:
    before_modules, before_path = set(sys.modules), list(sys.path)
    module = loop_module("run_with_gaps")
    assert module.dg.discard_kind(module.cards(["2c", "4c", "7c"])) == "run"
    assert loop_module(None).dg.discard_kind(module.cards(["2c", "4c", "7c"])) is None
    assert "dhumbal_game" not in set(sys.modules) - before_modules
    assert sys.path == before_path


# -- the plants change each engine's play ------------------------------------------------------

PROBES = {
    "run_ranks_substring": ["Ac", "Ad", "2c"],
    "run_lowest_suit_unchecked": ["4c", "3c", "2h"],
    "run_with_gaps": ["2c", "4c", "7c"],
    "ace_high_runs": ["Qs", "Ks", "As"],
    "two_card_runs": ["5c", "6c"],
    "mixed_suit_runs": ["5c", "6d", "7h"],
}


@pytest.mark.parametrize("shape", sorted(PROBES))
def test_a_planted_run_check_accepts_its_probe_in_the_loop_game(shape: str) -> None:
    planted, right = loop_module(shape), loop_module(None)
    cards = right.cards(PROBES[shape])
    assert (planted.dg.discard_kind(cards), right.dg.discard_kind(cards)) == ("run", None)


@pytest.mark.parametrize("shape", sorted(PROBES))
def test_a_planted_run_check_is_played_by_the_object_api_binding(shape: str) -> None:
    module = bench.load_binding(bench.OBJECT_API.binding)
    bench.OBJECT_API.plants[shape](module)
    rules = Rules.from_profile(profile_document("dhumbal"))
    cards = parse_cards(PROBES[shape])
    assert module.throws.classify(cards, rules) is ThrowKind.RUN
    assert throws.classify(cards, rules) is None  # the reference itself is untouched
    # The engine as served: seat 0 holds the probe and throws it.
    hand = " ".join([*PROBES[shape], "9s", "Kd", "8h"][:5])
    thrown = []
    for planted in (shape, None):
        engine = object_api(planted, (hand, "Qd Jd Td 8d 7d"))
        try:
            thrown.append(engine.act(0, Throw(tuple(PROBES[shape])))[0]["kind"])
        except JhyapError as refused:
            thrown.append(refused.code)
    assert thrown == ["run", "illegal_throw"]


@pytest.mark.parametrize(
    ("shape", "values", "order", "caller", "right", "wrong"),
    [
        ("beaten_call_to_last_lower_seat", {0: 5, 1: 1, 2: 4}, [1, 2, 0], 0, 1, 2),
        ("tie_broken_by_seat_number", {0: 2, 1: 5, 2: 2}, [2, 0, 1], 1, 2, 0),
        ("caller_wins_a_tie", {0: 3, 1: 3, 2: 9}, [1, 2, 0], 0, 1, 0),
    ],
)
def test_a_planted_showdown_names_another_winner(
    shape: str, values: dict[int, int], order: list[int], caller: int, right: int, wrong: int
) -> None:
    # The object-API binding's rule function.
    rules = Rules.from_profile(profile_document("dhumbal"))
    module = bench.load_binding(bench.OBJECT_API.binding)
    bench.OBJECT_API.plants[shape](module)
    assert module.scoring.showdown(values, order, caller, rules).winner == wrong
    assert (
        bench.load_binding(bench.OBJECT_API.binding)
        .scoring.showdown(values, order, caller, rules)
        .winner
        == right
    )
    # The loop game's showdown (its table's seats in order; hand values as card ranks).
    winners = []
    for planted in (shape, None):
        module = loop_module(planted)
        game = module.Table([module.dg.Player(str(s)) for s in range(3)])
        for seat, value in values.items():
            game.players[seat].hand = module.cards([f"{'A23456789T'[value - 1]}c"])
        game.showdown(caller)
        winners.append(game.history[-1].winner)
    assert winners == [wrong, right]


def test_a_planted_binding_lays_a_throw_in_hand_order() -> None:
    thrown = [
        object_api(s).act(0, Throw(("5h", "5c")))[0]["cards"]
        for s in (None, "thrown_cards_laid_in_hand_order")
    ]
    assert thrown == [["5h", "5c"], ["5c", "5h"]]


def test_a_planted_binding_gives_back_a_card_of_the_throw_just_made() -> None:
    right, planted = object_api(None), object_api("own_thrown_card_picked_back")
    for engine in (right, planted):
        engine.act(0, Throw(("9s",)))
    with pytest.raises(JhyapError):
        right.act(0, Pick(Source.OFFER, "9s"))
    assert planted.act(0, Pick(Source.OFFER, "9s"))[0] == {
        "type": "picked",
        "seat": 0,
        "from": "offer",
        "card": "9s",
    }
    assert sorted(planted.state()["hands"][0]) == ["2h", "3c", "5c", "5h", "9s"]


def test_a_planted_binding_names_the_seat_after_the_round_winner_to_start() -> None:
    # dhumbal: the round winner starts the next hand.
    starters = [object_api(s).core._next_starter(0, 0, []) for s in (None, "wrong_next_starter")]
    assert starters == [0, 1]


def test_a_planted_binding_loses_the_cards_of_a_refused_throw() -> None:
    hands: list[Sequence[str]] = []
    for shape in (None, "refused_throw_loses_the_cards"):
        engine = object_api(shape)
        with pytest.raises(JhyapError):
            engine.act(0, Throw(("5c", "9s")))
        hands.append(sorted(engine.state()["hands"][0]))
    assert hands == [["2h", "3c", "5c", "5h", "9s"], ["2h", "3c", "5h"]]


def test_the_pick_rule_plants_misread_the_offer() -> None:
    offer = ("3c", "4c", "5c")
    # object-API under dashain (run ends): any card; the loop game under dhumbal (any): ends.
    module = bench.load_binding(bench.OBJECT_API.binding)
    dashain = bench.OBJECT_API.plants["pick_rule_misread"](module)()
    dashain.start(profile_document("dashain"), {}, 2)
    assert dashain.pickable_positions(offer, ThrowKind.RUN) == (0, 1, 2)
    loop = bench.PYTHON_LOOP.plants["pick_rule_misread"](loop_module(None))()
    assert loop.pickable_positions(offer, ThrowKind.RUN) == (0, 2)


def test_the_rule_value_plants_change_the_object_api_bindings_rule_functions() -> None:
    rules = Rules.from_profile(profile_document("dhumbal"))
    right = bench.load_binding(bench.OBJECT_API.binding)

    def planted(shape: str) -> Any:
        module = bench.load_binding(bench.OBJECT_API.binding)
        bench.OBJECT_API.plants[shape](module)
        return module

    limit = planted("call_limit_boundary").calling.call_refusal
    assert (limit(10, 9, 2, rules), right.calling.call_refusal(10, 9, 2, rules)) == (
        "call_over_limit",
        None,
    )
    values = {0: 9, 1: 2}
    penalty = planted("beaten_penalty_off_by_5").scoring.showdown(values, [1, 0], 0, rules)
    assert (penalty.deltas[0], right.scoring.showdown(values, [1, 0], 0, rules).deltas[0]) == (
        39,
        34,
    )
    out = planted("out_on_reaching_the_threshold").game_end.eliminated_after
    assert (
        out([100, 10], [0, 1], rules),
        right.game_end.eliminated_after([100, 10], [0, 1], rules),
    ) == ([0], [])
    won = planted("won_call_others_pay_nothing").scoring.showdown({0: 1, 1: 9}, [1, 0], 0, rules)
    assert (won.deltas, right.scoring.showdown({0: 1, 1: 9}, [1, 0], 0, rules).deltas) == (
        {0: 0, 1: 0},
        {0: 0, 1: 9},
    )
    early = planted("first_round_lock_everywhere").calling.call_refusal
    assert (early(3, 1, 2, rules), right.calling.call_refusal(3, 1, 2, rules)) == (
        "call_too_early",
        None,
    )
    israel = Rules.from_profile(profile_document("yaniv-israel"))
    cut = planted("score_cut_on_any_score_past").scoring.cut_score
    assert (cut(210, israel), right.scoring.cut_score(210, israel)) == (150, 210)


def test_the_value_plants_change_the_loop_game() -> None:
    right = loop_module(None)
    king = loop_module("king_valued_as_queen")
    assert king.dg.hand_points(king.cards(["Kc"])) == 12
    assert right.dg.hand_points(right.cards(["Kc"])) == 13
    assert (
        loop_module("beaten_penalty_off_by_5").dg.FAILED_SHOW_PENALTY,
        right.dg.FAILED_SHOW_PENALTY,
    ) == (25, 20)
    assert (loop_module("out_on_reaching_the_threshold").dg.OUT_ABOVE, right.dg.OUT_ABOVE) == (
        99,
        100,
    )
    game = loop_module("call_limit_boundary").dg.Game([], show_limit=10)
    player = right.dg.Player("p", right.cards(["Tc"]))
    assert (game.can_show(player), right.dg.Game([], show_limit=10).can_show(player)) == (
        False,
        True,
    )
    scores = []
    for shape in ("won_call_others_pay_nothing", None):
        module = loop_module(shape)
        game = module.Table([module.dg.Player(str(s)) for s in range(2)])
        game.players[0].hand, game.players[1].hand = module.cards(["Ac"]), module.cards(["9c"])
        game.showdown(0)
        scores.append(game.history[-1].scores)
    assert scores == [[0, 0], [0, 9]]
    joker = object_api("joker_worth_one")
    assert (joker.hand_value(["X", "2c"]), object_api(None).hand_value(["X", "2c"])) == (3, 2)
    bound = object_api("king_valued_as_queen")
    assert (bound.hand_value(["Kc"]), object_api(None).hand_value(["Kc"])) == (12, 13)


# -- end to end ----------------------------------------------------------------------------


# The corpus cases the selection replays: three that catch the two shapes in the Python
# engines (the off-suit one the JavaScript engine's too) and one that no plant fails. The
# whole corpus is the bench's own run (python bench/planted_bugs.py).
CASES = [
    "dhumbal-dealer-none",
    "dhumbal-dealer-seat-before-starter",
    "family-run-off-suit-at-each-position",
    "family-run-gaps-and-rank-strings",
]


@pytest.mark.e2e
def test_a_selection_of_the_bench_runs_end_to_end_and_prints_its_table() -> None:
    shapes = ["wrong_next_starter", "run_lowest_suit_unchecked"]
    command = [sys.executable, str(ROOT / "bench" / "planted_bugs.py"), "--shapes"]
    command += [",".join(shapes), "--cases", ",".join(CASES)]
    # Fuzz bounded by its games, not by the clock: the same classes on any machine, and a
    # run that ends when its game is played.
    command += ["--fuzz-all", "--fuzz-games", "1", "--json", "-"]
    done = subprocess.run(
        command, capture_output=True, text=True, cwd=ROOT, timeout=900, check=True
    )
    report = json.loads(done.stdout)
    rows = report["rows"]
    assert [(r["shape"], r["engine"]) for r in rows] == [
        (shape, engine) for shape in shapes for engine in bench.ENGINES
    ]
    by = {(r["shape"], r["engine"]): r for r in rows}
    assert by[("wrong_next_starter", "javascript-object")]["verdict"] == "n/a"
    # Every planted engine ran under the corpus and (--fuzz-all) under fuzz.
    for row in rows:
        if row["verdict"] == "n/a":
            assert (row["cases"], row["fuzzed"]) == ([], False), row
            continue
        assert row["verdict"] in {"corpus", "fuzz", "nothing"}, row
        assert row["fuzzed"] and row["note"] == "", row
        assert (row["verdict"] == "corpus") == bool(row["cases"]), row
        assert (row["verdict"] == "fuzz") <= bool(row["fuzz_classes"]), row
    # The one game fuzz plays (seed 0) meets the wrong starter in both Python engines, in
    # what each reports at the deal; the off-suit run it never throws.
    assert {key: row["fuzz_signatures"] for key, row in by.items() if row["fuzzed"]} == {
        ("wrong_next_starter", "python-loop"): ["kitchen-dhumbal deal: dealer differs"],
        ("wrong_next_starter", "object-api"): ["dhumbal deal: starter differs"],
        ("run_lowest_suit_unchecked", "python-loop"): [],
        ("run_lowest_suit_unchecked", "object-api"): [],
        ("run_lowest_suit_unchecked", "javascript-object"): [],
    }
    assert by[("wrong_next_starter", "python-loop")]["fuzz_classes"] == ["events"]
    assert by[("wrong_next_starter", "object-api")]["fuzz_classes"] == ["events"]
    # A wrong next starter shows in every game of more than one hand.
    assert by[("wrong_next_starter", "python-loop")]["verdict"] == "corpus"
    assert by[("wrong_next_starter", "object-api")]["verdict"] == "corpus"
    # The exact cases that catch each plant, by engine (the object-API binding plays every
    # shipped profile a case names).
    off_suit = "family-run-off-suit-at-each-position"
    assert {key: row["cases"] for key, row in by.items() if row["verdict"] == "corpus"} == {
        ("wrong_next_starter", "python-loop"): [
            "dhumbal-dealer-none@kitchen-dhumbal",
            "dhumbal-dealer-seat-before-starter@kitchen-dhumbal",
        ],
        ("wrong_next_starter", "object-api"): ["dhumbal-dealer-none@dhumbal"],
        ("run_lowest_suit_unchecked", "python-loop"): [f"{off_suit}@kitchen-dhumbal"],
        ("run_lowest_suit_unchecked", "object-api"): [
            f"{off_suit}@{profile}"
            for profile in (
                "alankar-dhumbal",
                "dashain",
                "dhumbal",
                "everestbuzz",
                "jhyap-encyclopedia",
                "jhyap-jacks-zero",
                "yarsa-dhumbal",
            )
        ],
        # The off-suit case runs derived under the JavaScript example's own ruleset too.
        ("run_lowest_suit_unchecked", "javascript-object"): [f"{off_suit}@js-object-yaniv"],
    }
    counts = report["totals"]
    assert (counts["planted"], counts["n/a"], counts["broken"]) == (5, 1, 0)
    assert counts["corpus"] + counts["fuzz"] + counts["nothing"] == 5
    assert counts["corpus"] == 5  # the JavaScript engine is caught by the off-suit case
    table = done.stderr.splitlines()
    assert table[1].split() == ["shape", "engine", "caught", "by"]
    assert len(table) == 2 + len(rows) + 1 and table[-1].startswith("== 5 planted: ")
    assert "one `jhyap fuzz` run of 1 game (seed 0)" in table[0]
