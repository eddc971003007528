"""jhyap_kit: the protocol core, TrackedEngine's bookkeeping, rule support and the loop driver.

The engine under test is tests/kit_engines/object_api.py (the reference rule functions
bound through the kit, in process); the loop driver is tested with small loops of its own.
"""

from __future__ import annotations

import builtins
import io
import json
import threading
from collections.abc import Callable
from typing import Any

import pytest

import jhyap_kit
from conformance.spec.profiles import resolved_profile
from jhyap_kit import (
    ANY,
    KIT_RULES,
    PROTOCOL_VERSION,
    ErrorCode,
    LoopAbandoned,
    LoopDriver,
    Refused,
    Session,
    serve,
)
from jhyap_kit.support import unsupported
from tests.conftest import deck_from_hands
from tests.kit_engines.object_api import ObjectApiEngine

HANDS = ["Ac As 2c 2d 3c", "Qc Kc Kd Kh Ks"]


class Client:
    """A kit session in process, spoken to in protocol JSON."""

    def __init__(self, engine: jhyap_kit.TrackedEngine | None = None) -> None:
        engine = engine or ObjectApiEngine()
        self.session = Session(engine, engine.info())
        self.seq = 0

    def ask(self, cmd: str, **args: Any) -> dict[str, Any]:
        self.seq += 1
        reply = self.session.handle({"seq": self.seq, "cmd": cmd, **args})
        assert reply["seq"] == self.seq
        return reply

    def code(self, cmd: str, **args: Any) -> str | None:
        reply = self.ask(cmd, **args)
        return None if reply["ok"] else str(reply["error"]["code"])

    def start(self, profile: str = "dhumbal", seats: int = 2, **options: Any) -> dict[str, Any]:
        return self.ask(
            "start", profile=resolved_profile(profile, options), options=options, seats=seats
        )

    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = self.ask("state")["state"]
        return state


