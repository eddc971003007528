"""pick.multi_throw_scope (issue 40's open readings of yarsa-dhumbal and alankar-dhumbal): how
long a throw of two or more cards opens the offer under pick.only_after_multi_throw. The table
procedure keeps ``multi_throwers`` for the hand (``hand``), across hands (``game``) or for the
turn of the throw only (``turn``); each reading's oracle transcript passes as written under
its reading and fails under the profile's other reading."""

from __future__ import annotations

import copy
import dataclasses

import pytest

from conformance.commands.run import default_engine, default_engine_env
from conformance.harness.runner import RunConfig, build_cases
from conformance.spec import readings
from conformance.spec.transcript import load_corpus
from conformance.spec.transcript_profiles import shipped_documents
from jhyap_core.cards import parse_card, parse_cards
from reference_engine import JhyapError
from reference_engine.actions import Call, PickDeck, PickOffer, ThrowCards
from reference_engine.game import Game
from reference_engine.rules import MultiThrowScope
from tests.cli_helpers import run_reference_in_process

# transcript id -> (profile, the reading's choice it is written for, the other choice)
WRITTEN_FOR = {
    "yarsa-dhumbal-multi-throw-scope-turn": ("yarsa-dhumbal", "turn", "hand"),
    "yarsa-dhumbal-multi-throw-scope-hand": ("yarsa-dhumbal", "hand", "turn"),
    "alankar-dhumbal-card-pick-rule-whole-game": ("alankar-dhumbal", "game", "hand"),
    "alankar-dhumbal-card-pick-rule-each-hand": ("alankar-dhumbal", "hand", "game"),
}


def _game(scope: str) -> Game:
    document = copy.deepcopy(dict(shipped_documents()["yarsa-dhumbal"]))
    document["rules"]["pick"]["multi_throw_scope"] = scope
    game = Game(document, seats=2)
    assert game.rules.picking.multi_throw_scope is MultiThrowScope(scope)
    assert game.table_rules.multi_throw_scope == scope
    return game


def _deal(game: Game, hands: list[list[str]], turned_up: str, top: tuple[str, ...] = ()) -> None:
    """Deal ``hands`` (by seat) and ``turned_up``; the deck's ``top`` cards drawn first."""
    dealt = [parse_cards(h) for h in hands]
    first = parse_cards(list(top))
    named = {c for h in dealt for c in h} | {parse_card(turned_up), *first}
    stock = [*first, *(c for c in game.full_deck if c not in named)]
    game.deal(game.full_deck, (dealt, parse_card(turned_up), stock))


def _two_hands(scope: str) -> list[list[int]]:
    """multi_throwers after each step: seat 0 throws a pair and draws, seat 1 a single and
    draws, seat 0 a single; seat 0 draws and seat 1 calls (A A 2 3 A = 8); a new hand is
    dealt."""
    game = _game(scope)
    _deal(
        game, [["7c", "7d", "Kc", "Qc", "2h"], ["Ac", "Ad", "2c", "3d", "4s"]], "9s", ("Kh", "As")
    )
    seen = []
    for seat, act in (
        (0, ThrowCards(tuple(parse_cards(["7c", "7d"])))),
        (0, PickDeck()),
        (1, ThrowCards((parse_card("4s"),))),
        (1, PickDeck()),
        (0, ThrowCards((parse_card("Kc"),))),
    ):
        game.act(seat, act)
        seen.append(game.state()["multi_throwers"])
    game.act(0, PickDeck())
    game.act(1, Call())
    seen.append(game.state()["multi_throwers"])
    _deal(game, [["Qh", "Qs", "Jh", "Js", "Th"], ["9c", "9d", "8c", "8d", "5c"]], "6c")
    seen.append(game.state()["multi_throwers"])
    return seen


def test_hand_keeps_the_throwers_of_the_hand_and_starts_afresh_each_hand() -> None:
    assert _two_hands("hand") == [[0], [0], [0], [0], [0], [0], []]


def test_turn_keeps_only_the_seat_whose_throw_of_this_turn_had_several_cards() -> None:
    assert _two_hands("turn") == [[0], [], [], [], [], [], []]


def test_game_keeps_the_throwers_across_hands() -> None:
    assert _two_hands("game") == [[0], [0], [0], [0], [0], [0], [0]]


def test_a_refused_pick_names_the_scope() -> None:
    game = _game("turn")
    _deal(game, [["7c", "7d", "Kc", "Qc", "2h"], ["Ac", "Ad", "2c", "3d", "4s"]], "9s")
    game.act(0, ThrowCards(tuple(parse_cards(["7c", "7d"]))))
    game.act(0, PickDeck())
    game.act(1, ThrowCards((parse_card("4s"),)))
    game.act(1, PickDeck())
    game.act(0, ThrowCards((parse_card("Kc"),)))
    with pytest.raises(JhyapError, match=r"two or more cards together this turn$") as refused:
        game.act(0, PickOffer(parse_card("4s")))
    assert refused.value.code.value == "pick_not_allowed"


def _outcomes(transcript_id: str, choice: str, *, as_written: bool) -> list[tuple[str, str]]:
    """The transcript's outcome under the profile's ``choice``: as it selects itself, or
    (``as_written``) forced to run as written there, its ``where`` set to that choice."""
    pid = WRITTEN_FOR[transcript_id][0]
    declared = readings.declared(shipped_documents()[pid], "multi_throw_scope", choice)
    documents = {**shipped_documents(), declared["id"]: declared}
    transcripts, problems = load_corpus(None, documents, only=lambda name: name == transcript_id)
    assert problems == []
    (transcript,) = transcripts
    if as_written:
        transcript = dataclasses.replace(transcript, where={"pick.multi_throw_scope": choice})
    cases = build_cases([transcript], documents, [declared["id"]])
    config = RunConfig(engine=default_engine(), env=default_engine_env(), jobs=1, timeout=30)
    return [(o.mode, o.status) for o in run_reference_in_process(cases, config).outcomes]


@pytest.mark.parametrize("transcript_id", sorted(WRITTEN_FOR))
def test_the_transcript_passes_as_written_under_its_reading(transcript_id: str) -> None:
    _, choice, _ = WRITTEN_FOR[transcript_id]
    assert _outcomes(transcript_id, choice, as_written=False) == [("as_written", "passed")]


@pytest.mark.parametrize("transcript_id", sorted(WRITTEN_FOR))
def test_the_transcript_fails_as_written_under_the_other_reading(transcript_id: str) -> None:
    _, _, other = WRITTEN_FOR[transcript_id]
    assert _outcomes(transcript_id, other, as_written=True) == [("as_written", "failed")]
