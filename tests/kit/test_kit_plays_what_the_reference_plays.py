"""The kit runs the reference's own table procedure (jhyap_core.table), so it plays every
procedure parameter the reference plays: a one-hand game, throws laid by rank, a deck with
ranks left out. tests/kit_engines/object_api.py (the reference rule functions behind the
kit's hooks) meets each such variant exactly as the reference engine does."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from jhyap_kit import ANY, KIT_RULES
from jhyap_kit.support import unsupported
from tests.cli_helpers import run_quietly

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = ROOT / "tests" / "data" / "variants"
OBJECT_API = shlex.join([sys.executable, str(ROOT / "tests" / "kit_engines" / "object_api.py")])


def outcomes(
    profile: Path, engine: str | None, transcripts: Path | None = None, *more: Path
) -> dict[str, str]:
    """Each case's outcome under ``profile`` (and the profiles ``more``) against ``engine``
    (None: the reference, in this process), of the corpus or of the folder ``transcripts``."""
    command = ["run", "--profile", str(profile)]
    for other in more:
        command += ["--profile", str(other)]
    command += ["--transcripts", str(transcripts)] if transcripts else []
    command += ["--engine", engine] if engine else []
    report = json.loads(run_json(command))
    return {c["id"]: c["outcome"] for c in report["results"]}


def run_json(command: list[str]) -> str:
    """The JSON report of ``jhyap COMMAND --jobs 1 --json - -q``, run in this process: with
    an ``--engine``, that engine over its pipe; without, the reference in this process (the
    kit engine is the one a test runs over a pipe)."""
    command = [*command, "--jobs", "1", "--json", "-", "-q"]
    return run_quietly(command, reference_in_process="--engine" not in command)[1]


def kit_outcomes_match_the_reference(profile: Path, folder: Path, *more: Path) -> dict[str, str]:
    """Each case's outcome of the transcripts in ``folder`` under ``profile`` (and the
    profiles ``more``) against the object-API kit engine, asserted the same as the
    reference's."""
    kit = outcomes(profile, OBJECT_API, folder, *more)
    assert kit == outcomes(profile, None, folder, *more)
    return kit


@pytest.mark.e2e
@pytest.mark.parametrize(
    "variant", ["dhumbal-one-hand", "bga-yaniv-laid-by-rank", "dhumbal-no-kings"]
)
def test_a_kit_engine_plays_the_variant_as_the_reference_does(variant: str) -> None:
    profile = VARIANTS / f"{variant}.yaml"
    kit = outcomes(profile, OBJECT_API)
    assert kit == outcomes(profile, None)
    assert set(kit.values()) <= {"passed", "not_applicable"}
    assert "passed" in kit.values()


def test_the_kit_declares_the_procedure_parameters_it_now_plays() -> None:
    rules = {
        "deck": {"cards": 48, "ranks_left_out": ["K"]},
        "reshuffle": {"moment": "at_throw_after_deck_emptied"},
        "game_end": {"kind": "one_hand", "out_above": None},
        "throws": {"laid": "by_rank"},
    }
    assert unsupported(rules, KIT_RULES) is None
    assert unsupported({"deck": {"jokers_wild": "runs"}}, KIT_RULES) == (
        "rules.deck.jokers_wild: this engine does not implement this rule parameter"
    )


def test_a_binding_that_does_not_declare_call_min_own_turns_refuses_it_by_name() -> None:
    # tests/kit_engines/seat_one.py declares the call's leaves one by one, so a table that
    # sets the newer call.min_own_turns is refused naming it, never played as 0.
    support = {**KIT_RULES, **{f"call.{leaf}": ANY for leaf in ("limit", "inclusive", "timing")}}
    call = {"limit": 7, "inclusive": True, "timing": "start_of_turn"}
    assert unsupported({"call": call}, support) is None
    assert unsupported({"call": {**call, "min_own_turns": 1}}, support) == (
        "rules.call.min_own_turns: this engine does not implement this rule parameter"
    )


