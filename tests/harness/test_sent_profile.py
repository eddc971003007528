"""``start`` leaves out each rule parameter at its schema default, so that an engine written
before a parameter existed does not decline a table that plays it as the engine does."""

from __future__ import annotations

import pytest

from conformance.harness.ahead import start_message
from conformance.spec.profile_schema import sent_profile
from conformance.spec.transcript import load_corpus
from conformance.spec.transcript_profiles import shipped_documents
from jhyap_core.profile import resolve
from reference_engine.rules import Rules


def test_the_encyclopedias_defaults_are_left_out_and_the_rest_kept() -> None:
    resolved = resolve(shipped_documents()["jhyap-encyclopedia"])
    rules = resolved["rules"]
    assert rules["throws"]["single"] == "any"  # the profile states the default
    assert rules["deck"]["jokers_wild"] == "none"
    sent = sent_profile(resolved)["rules"]
    assert "single" not in sent["throws"]
    assert "jokers_wild" not in sent["deck"]
    assert "beaten_others" not in sent["scoring"]
    assert sent["game_end"]["rounds"] is None  # a null default is kept
    assert sent["throws"]["set"] == rules["throws"]["set"]
    assert resolved["rules"]["throws"]["single"] == "any"  # the resolved profile is untouched


def test_the_card_values_go_whole() -> None:
    # bga-yaniv states the joker's 0, its default: a binding may declare the whole map.
    resolved = resolve(shipped_documents()["bga-yaniv"])
    assert resolved["rules"]["card_values"]["X"] == 0
    assert sent_profile(resolved)["rules"]["card_values"] == resolved["rules"]["card_values"]


def test_a_value_other_than_the_default_is_sent() -> None:
    document = shipped_documents()["jhyap-encyclopedia"]
    reading = next(r for r in document["readings"] if r["name"] == "single_card")
    assert reading["choices"]["no_combination"] == {"throws.single": "when_no_combination"}
    resolved = resolve(document)
    resolved["rules"]["throws"]["single"] = "when_no_combination"
    assert sent_profile(resolved)["rules"]["throws"]["single"] == "when_no_combination"


@pytest.mark.parametrize("profile", sorted(shipped_documents()))
def test_the_sent_profile_plays_as_the_resolved_one(profile: str) -> None:
    resolved = resolve(shipped_documents()[profile])
    assert Rules.from_profile(sent_profile(resolved)) == Rules.from_profile(resolved)


def test_every_start_of_the_corpus_sends_the_profile_so() -> None:
    transcript = load_corpus()[0][0]
    resolved = resolve(shipped_documents()["dashain"])
    assert start_message(transcript, resolved)["profile"] == sent_profile(resolved)