def raw(*lines: bytes) -> list[dict[str, Any]]:
    """The kit's answers to raw request lines, served as a process serves them."""
    out = io.StringIO()
    engine = ObjectApiEngine()
    serve(Session(engine, engine.info()), io.BytesIO(b"".join(x + b"\n" for x in lines)), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


# -- the transport and seq ----------------------------------------------------------------


@pytest.mark.parametrize(
    "seq", ['"7"', "true", "1.5", "-1", str(1 << 53), "null", "NaN", "[0]"], ids=str
)
def test_a_seq_that_is_no_integer_of_0_to_2_53_minus_1_is_answered_with_null(seq: str) -> None:
    [answer] = raw(b'{"seq": %s, "cmd": "hello", "protocol": "1.0"}' % seq.encode())
    assert answer["seq"] is None
    assert answer["error"]["code"] == "bad_request"


def test_the_largest_seq_is_echoed_and_blank_lines_are_ignored() -> None:
    top = (1 << 53) - 1
    answers = raw(b"", b'{"seq": %d, "cmd": "hello", "protocol": "1.0"}' % top, b"  ")
    assert [a["seq"] for a in answers] == [top]
    assert answers[0]["protocol"] == PROTOCOL_VERSION
    assert answers[0]["engine"] == {
        "name": "kit-object-api",
        "version": "1.0",
        "language": "python",
    }
    assert answers[0]["supports"]["actions"] == ["call", "throw", "pick", "timeout", "slapdown"]
    assert "state_fields" not in answers[0]["supports"]  # a kit engine reports every field


def test_bad_lines_get_bad_request_and_the_engine_keeps_serving() -> None:
    answers = raw(
        b"not json",
        b"[1, 2]",
        b'{"seq": 1}',
        b'{"seq": 2, "cmd": "Hello"}',
        b"[" * 100 + b"]" * 100,
        b'{"seq": 3, "cmd": "x", "pad": "' + b"x" * (1 << 20) + b'"}',
        b'{"seq": 4, "cmd": "stop"}',
        b'{"seq": 5, "cmd": "hello", "protocol": "1.0"}',  # after stop: never read
    )
    codes = [(a["seq"], a.get("error", {}).get("code")) for a in answers]
    assert codes == [
        (None, "bad_request"),
        (None, "bad_request"),
        (1, "bad_request"),
        (2, "unknown_command"),
        (None, "bad_request"),
        (None, "bad_request"),
        (4, None),
    ]


def test_hello_refuses_another_major_version_and_a_malformed_one() -> None:
    client = Client()
    assert client.code("hello", protocol="2.0") == "unsupported_protocol"
    assert client.code("hello", protocol="1") == "bad_request"
    assert client.ask("hello", protocol="1.7")["protocol"] == PROTOCOL_VERSION


# -- the order of checks --------------------------------------------------------------------


def test_arguments_are_checked_before_asking_for_a_game() -> None:
    client = Client()
    assert client.code("deal", deck=["Xx"]) == "invalid_card"
    assert client.code("deal", deck="Ac") == "bad_request"
    assert client.code("act", seat="0", action={"type": "call"}) == "bad_request"
    assert client.code("act", seat=0, action={"type": "pick"}) == "bad_request"
    assert client.code("act", seat=0, action={"type": "throw", "cards": ["1c"]}) == "invalid_card"
    assert client.code("set_option", name="no_such_option", value=1) == "wrong_phase"
    assert client.code("set_option", name="call_limit", value=[5]) == "bad_request"
    assert client.code("state") == "wrong_phase"
    assert client.code("legal") == "wrong_phase"


def test_act_checks_seat_then_phase_then_turn_then_the_action() -> None:
    client = Client()
    client.start()
    assert client.code("act", seat=9, action={"type": "call"}) == "invalid_seat"
    assert client.code("act", seat=1, action={"type": "call"}) == "wrong_phase"
    client.ask("deal", deck=deck_from_hands(HANDS, "9h"))
    assert client.code("act", seat=1, action={"type": "call"}) == "not_your_turn"
    throw = {"type": "throw", "cards": ["Kc"]}
    assert client.code("act", seat=0, action=throw) == "card_not_in_hand"
    assert client.code("act", seat=0, action={"type": "throw", "cards": ["Ac", "Ac"]}) == (
        "illegal_throw"
    )
    assert client.code("act", seat=0, action={"type": "throw", "cards": []}) == "illegal_throw"
    assert client.code("act", seat=0, action={"type": "pick", "from": "deck"}) == "wrong_phase"


def test_a_refused_action_changes_nothing() -> None:
    client = Client()
    client.start()
    client.ask("deal", deck=deck_from_hands(HANDS, "9h"))
    before = client.state()
    assert client.code("act", seat=0, action={"type": "throw", "cards": ["Ac", "2d"]}) == (
        "illegal_throw"
    )
    assert client.code("act", seat=0, action={"type": "throw", "cards": ["Ac", "Kd"]}) == (
        "card_not_in_hand"
    )
    assert client.state() == before


def test_the_kit_tracks_offer_pickable_out_of_play_turns_and_multi_throwers() -> None:
    client = Client()
    client.start("everestbuzz", seats=2)  # last placed card only may be picked
    client.ask("deal", deck=deck_from_hands(["2c 3c 4c 9d 9s", "5h 5d Th Jh Qs"], "Kd"))
    events = client.ask("act", seat=0, action={"type": "throw", "cards": ["2c", "3c", "4c"]})
    assert events["events"] == [
        {"type": "thrown", "seat": 0, "cards": ["2c", "3c", "4c"], "kind": "run"}
    ]
    client.ask("act", seat=0, action={"type": "pick", "from": "offer", "card": "Kd"})
    state = client.state()
    assert (state["offer"], state["offer_kind"], state["pickable"]) == (
        ["2c", "3c", "4c"],
        "run",
        ["4c"],
    )
    assert (state["turns_taken"], state["multi_throwers"], state["to_act"]) == (1, [0], 1)
    assert state["out_of_play"] == []
    client.ask("act", seat=1, action={"type": "throw", "cards": ["5h", "5d"]})
    assert client.code("act", seat=1, action={"type": "pick", "from": "offer", "card": "2c"}) == (
        "pick_not_allowed"
    )
    assert client.code("act", seat=1, action={"type": "pick", "from": "offer", "card": "Kd"}) == (
        "card_not_on_offer"
    )
    picked = client.ask("act", seat=1, action={"type": "pick", "from": "offer", "card": "4c"})
    assert picked["events"][1] == {"type": "out_of_play", "cards": ["2c", "3c"]}
    assert client.state()["multi_throwers"] == [0, 1]


# -- options and declared rules ---------------------------------------------------------------


def test_start_options_win_over_the_profiles_rules() -> None:
    client = Client()
    profile = resolved_profile("dhumbal", {"call_limit": 5})
    client.ask("start", profile=profile, options={"call_limit": 15}, seats=2)
    assert client.state()["options"] == {"call_limit": 15, "pickup_after_multi_throw": False}
    client.ask("deal", deck=deck_from_hands(["Ac 2c 3d 4d 5s", "Qc Kc Kd Kh Ks"], "9h"))
    assert client.ask("act", seat=0, action={"type": "call"})["events"][0]["value"] == 15


def test_start_checks_names_then_values_then_seats() -> None:
    client = Client()
    profile = resolved_profile("dhumbal", {})
    assert client.code("start", profile=profile, options={"nope": [1]}, seats=2) == "bad_request"
    assert client.code("start", profile=profile, options={"nope": "12"}, seats=9) == (
        "unknown_option"
    )
    assert client.code("start", profile=profile, options={"call_limit": "12"}, seats=9) == (
        "invalid_option_value"
    )
    assert client.code("start", profile=profile, options={}, seats=9) == "invalid_seats"
    assert client.code("start", profile={"rules": {}}, options={}, seats=2) == "invalid_profile"
    assert client.code("state") == "wrong_phase"  # no start succeeded


def test_set_option_values_locks_and_decimal_text() -> None:
    client = Client()
    client.start("dashain", seats=2, dollars_per_point="0.05")
    assert client.code("set_option", name="dollars_per_point", value="0.10") == "option_locked"
    assert client.code("set_option", name="call_limit", value=0) == "invalid_option_value"
    assert client.code("set_option", name="call_limit", value="12") == "invalid_option_value"
    changed = client.ask("set_option", name="call_limit", value=1000)  # range max: null
    assert changed["events"] == [{"type": "option_changed", "name": "call_limit", "value": 1000}]
    assert client.code("start", profile=resolved_profile("dashain", {}), options={
        "dollars_per_point": 0.1}, seats=2) == "invalid_option_value"  # fmt: skip
    client.ask("start", profile=resolved_profile("dashain", {}), options={
        "dollars_per_point": "0.1"}, seats=2)  # fmt: skip
    assert client.state()["options"]["dollars_per_point"] == "0.10"


def test_an_option_setting_several_parameters_through_a_map() -> None:
    engine = ObjectApiEngine()
    client = Client(engine)
    client.start("jhyap-jacks-zero", seats=2, picture_cards="all_ten")
    assert [engine.rules["card_values"][r] for r in "JQK"] == [10, 10, 10]
    dhumbal = Client()
    dhumbal.start()
    assert dhumbal.code("set_option", name="call_limit", value=15) is None  # before the deal
    dhumbal.ask("deal", deck=deck_from_hands(HANDS, "9h"))
    dhumbal.ask("act", seat=0, action={"type": "call"})
    assert dhumbal.code("set_option", name="call_limit", value=5) == "option_locked"
    assert dhumbal.code("set_option", name="pickup_after_multi_throw", value=True) is None


class NarrowEngine(ObjectApiEngine):
    RULES = {**KIT_RULES, "next_starter": ("caller",), "card_values": ANY}  # noqa: RUF012


def test_an_undeclared_parameter_or_value_is_unsupported_profile_naming_it() -> None:
    client = Client(NarrowEngine())
    reply = client.start()
    assert reply["error"]["code"] == "unsupported_profile"
    assert reply["error"]["message"] == (
        "rules.next_starter: 'round_winner' is not implemented by this engine (it plays 'caller')"
    )
    rules = resolved_profile("dhumbal", {})["rules"]
    support = {**ObjectApiEngine.RULES}
    del support["showdown"]
    assert unsupported(rules, support) == (
        "rules.showdown.tie: this engine does not implement this rule parameter"
    )
    assert unsupported(rules, ObjectApiEngine.RULES) is None


class NoHouseRuleEngine(ObjectApiEngine):
    RULES = {**ObjectApiEngine.RULES, "pick.only_after_multi_throw": (False,)}  # noqa: RUF012
    OPTIONS = ("call_limit", "pickup_after_multi_throw")


def test_an_option_value_the_engine_does_not_play_is_unsupported_option() -> None:
    client = Client(NoHouseRuleEngine())
    reply = client.start(pickup_after_multi_throw=True)
    assert reply["error"]["code"] == "unsupported_option"
    assert "rules.pick.only_after_multi_throw" in reply["error"]["message"]
    client.start()
    assert client.code("set_option", name="pickup_after_multi_throw", value=True) == (
        "unsupported_option"
    )
    assert client.state()["options"]["pickup_after_multi_throw"] is False


# -- the deal: the request's layout, or deck dealt by the profile's procedure ------------------


def test_deck_is_dealt_one_card_at_a_time_from_the_starter() -> None:
    client = Client()
    client.start()
    deck = deck_from_hands(HANDS, "9h", deck_top="4s")
    dealt = client.ask("deal", deck=deck)["events"][1]
    assert dealt == {
        "type": "dealt",
        "hands": [["Ac", "As", "2c", "2d", "3c"], ["Qc", "Kc", "Kd", "Kh", "Ks"]],
        "turned_up": "9h",
        "deck_size": 41,
    }
    assert client.state()["deck"][0] == "4s"


def test_a_layout_is_used_as_given() -> None:
    client = Client()
    client.start()
    deck = deck_from_hands(HANDS, "9h")
    # The same cards laid out otherwise: the first ten in blocks of five.
    hands = [deck[0:5], deck[5:10]]
    stock = deck[11:]
    reply = client.ask("deal", deck=deck, hands=hands, turned_up=deck[10], stock=stock)
    assert reply["events"][1]["hands"] == [sorted_names(deck[0:5]), sorted_names(deck[5:10])]
    assert client.state()["deck"] == stock
    assert client.state()["offer"] == [deck[10]]


def test_a_layout_that_does_not_hold_the_deck_is_invalid_deck() -> None:
    client = Client()
    client.start()
    deck = deck_from_hands(HANDS, "9h")
    short = client.code("deal", deck=deck, hands=[deck[0:5], deck[5:9]], turned_up=deck[10],
                        stock=deck[9:10] + deck[11:])  # fmt: skip
    assert short == "invalid_deck"
    twice = client.code("deal", deck=deck, hands=[deck[0:5], deck[0:5]], turned_up=deck[10],
                        stock=deck[11:])  # fmt: skip
    assert twice == "invalid_deck"
    assert client.code("deal", deck=deck, hands=[deck[0:5], deck[5:10]], turned_up="Qx",
                       stock=deck[11:]) == "invalid_card"  # fmt: skip
    assert client.state()["phase"] == "awaiting_deal"


def sorted_names(cards: list[str]) -> list[str]:
    return jhyap_kit.canonical(cards)


# -- the blocking-loop driver ------------------------------------------------------------------


def counting_loop(driver: LoopDriver, seen: list[Any]) -> Callable[[], None]:
    """A loop that asks seat 0 for a positive number until it gets one, then seat 1."""

    def loop() -> None:
        for seat in (0, 1):
            while True:
                move = driver.wait(seat, "number")
                if move > 0:
                    seen.append(move)
                    break
                driver.refuse(f"{move} is not positive")

    return loop


def test_the_driver_hands_moves_to_the_loop_and_reports_a_re_ask_as_refusal() -> None:
    driver = LoopDriver(refused={"number": ErrorCode.ILLEGAL_THROW}, timeout=5)
    seen: list[Any] = []
    driver.start(counting_loop(driver, seen))
    assert driver.waiting() == (0, "number")
    with pytest.raises(Refused) as refused:
        driver.send(0, "number", -3)
    assert (refused.value.code, refused.value.message) == ("illegal_throw", "-3 is not positive")
    assert driver.waiting() == (0, "number")
    driver.send(0, "number", 4)
    assert driver.waiting() == (1, "number")
    with pytest.raises(RuntimeError, match="waits for number of seat 1, not number of seat 0"):
        driver.send(0, "number", 1)
    driver.send(1, "number", 7)
    assert seen == [4, 7]
    assert driver.ended


def test_a_new_start_abandons_the_old_loop_and_a_failing_loop_is_reported() -> None:
    driver = LoopDriver(timeout=5)
    unwound = threading.Event()

    def first() -> None:
        try:
            driver.wait(0, "number")
        except LoopAbandoned:
            unwound.set()
            raise

    driver.start(first)
    driver.start(counting_loop(driver, []))
    assert unwound.wait(5)
    assert driver.waiting() == (0, "number")

    def failing() -> None:
        driver.wait(0, "number")
        raise ValueError("the engine broke")

    driver.start(failing)
    with pytest.raises(RuntimeError, match="the engine broke"):
        driver.send(0, "number", 1)


def test_an_input_loop_runs_with_input_patched(monkeypatch: pytest.MonkeyPatch) -> None:
    """An engine reading input(): the binding's input() waits for the driver's move."""
    driver = LoopDriver(refused={"move": ErrorCode.ILLEGAL_THROW}, timeout=5)
    played: list[str] = []

    def engine() -> None:  # written for a person at a terminal
        for seat in (0, 1):
            while (answer := input(f"player {seat}, your card: ")) not in ("Ac", "Kd"):
                print("no such card")
            played.append(answer)

    def patched_input(prompt: str = "") -> str:
        seat = int(prompt.split()[1].rstrip(","))
        move: str = driver.wait(seat, "move")
        return move

    monkeypatch.setattr(builtins, "input", patched_input)
    driver.start(engine)
    with pytest.raises(Refused):
        driver.send(0, "move", "Zz")
    driver.send(0, "move", "Ac")
    driver.send(1, "move", "Kd")
    assert played == ["Ac", "Kd"]


def test_legal_is_derived_from_the_refusal_hook() -> None:
    client = Client()
    client.start()
    client.ask("deal", deck=deck_from_hands(["Ac 2c 3c 3d 9h", "Qc Kc Kd Kh Ks"], "5h"))
    legal = client.ask("legal")["legal"]
    assert legal == {
        "seat": 0,
        "call": False,
        "throws": [["Ac"], ["2c"], ["3c"], ["3d"], ["9h"], ["3c", "3d"], ["Ac", "2c", "3c"]],
        "picks": [],
    }
    client.ask("act", seat=0, action={"type": "throw", "cards": ["9h"]})
    assert client.ask("legal")["legal"]["picks"] == [
        {"from": "deck"},
        {"from": "offer", "card": "5h"},
    ]
    assert client.code("act", seat=0, action={"type": "call"}) == "wrong_phase"