@pytest.mark.e2e
def test_a_kit_engine_plays_call_min_own_turns_as_the_reference_does() -> None:
    # tests/kit_engines/object_api.py declares the whole call section and asks the
    # reference's calling.call_refusal, with the kit's own count of turns taken.
    profiles = [
        VARIANTS / f"{name}.yaml"
        for name in ("dhumbal-call-after-two-turns", "everestbuzz-call-after-one-turn")
    ]
    folder = VARIANTS / "call-timing-transcripts"
    assert kit_outcomes_match_the_reference(profiles[0], folder, profiles[1]) == {
        "call-after-two-own-turns": "passed",
        "call-after-one-own-turn": "passed",
    }


@pytest.mark.e2e
def test_a_kit_engine_plays_next_starter_first_starter_as_the_reference_does() -> None:
    # The starter of each hand is the table procedure's (jhyap_core.table.next_starter),
    # which the kit plays for its engine.
    profile = VARIANTS / "dhumbal-first-starter-every-hand.yaml"
    folder = VARIANTS / "starter-transcripts"
    assert kit_outcomes_match_the_reference(profile, folder) == {
        "first-starter-every-hand": "passed"
    }


@pytest.mark.e2e
def test_a_kit_engine_plays_a_deal_without_a_turned_up_card_as_the_reference_does() -> None:
    # deal.first_offer none is the table procedure's (jhyap_core.table.Table.deal and the
    # pick), which the kit plays for its engine: begin_hand's Deal has turned_up None.
    profile = VARIANTS / "alankar-dhumbal-no-first-offer.yaml"
    folder = VARIANTS / "first-offer-transcripts"
    assert kit_outcomes_match_the_reference(profile, folder) == {
        "no-first-offer-first-player-draws": "passed",
        "no-first-offer-card-pick-rule": "passed",
    }


def test_a_binding_that_needs_a_turned_up_card_refuses_first_offer_none_by_name() -> None:
    # A binding whose engine always starts from a turned-up card narrows the kit's entry.
    support = {**KIT_RULES, "deal.first_offer": ("turned_up_card",)}
    deal = {"dealer": "none", "first_starter": 0, "order": "one_at_a_time_from_starter"}
    assert unsupported({"deal": {**deal, "first_offer": "turned_up_card"}}, support) is None
    assert unsupported({"deal": {**deal, "first_offer": "none"}}, support) == (
        "rules.deal.first_offer: 'none' is not implemented by this engine "
        "(it plays 'turned_up_card')"
    )
    assert KIT_RULES["deal.first_offer"] == ("turned_up_card", "none")


@pytest.mark.e2e
def test_a_kit_engine_plays_deck_runs_out_offer_under_deck_as_the_reference_does() -> None:
    # Where a covered offer goes is the table procedure's (jhyap_core.table), which the kit
    # plays for its engine.
    profile = VARIANTS / "dhumbal-offer-under-deck.yaml"
    folder = VARIANTS / "under-deck-transcripts"
    assert kit_outcomes_match_the_reference(profile, folder) == {"offer-under-deck": "passed"}


@pytest.mark.e2e
def test_a_kit_engine_plays_kept_aside_offer_and_card_under_as_the_reference_does() -> None:
    # What a reshuffle keeps aside is the table procedure's (jhyap_core.table), which the
    # kit plays for its engine.
    profile = VARIANTS / "dhumbal-card-under-kept.yaml"
    folder = VARIANTS / "card-under-transcripts"
    assert kit_outcomes_match_the_reference(profile, folder) == {"card-under-kept": "passed"}


@pytest.mark.e2e
def test_a_kit_engine_plays_deck_runs_out_when_as_the_reference_does() -> None:
    # When an empty deck ends the hand is the table procedure's (jhyap_core.table), which
    # the kit plays for its engine.
    profile = VARIANTS / "dhumbal-deck-out-ends-at-draw.yaml"
    folder = VARIANTS / "empty-draw-transcripts"
    assert kit_outcomes_match_the_reference(profile, folder) == {"empty-draw-ends-hand": "passed"}


