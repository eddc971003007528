"""A failure names first the clauses behind what differed (conformance.harness.credit)."""

from __future__ import annotations

from conformance.harness.credit import clause_parameters, focused, rule_paths

DEALT = [{"type": "round_started"}, {"type": "dealt", "hands": [["Ac", "2c"], ["3c", "4c"]]}]


def test_a_difference_maps_to_the_rules_behind_it() -> None:
    short = [{"type": "round_started"}, {"type": "dealt", "hands": [["Ac"], ["3c"]]}]
    assert rule_paths(['events[1].hands[0]: expected ["Ac","2c"], got ["Ac"]'], DEALT, short) == (
        "hand_size",
        "deal.order",
        "deal",
    )
    assert rule_paths(
        ['events[1].hands[0]: expected ["Ac","2c"], got ["2c","Ac"]'], DEALT, DEALT
    ) == (
        "deal.order",
        "deal",
        "hand_size",
    )
    missing = "events: expected 2 events [picked, out_of_play], got 1 [picked]"
    assert rule_paths([missing], [{"type": "picked"}, {"type": "out_of_play"}], []) == (
        "pick",
        "reshuffle",
    )
    beaten = [{"type": "round_ended", "outcome": "beaten_call"}]
    assert rule_paths(["events[0].deltas: expected [0, 40], got [0, 35]"], beaten, None)[:2] == (
        "scoring.beaten_penalty",
        "scoring.beaten_call",
    )
    assert rule_paths(['pickable: expected ["Ac"], got []'], {"pickable": ["Ac"]}, {}) == ("pick",)
    refused = {"error": {"code": "illegal_throw", "message": "no"}}
    assert rule_paths([], "accepted", refused) == ("throws",)
    assert rule_paths([], {"error": "call_over_limit"}, {"ok": True})[0] == "call.limit"
    assert rule_paths(["the engine exited"], None, None) == ()


RESOLVED = {
    "options": [{"name": "call_limit", "sets": "call.limit"}],
    "clauses": [
        {"id": "p.turn.order", "params": ["direction"]},
        {"id": "p.scoring.kind", "params": ["scoring.kind"]},
        {"id": "p.scoring.failed", "params": ["scoring.beaten_call", "scoring.beaten_penalty"]},
        {"id": "p.calling.limit", "params": ["call_limit"]},
        {"id": "p.pick.any"},
    ],
}


def test_the_clauses_citing_the_likeliest_rule_lead() -> None:
    cited = clause_parameters(RESOLVED)
    assert cited["p.calling.limit"] == frozenset({"call.limit"})  # an option: the rule it sets
    listed = ("p.turn.order", "p.scoring.kind", "p.scoring.failed", "p.pick.any")
    paths = ("scoring.beaten_penalty", "scoring.beaten_call", "scoring")
    assert focused(listed, paths, cited) == (
        ("p.scoring.failed", "p.scoring.kind", "p.turn.order", "p.pick.any"),
        2,
    )
    # a clause of the rule's family, citing nothing, still comes before the rest
    assert focused(listed, ("pick",), cited) == (
        ("p.pick.any", "p.turn.order", "p.scoring.kind", "p.scoring.failed"),
        1,
    )
    # nothing of the step is about the rule: the profile's clause citing it is added
    assert focused(("p.turn.order",), ("call.limit",), cited, owned=cited) == (
        ("p.calling.limit", "p.turn.order"),
        1,
    )
    # nothing differed that names a rule (a crash): the transcript's order stands
    assert focused(listed, (), cited) == (listed, 0)
