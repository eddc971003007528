"""The shared kit vectors (tests/data/kit_vectors.json) against the Python kit in process,
and against the reference engine where the binding declares every parameter and keeps no
kit default; kits/javascript/test/vectors.test.mjs runs the same cases against the
JavaScript kit (tests/kit/test_javascript_kit.py runs the node tests)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from conformance.spec.profiles import load_profile
from tests.kit import kit_vectors

VECTORS = kit_vectors.load()
CASES = VECTORS["cases"]
PYTHON_CASES = [c for c in CASES if "python" in c.get("kits", ["python"])]
# The reference engine has no binding: the cases of a narrowed binding or a kit default are
# the kits' own.
REFERENCE_CASES = [c for c in CASES if "binding" not in c and "kit_defaults" not in c]


def test_the_vectors_profiles_are_the_shipped_profiles() -> None:
    for name, profile in VECTORS["profiles"].items():
        shipped = load_profile(name)
        assert profile == {key: shipped[key] for key in profile}
        assert set(profile) == {"profile_format", "id", "name", "rules", "options"}


def test_the_cases_cover_what_both_kits_must_play() -> None:
    changed = {path for case in CASES for path in case.get("rules", {})}
    assert {
        "throws.laid",
        "pick.from_offer",
        "game_end.kind",
        "game_end.reaching_is_out",
        "deck.ranks_left_out",
        "reshuffle.kept_aside",
        "reshuffle.moment",
        "deck_runs_out",
        "throws.run.wrap",
        "turn_timer.seconds",
    } <= changed
    assert {h for case in CASES for h in case.get("kit_defaults", ())} == {
        "laid",
        "pickable_positions",
        "settlement",
    }
    assert len({case["name"] for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", PYTHON_CASES, ids=[c["name"] for c in PYTHON_CASES])
def test_the_python_kit_answers_every_request_as_expected(case: dict[str, Any]) -> None:
    session = kit_vectors.python_session(VECTORS, case)
    assert kit_vectors.mismatches(session, VECTORS, case) == []


@pytest.mark.parametrize("case", REFERENCE_CASES, ids=[c["name"] for c in REFERENCE_CASES])
def test_the_reference_engine_answers_every_request_as_expected(case: dict[str, Any]) -> None:
    """The answers are the rules' (the reference's), not the kits' own."""
    session = kit_vectors.reference_session()
    assert kit_vectors.mismatches(session, VECTORS, case) == []


def test_a_wrong_answer_or_a_misnamed_parameter_is_a_mismatch() -> None:
    [case] = [c for c in CASES if c["name"] == "options-the-binding-narrows"]
    wrong = copy.deepcopy(case)
    wrong["requests"][0]["answer"]["error"]["message_starts"] = (
        "option call_limit: rules.hand_size:"
    )
    wrong["requests"][2]["answer"] = {"ok": True, "events": [{"type": "option_changed"}]}
    found = kit_vectors.mismatches(kit_vectors.python_session(VECTORS, wrong), VECTORS, wrong)
    assert [line.split("\n")[0] for line in found] == [
        str(r) for r in kit_vectors.requests(VECTORS, wrong) if r["seq"] in (0, 2)
    ]
