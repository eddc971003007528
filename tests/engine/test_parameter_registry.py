"""The rule-parameter registry (reference_engine/parameters.py), built from the profile schema."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from conformance.harness import derive
from conformance.site.common import FAMILY_ORDER, PARAM_LABELS, rule_enum_descriptions
from conformance.spec.combinations import rule_problems
from conformance.spec.profiles import rule_defaults
from jhyap_core.vocabulary import JhyapError
from reference_engine.parameters import (
    CONSTRAINTS,
    EVENT_PARAMETERS,
    STATE_PARAMETERS,
    STEP_FAMILY,
    Family,
    Kind,
    build,
    covers,
    registry,
)
from reference_engine.rules import BeatenCall, Rules, ThrowRules, parameter_fields, records
from reference_engine.shipped import schema_dir
from tests.conftest import profile_document


def _schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((schema_dir() / "profile.schema.json").read_text("utf-8"))
    return schema


def _leaves(node: dict[str, Any], prefix: str = "") -> list[str]:
    """Every leaf under a schema node, walked apart from the registry."""
    found: list[str] = []
    for key, sub in node["properties"].items():
        if "properties" in sub:
            found += _leaves(sub, f"{prefix}{key}.")
        else:
            found.append(prefix + key)
    return found


def test_the_registry_holds_every_leaf_of_the_schema_in_its_order() -> None:
    leaves = _leaves(_schema()["$defs"]["rules"])
    assert len(leaves) == 80
    assert registry().paths() == tuple(leaves)


def test_no_leaf_lacks_a_label_on_the_site() -> None:
    assert sorted(PARAM_LABELS) == sorted(_leaves(_schema()["$defs"]["rules"]))
    assert all(label.strip() for label in PARAM_LABELS.values())
    # The seven the site's own list lacked before the labels moved into the schema.
    assert {
        path: PARAM_LABELS[path]
        for path in (
            "deck.jokers_wild",
            "deck.packs_by_seats",
            "card_values.X",
            "deck_runs_out",
            "scoring.cuts",
            "scoring.halve_at_multiples_of",
            "game_end.reaching_is_out",
        )
    } == {
        "deck.jokers_wild": "What a joker may stand for",
        "deck.packs_by_seats": "Packs by number of seats",
        "card_values.X": "Value of a joker",
        "deck_runs_out": "When the deck runs out",
        "scoring.cuts": "Totals cut to another",
        "scoring.halve_at_multiples_of": "A total on a multiple of this is halved",
        "game_end.reaching_is_out": "A total equal to the threshold is out",
    }


def test_a_parameter_is_read_whole() -> None:
    wrap = registry()["throws.run.wrap"]
    assert (wrap.kind, wrap.family, wrap.required, wrap.has_default, wrap.default) == (
        Kind.BOOLEAN,
        Family.THROWS,
        False,
        True,
        False,
    )
    assert wrap.label == "Runs turn the corner (Q K A 2)"
    assert wrap.events == ("thrown",)
    assert wrap.state_fields == ("offer", "offer_kind", "thrown")
    run_max = registry()["throws.run.max"]
    assert (run_max.kind, run_max.nullable, run_max.minimum, run_max.default) == (
        Kind.INTEGER,
        True,
        2,
        None,
    )
    jokers = registry()["deck.jokers"]
    assert (jokers.minimum, jokers.maximum, jokers.family) == (0, 4, Family.CARDS)
    offer = registry()["pick.from_offer"]
    assert offer.values == ("any", "run_ends", "last_placed", "first_or_last_placed")
    assert (offer.family, offer.clause_family, offer.section) == (
        Family.PICKING,
        "picking",
        "pick",
    )
    assert registry()["game_end.kind"].clause_family == "game-end"
    assert registry()["money.dollars_per_point"].kind is Kind.DECIMAL
    assert registry()["scoring.cuts"].kind is Kind.LIST
    assert registry().nullable_sections == {"money", "turn_timer"}


def test_one_family_vocabulary() -> None:
    families = {p.section: p.family.value for p in registry()}
    assert families == {
        "seats": "players",
        "deck": "cards",
        "hand_size": "deal",
        "card_values": "cards",
        "direction": "turn",
        "deal": "deal",
        "next_starter": "turn",
        "deck_runs_out": "reshuffle",
        "deck_runs_out_when": "reshuffle",
        "throws": "throws",
        "pick": "picking",
        "reshuffle": "reshuffle",
        "call": "calling",
        "showdown": "showdown",
        "scoring": "scoring",
        "game_end": "game_end",
        "money": "money",
        "turn_timer": "timer",
    }
    # Every family is one the site shows clauses under, in clause ids' spelling.
    assert all(family.clause_family in FAMILY_ORDER for family in Family)
    assert registry().spellings(Family.PICKING) == {"picking", "pick"}
    assert registry().spellings(Family.TIMER) == {"timer", "turn_timer", "turn-timer"}
    assert registry().family_of("throws.run") is Family.THROWS
    assert registry().family_of("options") is None
    assert STEP_FAMILY["pick_offer"] is Family.PICKING


def test_the_tables_name_parameters_the_registry_knows() -> None:
    tables = [*EVENT_PARAMETERS.values(), *STATE_PARAMETERS.values()]
    named = {prefix for prefixes in tables for prefix in prefixes} - {"options"}
    assert sorted(p for p in named if not registry().known(p)) == []
    derive_tables = (derive._ACTION_FAMILIES, derive._STEP_FAMILIES, derive._CHECK_FAMILIES)
    sections = {f for table in derive_tables for fs in table.values() for f in fs}
    assert sorted(s for s in sections if not registry().known(s)) == []


def test_defaults_and_sentences_come_from_the_schema() -> None:
    assert rule_defaults() == registry().defaults()
    assert rule_defaults()["throws.laid"] == "as_placed"
    assert rule_defaults()["deck.packs_by_seats"] == []
    assert "game_end.kind" not in rule_defaults()
    ace = rule_enum_descriptions()["throws.run.ace"]
    assert list(ace) == ["low", "high", "low_or_high"]
    # A caller may change what it is given; the registry keeps its own.
    registry().defaults()["deck.packs_by_seats"].append({"from_seats": 5, "packs": 2})
    assert registry().defaults()["deck.packs_by_seats"] == []


def test_a_leaf_without_a_title_or_a_family_is_refused() -> None:
    schema = _schema()
    untitled = copy.deepcopy(schema)
    del untitled["$defs"]["rules"]["properties"]["throws"]["properties"]["laid"]["title"]
    with pytest.raises(ValueError, match=r"rules\.throws\.laid: no title"):
        build(untitled)
    orphan = copy.deepcopy(schema)
    del orphan["$defs"]["rules"]["properties"]["pick"]["x-family"]
    with pytest.raises(ValueError, match=r"rules\.pick: no x-family on it or on a section above"):
        build(orphan)


def test_the_engine_refuses_a_contradiction_in_jhyap_validate_words() -> None:
    document = profile_document("dhumbal")
    document["rules"]["throws"]["run"]["max"] = 2
    document["rules"]["throws"]["run"]["min"] = 3
    assert rule_problems(document["rules"]) == [
        (
            ("rules", "throws", "run", "max"),
            "throws.run.max below throws.run.min leaves no run legal",
        )
    ]
    with pytest.raises(JhyapError) as refused:
        Rules.from_profile(document)
    assert refused.value.message == (
        "rules.throws.run.max: throws.run.max below throws.run.min leaves no run legal"
    )


def test_the_engine_plays_a_contradiction_only_validate_refuses() -> None:
    document = profile_document("dhumbal")
    document["rules"]["call"]["limit"] = 0
    document["rules"]["call"]["inclusive"] = False
    assert [c.at for c in CONSTRAINTS if c.broken(document["rules"])] == ["call.inclusive"]
    assert Rules.from_profile(document).calling.inclusive is False


def test_the_engine_reads_bounds_and_defaults_from_the_registry() -> None:
    document = profile_document("dhumbal")
    document["rules"]["deck"]["jokers"] = 5
    with pytest.raises(JhyapError) as refused:
        Rules.from_profile(document)
    assert refused.value.message == "rules.deck.jokers: must be at most 4, not 5"
    document = profile_document("dhumbal")
    document["rules"]["throws"].pop("laid", None)
    document["rules"]["throws"]["run"].pop("wrap", None)
    built = Rules.from_profile(document)
    assert (built.throws.laid.value, built.throws.run_wrap) == ("as_placed", False)
    document["rules"]["throws"]["run"]["bend"] = True
    with pytest.raises(JhyapError) as unknown:
        Rules.from_profile(document)
    assert unknown.value.message == (
        "rules.throws.run.bend: a rule parameter this engine does not know"
    )


def test_a_null_under_a_section_given_is_refused() -> None:
    document = profile_document("dashain")
    assert document["rules"]["money"] is not None
    document["rules"]["money"]["dollars_per_point"] = None
    with pytest.raises(JhyapError) as refused:
        Rules.from_profile(document)
    assert refused.value.message == (
        'rules.money.dollars_per_point: must be an amount such as "0.05", not None'
    )
    document["rules"]["money"] = None
    document["rules"]["game_end"] = {"kind": "fixed_rounds", "rounds": 3, "out_above": None}
    assert Rules.from_profile(document).money.dollars_per_point is None


def test_every_parameter_has_its_field_in_its_family_record() -> None:
    fields = parameter_fields()
    covered = {
        p.path: next((f for prefix, f in fields.items() if covers(prefix, p.path)), None)
        for p in registry()
    }
    assert [path for path, f in covered.items() if f is None] == []
    # Each field sits in the record of its parameter's family.
    assert {
        path: f
        for path, f in covered.items()
        if f is not None and f.split(".")[0] != registry()[path].family.value
    } == {}
    assert set(fields) - set(registry().paths()) == {"card_values"}  # a section, derived
    assert records()["throws"] is ThrowRules


def test_a_record_field_reads_its_parameter_by_its_path() -> None:
    document = profile_document("dhumbal")
    document["rules"]["throws"]["set"]["min"] = 3
    rules = Rules.from_profile(document)
    assert (rules.throws.set_min, rules.calling.limit, rules.scoring.beaten_call) == (
        3,
        10,
        BeatenCall.CALLER_HAND_PLUS_PENALTY,
    )
    changed = rules.with_values({"throws.set_min": 2, "calling.limit": 9})
    assert (changed.throws.set_min, changed.calling.limit, rules.throws.set_min) == (2, 9, 3)
