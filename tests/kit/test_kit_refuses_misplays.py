"""The kit refuses a table whose parameter values a default hook would misplay, naming the
parameter, unless the binding overrides that hook (jhyap_kit.support.default_misplay)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from conformance.spec.profiles import resolved_profile
from jhyap_core.cards import full_deck, names
from jhyap_core.messages import Pick, Refused, Slapdown, Throw
from jhyap_core.vocabulary import ErrorCode, JhyapError, PickSource
from jhyap_kit import TrackedEngine
from tests.kit_engines.object_api import ObjectApiEngine


class DefaultLaying(ObjectApiEngine):
    """The reference's rule functions behind every hook but ``laid``: the kit's default."""

    laid = TrackedEngine.laid


class DefaultPicking(ObjectApiEngine):
    pickable_positions = TrackedEngine.pickable_positions


class DefaultSettlement(ObjectApiEngine):
    settlement = TrackedEngine.settlement


def profile(**rules: Any) -> dict[str, Any]:
    """bga-yaniv (jokers wild in runs) with ``rules`` over its sections' parameters."""
    document = copy.deepcopy(resolved_profile("bga-yaniv", {}))
    for section, values in rules.items():
        document["rules"].setdefault(section, {}).update(values)
    return document


def refusal(engine: TrackedEngine, document: dict[str, Any]) -> tuple[str, str]:
    try:
        engine.start(document, {}, 2)
    except Refused as refused:
        return refused.code, refused.message
    raise AssertionError("the table opened")


def test_laid_by_rank_with_jokers_in_runs_is_refused_without_a_laid_hook() -> None:
    laid_by_rank = profile(throws={"laid": "by_rank"})
    assert DefaultLaying.overridden_hooks() == {"pickable_positions", "settlement"}
    assert refusal(DefaultLaying(), laid_by_rank) == (
        ErrorCode.UNSUPPORTED_PROFILE,
        "rules.throws.laid: 'by_rank' is played by the kit's default laid() for runs read "
        "by the ranks of their cards only, and here jokers stand in runs "
        "(deck.jokers_wild 'runs'): the binding overrides laid() to play it",
    )


def test_with_a_laid_hook_the_table_opens() -> None:
    engine = ObjectApiEngine()
    engine.start(profile(throws={"laid": "by_rank"}), {}, 2)
    assert engine.state()["phase"] == "awaiting_deal"


def test_laid_as_placed_needs_no_laid_hook() -> None:
    engine = DefaultLaying()
    engine.start(profile(throws={"laid": "as_placed"}), {}, 2)
    assert engine.state()["phase"] == "awaiting_deal"


def test_runs_that_turn_the_corner_are_no_run_of_the_default_laying() -> None:
    document = profile(throws={"laid": "by_rank"}, deck={"jokers_wild": "none"})
    document["rules"]["throws"]["run"]["wrap"] = True
    code, message = refusal(DefaultLaying(), document)
    assert (code, message.split(":")[0]) == (ErrorCode.UNSUPPORTED_PROFILE, "rules.throws.laid")
    assert "runs turn the corner (throws.run.wrap)" in message


def test_run_ends_with_jokers_in_runs_is_refused_without_a_pickable_positions_hook() -> None:
    assert refusal(DefaultPicking(), profile(pick={"from_offer": "run_ends"})) == (
        ErrorCode.UNSUPPORTED_PROFILE,
        "rules.pick.from_offer: 'run_ends' is played by the kit's default "
        "pickable_positions() for runs read by the ranks of their cards only, and here "
        "jokers stand in runs (deck.jokers_wild 'runs'): the binding overrides "
        "pickable_positions() to play it",
    )


def test_money_is_refused_without_a_settlement_hook() -> None:
    # dashain's money is set by its option dollars_per_point: the option is named.
    document = copy.deepcopy(resolved_profile("dashain", {}))
    assert document["rules"]["money"] is not None
    assert refusal(DefaultSettlement(), document) == (
        ErrorCode.UNSUPPORTED_OPTION,
        "option dollars_per_point: rules.money: the kit's default settlement() settles no "
        "money: the binding overrides settlement() to play it",
    )


def test_slapdown_is_refused_by_name_whatever_the_hooks() -> None:
    # The table procedure would open it, but no hook tells the engine of a card slapped
    # down: even a binding declaring every throw parameter (ObjectApiEngine) is refused.
    assert refusal(ObjectApiEngine(), profile(throws={"slapdown": "same_rank_as_single"})) == (
        ErrorCode.UNSUPPORTED_PROFILE,
        "rules.throws.slapdown: 'same_rank_as_single' is not played by the kit (it plays "
        "'none'): no hook tells the engine of a card slapped down",
    )


def test_a_slapdown_at_a_kit_table_is_refused_and_changes_nothing() -> None:
    engine = ObjectApiEngine()
    engine.start(profile(), {}, 2)
    engine.deal(names(full_deck(1, 2)), None)
    seat = engine.state()["to_act"]
    engine.act(seat, Throw((engine.state()["hands"][seat][0],)))
    engine.act(seat, Pick(PickSource.DECK))
    before = engine.state()
    with pytest.raises(JhyapError) as refused:
        engine.act(seat, Slapdown(before["hands"][seat][0]))
    assert refused.value.code == ErrorCode.SLAPDOWN_NOT_ALLOWED
    assert engine.state() == before