@pytest.mark.e2e
def test_a_kit_engine_scores_a_beaten_call_as_the_reference_does() -> None:
    # tests/kit_engines/object_api.py declares the whole scoring section and scores by the
    # reference's scoring.showdown: caller_hand_times (beaten_factor) and penalty_only.
    profiles = [
        VARIANTS / f"{name}.yaml"
        for name in ("yaniv-israel-asaf-hand-doubled", "yaniv-israel-asaf-fixed-30")
    ]
    folder = VARIANTS / "beaten-call-transcripts"
    assert kit_outcomes_match_the_reference(profiles[0], folder, profiles[1]) == {
        "asaf-hand-doubled": "passed",
        "asaf-fixed-30": "passed",
    }


def test_a_binding_listing_its_scoring_leaves_refuses_the_new_beaten_call_by_name() -> None:
    # A binding that declares its scoring parameters one by one (the examples' loop
    # bindings) refuses a table that sets scoring.beaten_factor, naming it, and a beaten_call
    # value it does not list, never scoring it as the hand plus the penalty.
    scoring = {"kind": "penalty", "beaten_call": "caller_hand_plus_penalty", "beaten_penalty": 30}
    support = {**KIT_RULES, **{f"scoring.{leaf}": ANY for leaf in ("kind", "beaten_penalty")}}
    support["scoring.beaten_call"] = ("caller_hand_plus_penalty",)
    assert unsupported({"scoring": scoring}, support) is None
    assert unsupported({"scoring": {**scoring, "beaten_factor": 3}}, support) == (
        "rules.scoring.beaten_factor: this engine does not implement this rule parameter"
    )
    assert unsupported({"scoring": {**scoring, "beaten_call": "penalty_only"}}, support) == (
        "rules.scoring.beaten_call: 'penalty_only' is not implemented by this engine "
        "(it plays 'caller_hand_plus_penalty')"
    )


@pytest.mark.e2e
def test_a_kit_engine_spares_several_winners_as_the_reference_does() -> None:
    # scoring.beaten_others score_own_hands_but_lowest and score_own_hands_but_beaters, scored
    # by the binding (the object-API binding asks the reference's scoring.showdown).
    profiles = [
        VARIANTS / f"{name}.yaml"
        for name in ("yaniv-israel-tied-lowest-score-nothing", "yaniv-israel-beaters-score-nothing")
    ]
    folder = VARIANTS / "tied-lowest-transcripts"
    assert kit_outcomes_match_the_reference(profiles[0], folder, profiles[1]) == {
        "tied-lowest-score-nothing": "passed",
        "beaters-score-nothing": "passed",
    }


def test_a_binding_listing_its_beaten_others_refuses_the_several_winners_values_by_name() -> None:
    # A binding that lists the beaten_others values it scores never scores several winners
    # as one: the new values are refused by name.
    scoring = {"kind": "penalty", "beaten_call": "caller_hand_plus_penalty", "beaten_penalty": 30}
    support = {**KIT_RULES, **{f"scoring.{leaf}": ANY for leaf in scoring}}
    support["scoring.beaten_others"] = ("score_nothing", "score_own_hands")
    played = {"scoring": {**scoring, "beaten_others": "score_own_hands"}}
    assert unsupported(played, support) is None
    tied = {"scoring": {**scoring, "beaten_others": "score_own_hands_but_lowest"}}
    assert unsupported(tied, support) == (
        "rules.scoring.beaten_others: 'score_own_hands_but_lowest' is not implemented by this "
        "engine (it plays 'score_nothing', 'score_own_hands')"
    )
    beaters = {"scoring": {**scoring, "beaten_others": "score_own_hands_but_beaters"}}
    assert unsupported(beaters, support) == (
        "rules.scoring.beaten_others: 'score_own_hands_but_beaters' is not implemented by this "
        "engine (it plays 'score_nothing', 'score_own_hands')"
    )


