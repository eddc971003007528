"""Protocol 1.1: the deal's layout (hands, turned_up, stock) sent with its deck, and the
version warning for an engine written for an older minor version."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.harness.inprocess import ReferenceClient
from conformance.harness.replay import start_message
from conformance.harness.smoke_plan import FIXED, plan_for
from conformance.harness.versions import ADDED_IN, parse_version, version_warning
from conformance.spec.deal_layout import deal_layout, layout_of
from conformance.spec.transcript import load_corpus
from conformance.spec.transcript_profiles import shipped_documents
from jhyap_core.profile import resolve
from jhyap_core.vocabulary import PROTOCOL_VERSION

ORDER = ["Ac", "Kc", "2c", "Kd", "3c", "Kh", "9h", "4c", "5c"]


def test_a_layout_is_the_first_cards_then_the_turned_up_card() -> None:
    layout = layout_of(ORDER, [["3c", "2c", "Ac"], ["Kh", "Kd", "Kc"]], "9h")
    assert layout == {
        "hands": [["Ac", "2c", "3c"], ["Kc", "Kd", "Kh"]],
        "turned_up": "9h",
        "stock": ["4c", "5c"],
    }


@pytest.mark.parametrize(
    ("hands", "turned_up"),
    [
        ([["Ac", "2c", "3c"], ["Kc", "Kd", "4c"]], "9h"),  # 4c is not among the first six
        ([["Ac", "2c", "3c"], ["Kc", "Kd", "Kh"]], "4c"),  # the seventh card is 9h
        ([["Ac", "Kc", "2c", "Kd", "3c", "Kh", "9h", "4c", "5c"]], "X"),  # no card left
    ],
)
def test_a_layout_the_order_cannot_give_is_not_sent(hands: list[list[str]], turned_up: str) -> None:
    assert layout_of(ORDER, hands, turned_up) is None


def test_a_refused_deal_and_an_unstated_layout_send_the_deck_only() -> None:
    spec = {"starter": 0, "hands": {"0": ["Ac"], "1": ["Kc"]}, "turned_up": "2c"}
    order = ["Ac", "Kc", "2c", "Kd"]
    assert deal_layout(spec, order, 2, None, refused=True) is None
    assert deal_layout({"order": order}, order, 2, [{"type": "dealt", "deck_size": 1}]) is None
    assert deal_layout(spec, order, 3, None) == {
        "hands": [["Ac"], ["Kc"], []],
        "turned_up": "2c",
        "stock": ["Kd"],
    }
    # A hand named for a seat the table does not have: the transcript is wrong, no layout.
    assert deal_layout(spec, order, 1, None) is None


def _dealt(answer: dict[str, Any]) -> dict[str, Any]:
    return next(e for e in answer["events"] if e["type"] == "dealt")


def test_every_layout_the_corpus_sends_is_the_reference_engines_deal() -> None:
    """The harness's layout of each accepted deal is what the reference engine deals from
    the same deck: its dealt event's hands and turned-up card, and its deck as the stock."""
    transcripts, problems = load_corpus()
    assert problems == []
    documents = shipped_documents()
    checked = 0
    for transcript in transcripts:
        if transcript.fresh_engine or transcript.start_error or not transcript.profiles:
            continue
        resolved = resolve(documents[transcript.profiles[0]], transcript.options)
        client = ReferenceClient()
        client.handshake()
        assert client.send(start_message(transcript, resolved))["ok"]
        for step in transcript.steps:
            if step.request is None or step.kind in ("start", "check", "legal"):
                continue
            answer = client.send(dict(step.request))
            if step.kind == "deal" and "hands" in step.request and answer["ok"]:
                dealt = _dealt(answer)
                assert (dealt["hands"], dealt["turned_up"]) == (
                    step.request["hands"],
                    step.request["turned_up"],
                ), f"{transcript.id} line {step.line}"
                state = client.send({"cmd": "state"})["state"]
                assert state["deck"] == step.request["stock"], f"{transcript.id} {step.line}"
                checked += 1
            if client.awaiting and step.kind != "reshuffle":
                break  # the transcript's own reshuffle follows; the deals so far are checked
    assert checked >= 150


def test_smoke_plans_send_their_layout() -> None:
    assert FIXED.layout is not None
    assert FIXED.layout["hands"] == [["Ac", "As", "2c", "2d", "Kh"], ["Js", "Qc", "Qs", "Kc", "Kd"]]
    assert FIXED.layout["turned_up"] == "9h"
    assert FIXED.layout["stock"][:2] == ["3c", "4c"]
    plan = plan_for(shipped_documents()["bga-yaniv"])
    assert plan.layout is not None
    assert sum(map(len, plan.layout["hands"])) + 1 + len(plan.layout["stock"]) == len(plan.deck)


def test_an_older_minor_warns_in_one_line_naming_what_it_may_miss() -> None:
    assert PROTOCOL_VERSION == "1.2"
    warning = version_warning("1.0")
    assert warning is not None and "\n" not in warning
    assert warning.startswith(
        "the engine was written for protocol 1.0, the harness speaks 1.2: it may miss "
        "the deal's layout (deal.hands, deal.turned_up, deal.stock); "
        "hello.supports.state_fields;"
    )
    assert warning.endswith("(see docs/versions.md)")
    assert all(item in warning for item in (*ADDED_IN[1], *ADDED_IN[2]))
    # An engine written for 1.1 keeps working; the warning names what 1.2 added only.
    assert version_warning("1.1") == (
        "the engine was written for protocol 1.1, the harness speaks 1.2: it may miss "
        "hello.supports.requests_ahead (requests that change the game sent ahead) "
        "(see docs/versions.md)"
    )
    assert version_warning("1.2") is None
    assert version_warning("1.7") is None  # a newer minor: the harness sends less, no warning
    assert version_warning("2.0") is None  # another major is refused, not warned
    assert parse_version("1.x") is None and parse_version("\u0661.\u0660") is None
