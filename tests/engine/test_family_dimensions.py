"""The family dimensions of the profile language that no shipped profile plays both ways.

Each test takes the Dhumbal table, changes one parameter, and checks the engine both ways.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.spec.profiles import check_profile_file
from jhyap_core.cards import full_deck
from jhyap_core.profile import resolve
from jhyap_core.vocabulary import ThrowKind
from reference_engine import (
    Call,
    ErrorCode,
    Game,
    JhyapError,
    Phase,
    PickDeck,
    ThrowCards,
    parse_cards,
)
from reference_engine.rules import Rules
from reference_engine.throws import classify, run_positions
from tests.conftest import deck_from_hands, profile_document


def _dhumbal(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    document = copy.deepcopy(profile_document("dhumbal"))
    change(document["rules"])
    return document


def _rules(change: Callable[[dict[str, Any]], None]) -> Rules:
    return Rules.from_profile(resolve(_dhumbal(change)))


def _kind(rules: Rules, cards: str) -> ThrowKind | None:
    return classify(parse_cards(cards.split()), rules)


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(rules: dict[str, Any]) -> None:
        node = rules
        keys = path.split(".")
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] = value

    return change


@pytest.mark.parametrize(
    ("ace", "cards", "kind"),
    [
        ("low", "Ah 2h 3h", ThrowKind.RUN),
        ("low", "Qh Kh Ah", None),
        ("high", "Qh Kh Ah", ThrowKind.RUN),
        ("high", "Ah 2h 3h", None),
        ("low_or_high", "Ah 2h 3h", ThrowKind.RUN),
        ("low_or_high", "Qh Kh Ah", ThrowKind.RUN),
        ("low_or_high", "Kh Ah 2h", None),
    ],
)
def test_ace_in_runs(ace: str, cards: str, kind: ThrowKind | None) -> None:
    assert _kind(_rules(_set("throws.run.ace", ace)), cards) is kind


def test_ace_high_runs_are_listed_as_legal_throws() -> None:
    document = _dhumbal(_set("throws.run.ace", "high"))
    game = Game(document, 2)
    game.deal(parse_cards(deck_from_hands(["Qh Kh Ah 2h 3h", "4c 5c 6c 7d 8d"], "9s")))
    legal = game.legal_actions()
    assert legal is not None
    runs = [" ".join(str(c) for c in t) for t in legal.throws if len(t) >= 3]
    assert runs == ["Ah Qh Kh"]  # canonical order; any order of a listed throw is legal


@pytest.mark.parametrize(
    ("wild", "cards", "kind"),
    [
        ("none", "5c 5d X", None),
        ("none", "4h X 6h", None),
        ("none", "X X", ThrowKind.SET),
        ("runs", "4h X 6h", ThrowKind.RUN),
        ("runs", "5c 5d X", None),
        ("sets", "5c 5d X", ThrowKind.SET),
        ("sets", "4h X 6h", None),
        ("sets_and_runs", "5c X", ThrowKind.SET),
        ("sets_and_runs", "X 4h 6h", ThrowKind.RUN),
        # Jokers with one natural card could be either; a set is the reading chosen.
        ("sets_and_runs", "X 4h X", ThrowKind.SET),
    ],
)
def test_what_a_joker_stands_for(wild: str, cards: str, kind: ThrowKind | None) -> None:
    rules = _rules(lambda r: r["deck"].update(jokers=2, jokers_wild=wild))
    assert _kind(rules, cards) is kind


def test_jokers_fill_gaps_then_extend_upwards_then_downwards() -> None:
    rules = _rules(lambda r: r["deck"].update(jokers=2, jokers_wild="runs"))
    placed = run_positions(parse_cards(["9s", "X", "X"]), rules)
    assert placed is not None and [rank for _, rank in placed] == [9, 10, 11]
    at_top = run_positions(parse_cards(["Qs", "X", "X"]), rules)
    assert at_top is not None and [rank for _, rank in at_top] == [11, 12, 13]


def test_packs_by_seat_count_set_the_deck() -> None:
    document = _dhumbal(
        lambda r: r["deck"].update(jokers=2, packs_by_seats=[{"from_seats": 4, "packs": 2}])
    )
    assert len(Game(document, 3).full_deck) == 54
    four = Game(document, 4)
    assert len(four.full_deck) == 108
    with pytest.raises(JhyapError) as refused:
        four.deal(list(full_deck(1, 2)))
    assert refused.value.code is ErrorCode.INVALID_DECK


def _call_round(document: dict[str, Any], hands: list[str]) -> Game:
    game = Game(document, len(hands))
    game.deal(parse_cards(deck_from_hands(hands, "9s")))
    return game


@pytest.mark.parametrize(
    ("starter_rule", "expected"),
    [("round_winner", 1), ("seat_after_round_winner", 2), ("caller", 0), ("next_seat", 1)],
)
def test_who_starts_the_next_round(starter_rule: str, expected: int) -> None:
    # Seat 0 calls on 9 and seat 1 ties it: seat 1 wins the round.
    game = _call_round(
        _dhumbal(_set("next_starter", starter_rule)),
        ["Ac Ad 2c 2d 3c", "Ah As 2h 2s 3d", "Kc Kd Kh Ks Qc"],
    )
    game.act(0, Call())
    assert game.last_round is not None and game.last_round["winner"] == 1
    assert game.starter == expected


def test_halving_applies_to_a_total_landing_on_a_multiple() -> None:
    document = _dhumbal(lambda r: r["scoring"].update(halve_at_multiples_of=50))
    # Seat 1 holds T T T T 9 = 49; from 51 it reaches exactly 100 and is halved to 50.
    game = _call_round(document, ["Ac Ad 2c 2d 3c", "Tc Td Th Ts 9c", "Kc Kd Kh Ks Qc"])
    game.scores = [0, 51, 0]
    events = game.act(0, Call())
    assert events[-1]["deltas"] == [0, 49, 64]
    assert game.scores == [0, 50, 64]


def test_halving_does_not_touch_a_total_that_did_not_move() -> None:
    document = _dhumbal(lambda r: r["scoring"].update(halve_at_multiples_of=50))
    game = _call_round(document, ["Ac Ad 2c 2d 3c", "Tc Td Th Ts 9c", "Kc Kd Kh Ks Qc"])
    game.scores = [50, 2, 0]
    game.act(0, Call())
    assert game.scores == [50, 51, 64]


def test_exact_cut_wins_over_halving() -> None:
    document = _dhumbal(
        lambda r: r["scoring"].update(cuts=[{"at": 100, "to": 90}], halve_at_multiples_of=50)
    )
    game = _call_round(document, ["Ac Ad 2c 2d 3c", "Tc Td Th Ts 9c", "Kc Kd Kh Ks Qc"])
    game.scores = [0, 51, 86]
    game.act(0, Call())
    assert game.scores == [0, 90, 75]


@pytest.mark.parametrize(("reaching", "out"), [(False, []), (True, [1])])
def test_reaching_the_threshold(reaching: bool, out: list[int]) -> None:
    document = _dhumbal(_set("game_end.reaching_is_out", reaching))
    game = _call_round(document, ["Ac Ad 2c 2d 3c", "Tc Td Th Ts 9c", "2h 2s 3d 3h 4c"])
    game.scores = [0, 51, 0]
    events = game.act(0, Call())
    assert game.scores[1] == 100
    assert events[-1]["eliminated"] == out


@pytest.mark.parametrize(
    ("rule", "scored"), [("round_ends_no_score", False), ("round_ends_hands_score", True)]
)
def test_a_deck_running_out_can_end_the_round(rule: str, scored: bool) -> None:
    document = _dhumbal(_set("deck_runs_out", rule))
    game = Game(document, 2)
    game.deal(parse_cards(deck_from_hands(["Kc 2c 3c 4c 5c", "Kd 2d 3d 4d 5d"], "9s")))
    events: list[dict[str, Any]] = []
    for turn in range(41):  # 52 - 2 x 5 - 1 cards to draw
        seat = turn % 2
        assert game.phase is Phase.CALL_OR_THROW
        hand = game.hands[seat]
        game.act(seat, ThrowCards((max(hand, key=lambda c: c.sort_key),)))
        events = game.act(seat, PickDeck())
    ended = events[-1]
    assert (ended["type"], ended["outcome"], ended["caller"], ended["winner"]) == (
        "round_ended",
        "deck_ran_out",
        None,
        None,
    )
    values = [game.hand_value(0), game.hand_value(1)]
    assert ended["hand_values"] == values
    assert ended["deltas"] == (values if scored else [0, 0])
    assert game.scores == ended["deltas"]
    assert game.phase is Phase.ROUND_OVER


def test_an_option_setting_several_parameters(tmp_path: Path) -> None:
    document = profile_document("jhyap-jacks-zero")
    resolved = resolve(document, {"picture_cards": "eleven_to_thirteen"})
    values = resolved["rules"]["card_values"]
    assert (values["J"], values["Q"], values["K"]) == (11, 12, 13)
    broken = copy.deepcopy(document)
    broken["options"][0]["map"]["all_ten"] = [10, 10]
    path = tmp_path / "jhyap-jacks-zero.yaml"
    path.write_text(yaml.safe_dump(broken, sort_keys=False), encoding="utf-8")
    problems = check_profile_file(path)
    assert [p.field for p in problems] == ["options[0].map.all_ten"]
    assert "must list 3 values" in problems[0].message


def test_a_dashed_id_is_a_valid_profile_id(tmp_path: Path) -> None:
    document = copy.deepcopy(profile_document("dhumbal"))
    document["id"] = "my-table"
    for clause in document["clauses"]:
        clause["id"] = "my-table" + clause["id"][len("dhumbal") :]
    for reading in document["readings"]:
        reading["clauses"] = ["my-table" + c[len("dhumbal") :] for c in reading["clauses"]]
    path = tmp_path / "my-table.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    assert check_profile_file(path) == []
