"""The kit's observation hooks: a binding reports what its engine decided, the kit answers
with the engine's value (state, events) or follows it, and ``hello`` says which state
fields the kit still keeps (docs/kit.md, "Observation hooks").

The e2e tests run tests/kit_engines/observed.py, an engine that keeps its own hands and
starter, with a planted bug in each: ``jhyap run`` fails the exact case at the exact step,
as the engine's failure (not an error), and passes the engine without the bug.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from jhyap_core.vocabulary import STATE_FIELDS, Phase
from jhyap_kit import ThrowKind
from jhyap_kit.support import OBSERVATIONS, kit_kept_fields
from tests.conftest import deck_from_hands
from tests.kit.test_kit import Client
from tests.kit_engines.object_api import ObjectApiEngine

ROOT = Path(__file__).resolve().parents[2]
OBSERVED = ROOT / "tests" / "kit_engines" / "observed.py"
HANDS = ["Ac As 2c 2d 3c", "Qc Kc Kd Kh Ks"]
CALL = {"type": "call"}


class Reporting(ObjectApiEngine):
    """The reference rule functions, with every observation hook answering a set value."""

    hands: Sequence[Sequence[str]] = (("Kc", "Ac"), ())
    starter = 1
    phase: Phase | str = Phase.PICK
    game_over = False
    winners: Sequence[int] = (1,)
    scores: Sequence[int] = (7, 8)
    deck: Sequence[str] = ("9c", "9h")
    asked: list[str]

    def begin_game(self, rules: Any, seats: int) -> None:
        super().begin_game(rules, seats)
        self.asked = []

    def observed_hands(self) -> Sequence[Sequence[str]]:
        self.asked.append("hands")
        return self.hands

    def observed_starter(self) -> int:
        self.asked.append("starter")
        return self.starter

    def observed_phase(self) -> Phase | str:
        return self.phase

    def observed_game_over(self) -> bool:
        self.asked.append("game_over")
        return self.game_over

    def observed_winners(self) -> Sequence[int]:
        self.asked.append("winners")
        return self.winners

    def observed_scores(self) -> Sequence[int]:
        return self.scores

    def observed_throw(self) -> Sequence[str]:
        self.asked.append("throw")
        return ("3c", "2c", "Ac")

    def observed_deck(self) -> Sequence[str]:
        return self.deck


def started(engine: ObjectApiEngine, profile: str = "dhumbal") -> Client:
    client = Client(engine)
    client.start(profile, seats=2)
    return client


def test_hello_lists_the_fields_the_kit_keeps_by_the_hooks_a_binding_implements() -> None:
    # object_api overrides laid, pickable_positions and settlement, no observation hook.
    assert ObjectApiEngine.info().supports()["kit_kept_fields"] == [
        "phase", "round", "seats", "active", "eliminated", "dealer", "starter", "to_act",
        "hands", "hand_values", "multi_throwers", "deck", "deck_size", "out_of_play",
        "turns_taken", "options", "last_round", "result",
    ]  # fmt: skip
    assert Reporting.observed_hooks() == frozenset(OBSERVATIONS)
    assert Reporting.info().kit_kept_fields == (
        "round", "seats", "active", "eliminated", "to_act", "multi_throwers", "out_of_play",
        "turns_taken", "options", "last_round",
    )  # fmt: skip
    engines = ("offer_kind", "scores")  # on_throw and score_round: every binding's own
    assert kit_kept_fields(()) == tuple(f for f in STATE_FIELDS if f not in engines)


def test_the_state_reports_the_engines_hands_scores_deck_and_phase() -> None:
    client = started(Reporting())
    dealt = client.ask("deal", deck=deck_from_hands(HANDS, "9d"))["events"][1]
    assert dealt["hands"] == [["Ac", "Kc"], []]  # canonical order
    state = client.state()
    assert (state["hands"], state["hand_values"]) == ([["Ac", "Kc"], []], [14, 0])
    assert (state["scores"], state["deck"], state["deck_size"]) == ([7, 8], ["9c", "9h"], 2)
    assert state["phase"] == "pick"
    # The kit's own bookkeeping goes on: seat 0 still holds its dealt cards for the kit.
    assert (state["to_act"], state["turns_taken"]) == (0, 0)


def test_the_kit_lays_the_throw_as_the_engine_lays_it() -> None:
    client = started(Reporting())
    client.ask("deal", deck=deck_from_hands(HANDS, "9d"))
    thrown = client.ask("act", seat=0, action={"type": "throw", "cards": ["Ac", "2c", "3c"]})
    assert thrown["events"] == [
        {"type": "thrown", "seat": 0, "cards": ["3c", "2c", "Ac"], "kind": ThrowKind.RUN.value}
    ]
    assert client.state()["thrown"] == ["3c", "2c", "Ac"]


def test_the_kit_follows_the_engines_next_starter_game_end_and_winners() -> None:
    engine = Reporting()
    client = started(engine)
    client.ask("deal", deck=deck_from_hands(HANDS, "9d"))
    engine.asked.clear()
    ended = client.ask("act", seat=0, action=CALL)["events"]
    assert [e["type"] for e in ended] == ["called", "round_ended"]
    assert engine.asked == ["game_over", "starter"]  # the hand scored, then who starts next
    assert client.state()["starter"] == 1
    # dhumbal's next starter is the round's winner, seat 0: the engine said seat 1.
    started_event = client.ask("deal", deck=deck_from_hands(HANDS, "9d"))["events"][0]
    assert (started_event["starter"], started_event["turn_order"]) == (1, [1, 0])
    engine.game_over = True
    engine.asked.clear()
    over = client.ask("act", seat=1, action=CALL)["events"]
    assert engine.asked == ["game_over", "winners", "starter"]
    assert over[-1]["type"] == "game_ended" and over[-1]["winners"] == [1]
    assert client.state()["result"]["winners"] == [1]


def test_a_starter_that_is_no_seat_is_the_bindings_error() -> None:
    engine = Reporting()
    engine.starter = 2
    client = started(engine)
    client.ask("deal", deck=deck_from_hands(HANDS, "9d"))
    reply = client.ask("act", seat=0, action=CALL)
    assert reply["error"] == {
        "code": "internal_error",
        "message": "ValueError('observed_starter() answered 2: no seat of this table')",
    }


def test_a_binding_without_observation_hooks_keeps_the_kits_values() -> None:
    client = started(ObjectApiEngine())
    client.ask("deal", deck=deck_from_hands(HANDS, "9d"))
    state = client.state()
    assert (state["hands"][0], state["scores"], state["deck_size"]) == (
        ["Ac", "As", "2c", "2d", "3c"],
        [0, 0],
        41,
    )


# -- jhyap run against the example engine -----------------------------------------------------


def run(*flags: str, case: str | None = None) -> dict[str, Any]:
    """The JSON report of ``jhyap run`` under dhumbal against observed.py with ``flags``."""
    engine = shlex.join([sys.executable, str(OBSERVED), *flags])
    command = [sys.executable, "-m", "conformance", "run", "--profile", "dhumbal"]
    command += ["-k", case] if case else []
    done = subprocess.run(
        [*command, "--engine", engine, "--jobs", "1", "--json", "-", "-q"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def only(report: dict[str, Any]) -> dict[str, Any]:
    [result] = report["results"]
    return {k: result[k] for k in ("id", "outcome", "step", "reason", "differences")}


@pytest.mark.e2e
def test_an_engine_giving_back_its_own_thrown_card_fails_as_the_engines() -> None:
    report = run("--own-card-back", case="dhumbal-pick-any-card")
    assert only(report) == {
        "id": "dhumbal-pick-any-card",
        "outcome": "failed",
        "step": 17,
        "reason": "the state differs from the check",
        "differences": [
            "hand_values[4]: expected 28, got 26",
            'hands[4]: expected ["3h", "3s", "Td", "Qd"], got ["3h", "3s", "8s", "Qd"] '
            "(missing Td; extra 8s)",
        ],
    }
    assert report["summary"]["errored"] == 0


@pytest.mark.e2e
def test_an_engine_with_a_wrong_next_starter_fails_as_the_engines() -> None:
    report = run("--wrong-starter", case="dhumbal-dealer-none")
    assert only(report) == {
        "id": "dhumbal-dealer-none",
        "outcome": "failed",
        "step": 5,
        "reason": "the events differ from the transcript",
        "differences": [
            "events[0].starter: expected 2, got 0",
            "events[0].turn_order: expected [2, 0, 1], got [0, 1, 2]",
            "round_started.starter: expected 2, got 0",
        ],
    }
    assert report["summary"]["errored"] == 0


@pytest.mark.e2e
def test_the_same_engine_without_the_bugs_passes() -> None:
    report = run()
    summary = report["summary"]
    assert {k: summary[k] for k in ("failed", "errored", "crashed", "timed_out")} == {
        "failed": 0,
        "errored": 0,
        "crashed": 0,
        "timed_out": 0,
    }
    assert (summary["passed"], summary["not_applicable"]) == (137, 26)
    # The two cases the planted bugs fail pass in this same run (no run of their own).
    outcome = {r["id"]: r["outcome"] for r in report["results"]}
    assert [outcome[c] for c in ("dhumbal-pick-any-card", "dhumbal-dealer-none")] == [
        "passed",
        "passed",
    ]
