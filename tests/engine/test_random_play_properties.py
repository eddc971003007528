"""Properties of random legal play, for every profile and every option value."""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import Phase as Phase_
from hypothesis import strategies as st

from jhyap_core.profile import option_specs
from reference_engine import (
    Call,
    ErrorCode,
    Game,
    JhyapError,
    LegalActions,
    Phase,
    PickDeck,
    PickOffer,
    ThrowCards,
    parse_card,
)
from reference_engine.randomplay import random_step
from reference_engine.rules import ScoringKind
from tests.conftest import PROFILE_IDS
from tests.conftest import profile_document as _read_profile_document

MAX_ROUNDS = 12
MAX_STEPS = 8000

_DOCUMENTS: dict[str, dict[str, Any]] = {}


def profile_document(name: str) -> dict[str, Any]:
    """A fresh copy of the profile ``name``: its YAML is read once per process (parsing it
    cost more than a whole game), the copy keeps every example independent."""
    if name not in _DOCUMENTS:
        _DOCUMENTS[name] = _read_profile_document(name)
    return copy.deepcopy(_DOCUMENTS[name])


def _option_choices(name: str) -> st.SearchStrategy[dict[str, Any]]:
    specs = option_specs(profile_document(name))
    fields: dict[str, st.SearchStrategy[Any]] = {}
    for option in specs.values():
        if option.values is not None:
            fields[option.name] = st.sampled_from(option.values)
        else:
            assert option.range is not None
            low, high = option.range["min"], option.range["max"]
            if option.type.value == "integer":
                top = int(high) if high is not None else int(low) + 1000  # unbounded above
                fields[option.name] = st.integers(int(low), top)
            else:
                amount = high if high is not None else "1000.00"
                fields[option.name] = st.sampled_from([low, amount, option.default])
    return st.fixed_dictionaries({}, optional=fields)


def tables(name: str) -> st.SearchStrategy[tuple[int, dict[str, Any], random.Random]]:
    """Seat counts, option values and random sources for one profile."""
    seats = profile_document(name)["rules"]["seats"]
    return st.tuples(
        st.integers(seats["min"], seats["max"]),
        _option_choices(name),
        st.integers(0, 2**32 - 1).map(random.Random),
    )


def _accounted(game: Game, state: dict[str, Any]) -> Counter[str]:
    """The cards of ``game``, whose state is ``state``, wherever they are."""
    cards = [c for hand in state["hands"] for c in hand]
    cards += state["offer"] + state["thrown"] + state["deck"] + state["out_of_play"]
    cards += [str(c) for c in game.set_aside]  # the last hands of seats put out
    return Counter(cards)


def _illegal_candidates(game: Game, rng: random.Random) -> list[Any]:
    """Actions drawn from everything a seat could send, legal or not."""
    seat = rng.randrange(game.seats)
    deck = game.full_deck
    hand = game.hands[seat] or list(deck[:1])
    some = rng.sample(list(deck), 3)
    offer = list(game.offer.cards) if game.offer else []
    actions = [
        Call(),
        PickDeck(),
        ThrowCards(tuple(rng.sample(hand, min(len(hand), 2)))),
        ThrowCards(tuple(some)),
        PickOffer(rng.choice(offer or some)),
        PickOffer(some[0]),
    ]
    return [(seat, a) for a in actions]


def _is_listed(legal: LegalActions | None, seat: int, action: Any) -> bool:
    if legal is None or seat != legal.seat:
        return False
    match action:
        case Call():
            return legal.call
        case ThrowCards(cards):
            return any(Counter(t) == Counter(cards) for t in legal.throws)
        case PickDeck():
            return legal.pick_deck
        case PickOffer(card):
            return card in legal.pick_offer
    return False


# Examples per profile: kept modest, since every profile in specs/ runs them.
INVARIANT_EXAMPLES = 12
LEGAL_EXAMPLES = 8


def _over(game: Game) -> bool:
    """Whether the game is over (a call, so that a step's change of phase is seen)."""
    return game.phase is Phase.GAME_OVER


@pytest.mark.parametrize("name", PROFILE_IDS)
def test_random_play_keeps_every_invariant(name: str) -> None:
    @settings(
        max_examples=INVARIANT_EXAMPLES,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        database=None,
        phases=[Phase_.explicit, Phase_.generate],
    )
    @given(tables(name))
    def check(table: tuple[int, dict[str, Any], random.Random]) -> None:
        play_checking_invariants(name, *table)

    check()


def play_checking_invariants(
    name: str, seats: int, options: dict[str, Any], rng: random.Random
) -> None:
    """Every card accounted for, refused actions change nothing, the game ends."""
    game = Game(profile_document(name), seats, options)
    cards_in_play = Counter(str(c) for c in game.full_deck)
    steps = 0
    now: dict[str, Any] | None = None  # the state as the last step left it, when asked for
    while game.phase is not Phase.GAME_OVER:
        steps += 1
        assert steps < MAX_STEPS, "the game did not end"
        if game.phase in (Phase.CALL_OR_THROW, Phase.PICK):
            # Unlisted actions are refused and change nothing. Each refusal is compared with
            # the state before the first: equal to the state before it, since none changed it.
            legal = game.legal_actions()
            before = now if now is not None else game.state()
            for seat, action in _illegal_candidates(game, rng):
                if _is_listed(legal, seat, action):
                    continue
                try:
                    game.act(seat, action)
                except JhyapError as refused:
                    assert isinstance(refused.code, ErrorCode)
                else:
                    raise AssertionError(f"unlisted {action} by seat {seat} was accepted")
                assert game.state() == before
        # Every listed action is accepted: the random policy picks among them only.
        random_step(game, rng, max_rounds=MAX_ROUNDS, call_chance=0.6)
        now = None
        if not _over(game) and game.round:  # the step may have ended it
            # Asked for once: the next refusals are compared with it (nothing changes between).
            now = game.state()
            assert _accounted(game, now) == cards_in_play
        if game.rules.scoring.kind is ScoringKind.TRANSFER:
            assert sum(game.scores) == 0
        else:
            assert min(game.scores) >= 0
    assert game.result is not None


@pytest.mark.parametrize("name", PROFILE_IDS)
def test_every_legal_throw_and_pick_is_accepted(name: str) -> None:
    @settings(max_examples=LEGAL_EXAMPLES, deadline=None, database=None)
    @given(st.integers(0, 2**32 - 1).map(random.Random))
    def check(rng: random.Random) -> None:
        legal_throws_and_picks_are_accepted(name, rng)

    check()


def legal_throws_and_picks_are_accepted(name: str, rng: random.Random) -> None:
    doc = profile_document(name)
    game = Game(doc, doc["rules"]["seats"]["min"])
    deck = list(game.full_deck)
    rng.shuffle(deck)
    game.deal(deck)
    legal = game.legal_actions()
    assert legal is not None
    for throw in legal.throws:
        trial = Game(doc, game.seats)
        trial.deal(deck)
        trial.act(legal.seat, ThrowCards(throw))
        after = trial.legal_actions()
        assert after is not None and after.pick_deck
        for card in after.pick_offer:
            again = Game(doc, game.seats)
            again.deal(deck)
            again.act(legal.seat, ThrowCards(throw))
            again.act(legal.seat, PickOffer(parse_card(str(card))))