# The oracle transcripts of reading multi_throw_scope: transcript -> (profile, the choice it
# is written for).
SCOPE_TRANSCRIPTS = {
    "yarsa-dhumbal-multi-throw-scope-turn": ("yarsa-dhumbal", "turn"),
    "yarsa-dhumbal-multi-throw-scope-hand": ("yarsa-dhumbal", "hand"),
    "alankar-dhumbal-card-pick-rule-whole-game": ("alankar-dhumbal", "game"),
    "alankar-dhumbal-card-pick-rule-each-hand": ("alankar-dhumbal", "hand"),
}


def scope_outcomes(engine: str | None, tmp_path: Path) -> dict[tuple[str, str], tuple[str, str]]:
    """(mode, outcome) of each multi_throw_scope transcript under each profile declaring one
    choice of the reading, against ``engine`` (None: the reference), by (transcript, profile)."""
    folder = tmp_path / "transcripts"
    folder.mkdir(parents=True)
    for name in SCOPE_TRANSCRIPTS:
        shutil.copy(ROOT / "conformance" / "transcripts" / f"{name}.yaml", folder)
    command = ["run", "--transcripts", str(folder)]
    for pid, choice in sorted(set(SCOPE_TRANSCRIPTS.values())):
        declared = tmp_path / f"{pid}-scope-{choice}.yaml"
        declared.write_text(
            f"profile_format: 1\nid: {pid}-scope-{choice}\nextends: {pid}\n"
            f"readings: {{multi_throw_scope: {choice}}}\n",
            "utf-8",
        )
        command += ["--profile", str(declared)]
    command += ["--engine", engine] if engine else []
    report = json.loads(run_json(command))
    return {(c["id"], c["profile"]): (c["mode"], c["outcome"]) for c in report["results"]}


def check_scope_outcomes(found: dict[tuple[str, str], tuple[str, str]]) -> None:
    """Every case passes; each transcript runs as written under the choice it is written for."""
    assert len(found) == 4 * 4
    assert {outcome for _, outcome in found.values()} == {"passed"}
    written = sorted(key for key, (mode, _) in found.items() if mode == "as_written")
    assert written == sorted(
        (name, f"{pid}-scope-{choice}") for name, (pid, choice) in SCOPE_TRANSCRIPTS.items()
    )


@pytest.mark.e2e
def test_a_kit_engine_plays_multi_throw_scope_as_the_reference_does(tmp_path: Path) -> None:
    # The offer's opening by multi_throw_scope is the table procedure's (jhyap_core.table),
    # which the kit plays for its engine.
    kit = scope_outcomes(OBJECT_API, tmp_path / "kit")
    assert kit == scope_outcomes(None, tmp_path / "reference")
    check_scope_outcomes(kit)


def test_a_binding_that_does_not_declare_throws_run_order_refuses_it_by_name() -> None:
    # A binding declaring the run's leaves one by one, written before throws.run.order, is
    # refused a table that sets it, naming it, never played as any order.
    run_leaves = ("min", "max", "min_naturals", "wrap", "ace")
    support = {**KIT_RULES, **{f"throws.run.{leaf}": ANY for leaf in run_leaves}}
    run = {"min": 3, "ace": "low"}
    assert unsupported({"throws": {"run": run}}, support) is None
    assert unsupported({"throws": {"run": {**run, "order": "ascending"}}}, support) == (
        "rules.throws.run.order: this engine does not implement this rule parameter"
    )


