"""The reference engine's rule families, with exact figures from the rule documents."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from jhyap_core.cards import Card
from jhyap_core.vocabulary import ProfileError, ThrowKind
from reference_engine import (
    Call,
    ErrorCode,
    Game,
    JhyapError,
    Phase,
    PickDeck,
    PickOffer,
    ThrowCards,
    parse_card,
    parse_cards,
)
from reference_engine.game_end import settlement
from reference_engine.rules import Rules
from reference_engine.throws import classify
from tests.conftest import dealt_game, profile_document


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_cards(text.split()))


def rules(name: str = "dashain") -> Rules:
    from jhyap_core.profile import resolve

    return Rules.from_profile(resolve(profile_document(name)))


@pytest.mark.parametrize(
    ("throw", "kind"),
    [
        ("9c", ThrowKind.SINGLE),
        ("9s 9d", ThrowKind.SET),
        ("9s 9d 9c 9h", ThrowKind.SET),
        ("4h 5h 6h", ThrowKind.RUN),
        ("6h 4h 5h", ThrowKind.RUN),
        ("As 2s 3s", ThrowKind.RUN),
        ("9h Th Jh Qh Kh", ThrowKind.RUN),
        ("Qs Ks As", None),
        ("Ks As 2s", None),
        ("5s 6s", None),
        ("4h 5d 6h", None),
        ("4h 4h", None),
        ("9c 9s 8c", None),
        ("", None),
    ],
)
def test_throw_kinds(throw: str, kind: ThrowKind | None) -> None:
    assert classify(cards(throw), rules()) == kind


def test_hand_values_from_the_dashain_examples() -> None:
    game = dealt_game("dashain", ["Ac 2d 3s 4h", "Ks Qc Jc 9d"])
    assert game.hand_value(0) == 10
    assert game.hand_value(1) == 13 + 12 + 11 + 9


def test_deal_goes_one_card_at_a_time_from_the_starter() -> None:
    game = Game(profile_document("everestbuzz"), 3)
    order = parse_cards(
        [
            "Ac",
            "Ad",
            "Ah",
            "2c",
            "2d",
            "2h",
            "3c",
            "3d",
            "3h",
            "4c",
            "4d",
            "4h",
            "5c",
            "5d",
            "5h",
            "Kc",
        ]
        + [
            str(c)
            for c in __import__("reference_engine").DECK
            if str(c) not in "Ac Ad Ah 2c 2d 2h 3c 3d 3h 4c 4d 4h 5c 5d 5h Kc"
        ]
    )
    events = game.deal(order)
    assert events[0] == {
        "type": "round_started",
        "round": 1,
        "dealer": 2,
        "starter": 0,
        "turn_order": [0, 1, 2],
    }
    assert events[1]["hands"][0] == ["Ac", "2c", "3c", "4c", "5c"]
    assert events[1]["turned_up"] == "Kc"
    assert game.state()["deck"][0] == "As"


@pytest.mark.parametrize(
    ("profile", "offer_pick", "code"),
    [
        ("dashain", "5h", ErrorCode.PICK_NOT_ALLOWED),
        ("dashain", "4h", None),
        ("dashain", "6h", None),
        ("dhumbal", "5h", None),
        ("everestbuzz", "5h", ErrorCode.PICK_NOT_ALLOWED),
        ("everestbuzz", "4h", ErrorCode.PICK_NOT_ALLOWED),
        ("everestbuzz", "6h", None),  # placed last, so on top
    ],
)
def test_pick_from_a_run(profile: str, offer_pick: str, code: ErrorCode | None) -> None:
    game = dealt_game(profile, ["4h 6h 5h Kc Qd", "9c 9s 2d 3d Jh"])
    game.act(0, ThrowCards(cards("4h 5h 6h")))  # placed low to high: 6h lands on top
    game.act(0, PickDeck())
    game.act(1, ThrowCards(cards("9c 9s")))
    before = game.state()
    if code is None:
        game.act(1, PickOffer(parse_card(offer_pick)))
        assert offer_pick in game.state()["hands"][1]
    else:
        with pytest.raises(JhyapError) as refused:
            game.act(1, PickOffer(parse_card(offer_pick)))
        assert refused.value.code is code
        assert game.state() == before


def test_call_limit_is_inclusive() -> None:
    game = dealt_game("dhumbal", ["Ac 2c 3c 4c", "Kc Kd Kh Ks"])  # worth exactly 10
    events = game.act(0, Call())
    assert events[0] == {"type": "called", "seat": 0, "value": 10}
    game = dealt_game("dhumbal", ["Ac 2c 3c 5c", "Kc Kd Kh Ks"])  # 11
    with pytest.raises(JhyapError) as refused:
        game.act(0, Call())
    assert refused.value.code is ErrorCode.CALL_OVER_LIMIT


def test_dashain_first_round_lock_and_its_option() -> None:
    hands = ["Ac 2c 3c 4c", "Kc Kd Kh Ks"]
    game = dealt_game("dashain", hands)
    with pytest.raises(JhyapError) as refused:
        game.act(0, Call())
    assert refused.value.code is ErrorCode.CALL_TOO_EARLY
    game = dealt_game("dashain", hands, options={"first_round_jhyap": True})
    assert game.act(0, Call())[0]["type"] == "called"


def test_call_after_throwing_is_the_wrong_phase() -> None:
    game = dealt_game("dhumbal", ["Ac 2c 3c 4c", "Kc Kd Kh Ks"])
    game.act(0, ThrowCards(cards("4c")))
    with pytest.raises(JhyapError) as refused:
        game.act(0, Call())
    assert refused.value.code is ErrorCode.WRONG_PHASE


def _showdown(profile: str, hands: list[str], caller: int, **options: object) -> dict[str, Any]:
    game = dealt_game(profile, hands, options=dict(options) or None)
    game.turns_taken = len(hands)  # past the first round
    game.to_act = caller
    events = game.act(caller, Call())
    return events[1]


def test_dashain_asha_examples() -> None:
    # Asha 6, Bikash 14, Chandra 9, Dipa 21 in seats 0-3.
    hands = ["As 5s", "Ks Ac", "9c", "Kd 8d"]
    won = _showdown("dashain", hands, caller=0)
    assert won["outcome"] == "won_call"
    assert won["deltas"] == [44, -14, -9, -21]
    beaten = _showdown("dashain", hands, caller=2)
    assert (beaten["outcome"], beaten["winner"]) == ("beaten_call", 0)
    assert beaten["deltas"] == [44, 0, -44, 0]


def test_everestbuzz_examples() -> None:
    assert _showdown("everestbuzz", ["As 5s", "Ks Ac", "Kd 7d"], 0)["deltas"] == [34, -14, -20]
    busted = _showdown("everestbuzz", ["As 5s", "Ac 5c", "Kd 7d"], 0)
    assert busted["deltas"] == [-32, 32, 0]


def test_tie_goes_to_first_lowest_after_the_caller() -> None:
    # Caller seat 2 with 6; seats 0 and 3 hold 5: seat 3 comes first after seat 2.
    result = _showdown("dhumbal", ["5c", "Kc", "6c", "5d"], caller=2)
    assert (result["winner"], result["deltas"]) == (3, [0, 0, 31, 0])


def test_dhumbal_elimination_above_100_not_at_100() -> None:
    game = dealt_game("dhumbal", ["Ac", "Tc", "Jc"])
    game.scores = [0, 90, 90]
    game.act(0, Call())
    assert game.scores == [0, 100, 101]
    assert game.eliminated == [2]
    assert game.phase is Phase.ROUND_OVER
    assert game.starter == 0  # the round winner starts the next round


def test_dhumbal_last_player_in_wins() -> None:
    game = dealt_game("dhumbal", ["Ac", "Tc"])
    game.scores = [0, 95]
    events = game.act(0, Call())
    assert events[-1]["type"] == "game_ended"
    assert events[-1]["winners"] == [0]
    assert game.phase is Phase.GAME_OVER


def test_next_seat_starts_the_next_dashain_hand() -> None:
    game = dealt_game("dashain", ["Ac", "Tc", "Jc"], options={"first_round_jhyap": True})
    game.act(0, Call())
    assert (game.starter, game.dealer) == (1, 0)


def test_settlement_in_exact_dollars() -> None:
    payments = settlement([44, 0, -44, 0], Decimal("0.05"))
    assert [p.to_json() for p in payments] == [
        {"from": 2, "to": 0, "points": 44, "dollars": "2.20"}
    ]


def test_refused_deal_and_option_change_leave_state_unchanged() -> None:
    game = Game(profile_document("dashain"), 3)
    before = game.state()
    with pytest.raises(JhyapError) as refused:
        game.deal(parse_cards(["Ac"] * 52))
    assert refused.value.code is ErrorCode.INVALID_DECK
    with pytest.raises(JhyapError) as refused:
        game.set_option("dollars_per_point", "0.10")
    assert refused.value.code is ErrorCode.OPTION_LOCKED
    assert game.state() == before
    game.set_option("call_limit", 7)
    assert game.rules.calling.limit == 7


def test_standings_order_still_in_then_later_out_then_score_then_seat() -> None:
    from reference_engine.game_end import standings

    penalty = rules("dhumbal")
    # Seat 2 still in; seats 0 and 3 out in round 4 (0 with the lower score); seat 1 out in 2.
    assert standings([104, 120, 60, 110], {0: 4, 3: 4, 1: 2}, penalty) == [2, 0, 3, 1]
    transfer = rules("everestbuzz")
    assert standings([50, -100, 50], {}, transfer) == [0, 2, 1]


def test_the_engine_knows_every_rule_parameter_of_the_schema() -> None:
    # The engine refuses a parameter it does not know (unsupported_profile); one the schema
    # has and the engine's list lacks would refuse valid profiles.
    import json as _json

    from conformance.spec import data as spec_data
    from reference_engine import rules as engine_rules

    schema = _json.loads((spec_data.schema_dir() / "profile.schema.json").read_text("utf-8"))

    def every(node: Any) -> Any:
        props = node.get("properties") if isinstance(node, dict) else None
        if not props:
            return None
        return {key: every(child) for key, child in props.items()}

    everything = every(schema["$defs"]["rules"])
    assert everything is not None and "throws" in everything and "scoring" in everything
    engine_rules._check_known(everything)  # raises ProfileError naming the first unknown one


def test_rules_are_built_once_per_rules_data_and_refusals_every_time() -> None:
    document = profile_document("dhumbal")
    built = Rules.from_profile(document)
    again = profile_document("dhumbal")
    assert Rules.from_profile(again) is built  # equal data, another mapping: one value
    # Data that only compares equal is built afresh: a tuple where the schema has a list is
    # refused, as it was before any rules were kept.
    again["rules"]["deck"].update(cards=48, ranks_left_out=["K"])
    no_kings = Rules.from_profile(again)
    assert no_kings.cards.ranks_left_out == (13,)
    again["rules"]["deck"]["ranks_left_out"] = ("K",)
    with pytest.raises(ProfileError, match="ranks_left_out"):
        Rules.from_profile(again)
    again["rules"]["deck"] = document["rules"]["deck"]
    assert Rules.from_profile(again) is built
    again["rules"]["scoring"]["beaten_penalty"] = True  # true is not 1
    with pytest.raises(ProfileError, match="beaten_penalty"):
        Rules.from_profile(again)
    with pytest.raises(ProfileError, match="beaten_penalty"):
        Rules.from_profile(again)  # a refusal is never kept
    again["rules"]["scoring"]["beaten_penalty"] = 30
    assert Rules.from_profile(again) is not built
    assert Rules.from_profile(again).scoring.beaten_penalty == 30
