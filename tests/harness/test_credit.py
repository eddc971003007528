"""A failure names first the clauses behind what differed (conformance.harness.credit)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.harness.credit import clause_parameters, focused, rule_paths
from conformance.spec.transcript_profiles import shipped_documents, with_profile_files
from jhyap_core.profile import resolve

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


def _first_failure(bug: str, transcript: str, profile: str) -> tuple[int, tuple[str, ...]]:
    """The failing step and the clauses credited, replaying one case with ``bug`` in."""
    from conformance.harness.cases import load_selection
    from conformance.harness.inprocess import ReferenceClient
    from conformance.harness.replay import replay
    from tests.mutants.planted import PLANTED, planted
    from tests.mutants.rules import applied

    (case,) = [
        c
        for c in load_selection().cases
        if c.transcript.id == transcript and c.profile == profile and c.resolved is not None
    ]
    resolved = case.resolved
    assert resolved is not None

    def run() -> Any:
        client = ReferenceClient()
        return replay(
            client, client.handshake(), case.transcript, profile, resolved, owned=case.owned
        )

    assert run().ok  # the case passes on the reference engine: the bug makes it fail
    with planted(bug) if bug in PLANTED else applied(bug):
        outcome = run()
    assert not outcome.ok
    return outcome.step, outcome.clauses[:2]


@pytest.mark.parametrize(
    ("bug", "transcript", "profile", "step", "first"),
    [
        # a deal dealt in another order fails at the deal, credited to the deal order
        (
            "deal_starts_after_the_starter",
            "dhumbal-game-to-last-player",
            "dhumbal",
            2,
            ("dhumbal.deal.order", "dhumbal.deal.given-order"),
        ),
        # hands a card short: the hand size, not the turned-up card that moved with it
        (
            "hand_one_card_short",
            "shared-reshuffle",
            "dashain",
            1,
            ("dashain.deal.hand-size", "dashain.deal.order"),
        ),
        # a refusal that changed the state: the protocol's rule, whatever the step was about
        (
            "refused_throw_loses_the_cards",
            "shared-throws-refused",
            "dashain",
            2,
            ("protocol.messages.refusal-changes-nothing",),
        ),
        # not_your_turn mid-hand: the direction of play, not who starts
        (
            "right_read_as_seat_order_down",
            "everestbuzz-example-busted-call",
            "everestbuzz",
            4,
            ("everestbuzz.turn.direction", "everestbuzz.deal.direction"),
        ),
        # a wrong penalty: the beaten-call scoring clause, not who starts the next round
        (
            "beaten_penalty_30",
            "family-tie-beats-caller-dhumbal",
            "dhumbal",
            3,
            ("dhumbal.scoring.failed-show", "dhumbal.showdown.failed"),
        ),
        # call_too_early: the first-round rule before the option setting it
        (
            "first_round_lock_one_turn_longer",
            "dashain-first-round-jhyap-option",
            "dashain",
            14,
            ("dashain.call.first-round", "dashain.options.first-round-jhyap"),
        ),
        # a timeout's throw: the timer's expiry rule, not the throws the event shows
        (
            "timer_throws_the_lowest_card",
            "dashain-turn-timer",
            "dashain",
            12,
            ("dashain.timer.expiry-play", "dashain.timer.timeout-action"),
        ),
    ],
)
def test_a_planted_bug_is_credited_to_the_rule_it_breaks(
    bug: str, transcript: str, profile: str, step: int, first: tuple[str, ...]
) -> None:
    assert _first_failure(bug, transcript, profile) == (step, first)


def test_every_planted_bug_names_clauses_of_its_profile() -> None:
    from conformance.spec.transcript_profiles import all_clause_ids
    from tests.mutants.planted import PLANTED

    owners = all_clause_ids()
    assert len(PLANTED) >= 15
    for name, bug in PLANTED.items():
        for clause in bug.clauses:
            assert owners.get(clause) in (bug.profile, "protocol"), (name, clause)


def test_step_clauses_are_clauses_of_the_transcript_and_its_profiles() -> None:
    from conformance.spec.transcript import load_corpus
    from conformance.spec.transcript_profiles import all_clause_ids

    owners = all_clause_ids()
    named = 0
    transcripts, problems = load_corpus()
    assert problems == []
    for transcript in transcripts:
        for step in transcript.steps:
            for clause in step.clauses:
                named += 1
                assert clause in owners and clause in transcript.clauses, (transcript.id, clause)
    assert named > 100


def test_validate_names_the_line_of_an_unknown_step_clause(tmp_path: Path) -> None:
    from conformance.spec.transcript import check_transcript_file

    source = Path("conformance/transcripts/dashain-complete-game.yaml").read_text()
    assert "    clauses: [dashain.call.first-round]\n" in source
    broken = tmp_path / "dashain-complete-game.yaml"
    broken.write_text(
        source.replace(
            "    clauses: [dashain.call.first-round]\n", "    clauses: [dashain.call.first-lap]\n"
        )
    )
    line = broken.read_text().splitlines().index("    clauses: [dashain.call.first-lap]") + 1
    problems = [str(p) for p in check_transcript_file(broken)]
    assert problems == [
        f"{broken}:{line}: steps[2].clauses[0]: no clause 'dashain.call.first-lap'"
        " in any shipped profile or the protocol"
    ]


def test_the_step_context_weighs_on_what_a_difference_means() -> None:
    refused = {"error": {"code": "illegal_throw", "message": "no"}}
    # a pair judged wrongly is the set rule; a short run the run's length; a joker's throw
    # the joker rule
    assert rule_paths([], "accepted", refused, thrown=["Qc", "Qd"])[0] == "throws.set"
    assert rule_paths([], "accepted", refused, thrown=["Ah", "2h"])[:2] == (
        "throws.run.min",
        "throws.run.ace",
    )
    assert rule_paths([], "accepted", refused, thrown=["4h", "X", "6h"])[0] == "deck.jokers_wild"
    wrong_seat = {"error": {"code": "not_your_turn", "message": "no"}}
    # who moves first in a hand is who starts it; later, the direction of play, and once a
    # seat is out, the skipping of it
    assert rule_paths([], "accepted", wrong_seat, moves=0)[0] == "next_starter"
    assert rule_paths([], "accepted", wrong_seat, moves=3)[0] == "direction"
    assert rule_paths([], "accepted", wrong_seat, moves=3, seats_out=True)[0] == "game_end"
    drawn = [{"type": "picked", "from": "deck", "card": "7c"}]
    difference = ['events[0].card: expected "7c", got "Ks"']
    assert rule_paths(difference, drawn, None, reshuffled=True)[0] == "reshuffle.new_deck"
    assert rule_paths(difference, drawn, None)[0] == "deal.order"
    won = [{"type": "round_ended", "outcome": "won_call"}]
    assert rule_paths(["events[0].scores: expected [150], got [210]"], won, None)[0] == (
        "scoring.cuts"
    )
    assert rule_paths(["events[0].deltas: expected [5], got [7]"], won, None)[0] == (
        "scoring.won_call"
    )
    assert rule_paths([], None, None, command="deal") == ("deal", "deck")


def test_credit_never_names_a_clause_of_an_option_the_ruleset_removed(tmp_path: Path) -> None:
    fixed = tmp_path / "dhumbal-fixed-seven.yaml"
    fixed.write_text(
        "profile_format: 1\nid: dhumbal-fixed-seven\nextends: dhumbal\n"
        "rules: {call: {limit: 7}}\noptions: {call_limit: null}\n",
        "utf-8",
    )
    documents, (pid,) = with_profile_files(shipped_documents(), [str(fixed)])
    base = resolve(documents["dhumbal"], {})
    variant = resolve(documents[pid], {})
    # A call refused over the limit, at a step of the turn's clauses: the profile's own
    # clauses on the limit are credited too. Dhumbal's include its option's clauses...
    step = ("dhumbal.turn.sequence",)
    paths = ("call.limit", "call.inclusive")
    owned = [str(c["id"]) for c in base["clauses"]]
    assert focused(step, paths, clause_parameters(base), owned) == (
        (
            "dhumbal.call.limit",
            "dhumbal.options.call-limit",
            "dhumbal.options.call-limit-lock",
            "dhumbal.turn.sequence",
        ),
        3,
    )
    # ... the variant, whose limit is fixed, has no such option: nor its clauses, but
    # that of the option still there that may change between rounds.
    owned = [str(c["id"]) for c in variant["clauses"]]
    assert focused(step, paths, clause_parameters(variant), owned) == (
        ("dhumbal.call.limit", "dhumbal.turn.sequence"),
        1,
    )
    assert [c for c in owned if c.startswith("dhumbal.options.")] == [
        "dhumbal.options.pickup-after-multi-throw",
        "dhumbal.options.pickup-after-multi-throw-default",
        "dhumbal.options.between-rounds",
    ]
    between = next(c for c in variant["clauses"] if c["id"] == "dhumbal.options.between-rounds")
    assert between["params"] == ["options.pickup_after_multi_throw"]