def test_a_binding_that_does_not_declare_throws_single_joker_refuses_it_by_name() -> None:
    # A binding declaring the throw leaves of the previous release one by one is refused a
    # table that sets throws.single_joker, naming it, never played as a joker allowed alone.
    leaves = ("set", "run", "order_matters", "single", "laid")
    support = {**KIT_RULES, **{f"throws.{leaf}": ANY for leaf in leaves}}
    throws = {"set": {"min": 2, "max": 4}, "run": {"min": 3, "ace": "low"}, "single": "any"}
    assert unsupported({"throws": throws}, support) is None
    assert unsupported({"throws": {**throws, "single_joker": False}}, support) == (
        "rules.throws.single_joker: this engine does not implement this rule parameter"
    )


@pytest.mark.e2e
def test_a_kit_engine_plays_throws_run_order_as_the_reference_does() -> None:
    # tests/kit_engines/object_api.py declares the whole throws section and asks the
    # reference's throws.out_of_order, throws.joker_alone_refused and throws.laid.
    names = (
        "dhumbal-runs-ascending",
        "bga-yaniv-runs-by-rank",
        "bga-yaniv-jokers-only-in-runs",
        "yaniv-israel-jokers-extend-down",
    )
    profiles = [VARIANTS / f"{n}.yaml" for n in names]
    folder = VARIANTS / "run-order-transcripts"
    assert kit_outcomes_match_the_reference(profiles[0], folder, *profiles[1:]) == {
        "runs-placed-lowest-first": "passed",
        "runs-laid-by-rank-sets-as-placed": "passed",
        "jokers-only-inside-runs": "passed",
        "joker-extends-a-run-downwards": "passed",
    }


@pytest.mark.e2e
def test_a_kit_engine_values_a_hand_of_jokers_only_as_the_reference_does() -> None:
    # card_values.only_jokers: tests/kit_engines/object_api.py declares the whole
    # card_values section and values hands by the reference's CardRules.hand_value.
    profile = VARIANTS / "yaniv-israel-jokers-only-minus-5.yaml"
    folder = VARIANTS / "joker-value-transcripts"
    assert kit_outcomes_match_the_reference(profile, folder) == {"jokers-only-minus-5": "passed"}


def test_a_binding_listing_its_card_values_refuses_only_jokers_by_name() -> None:
    # A binding that declares the ranks' and the joker's values one by one (the examples'
    # loop bindings) refuses a table where a hand of jokers only has its own value, naming
    # it, never valuing such a hand at card_values.X.
    ranks = "A23456789TJQK"
    values = {rank: ranks.index(rank) + 1 for rank in ranks}
    support = {**KIT_RULES, **{f"card_values.{key}": ANY for key in [*ranks, "X"]}}
    assert unsupported({"card_values": values}, support) is None
    assert unsupported({"card_values": {**values, "only_jokers": -5}}, support) == (
        "rules.card_values.only_jokers: this engine does not implement this rule parameter"
    )


@pytest.mark.e2e
def test_a_kit_engine_drops_only_own_hand_multiples_as_the_reference_does() -> None:
    # scoring.multiples_for own_hand: tests/kit_engines/object_api.py declares the whole
    # scoring section and cuts totals by the reference's scoring.hand_added and cut_rules.
    profile = VARIANTS / "yaniv-israel-drop-50-own-hand.yaml"
    folder = VARIANTS / "multiples-transcripts"
    assert kit_outcomes_match_the_reference(profile, folder) == {"drop-50-own-hand": "passed"}


def test_a_binding_listing_its_scoring_leaves_refuses_multiples_for_by_name() -> None:
    # A binding that declares its scoring parameters one by one refuses a table that sets
    # scoring.multiples_for, naming it, never dropping every seat's multiple.
    scoring = {"kind": "penalty", "beaten_call": "caller_hand_plus_penalty", "beaten_penalty": 30}
    support = {**KIT_RULES, **{f"scoring.{leaf}": ANY for leaf in ("kind", "beaten_penalty")}}
    support["scoring.beaten_call"] = ("caller_hand_plus_penalty",)
    assert unsupported({"scoring": {**scoring, "multiples_for": "own_hand"}}, support) == (
        "rules.scoring.multiples_for: this engine does not implement this rule parameter"
    )
