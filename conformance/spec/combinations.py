"""Rule parameters that are each valid but make no sense together.

Each check names both parameters in one line, at the path of the second; the schema's
description of each says so too. Called from :func:`conformance.spec.profiles._rule_problems`
on rules that passed the schema.
"""

from __future__ import annotations

from collections.abc import Mapping

from .json_types import Json

DataPath = tuple[str | int, ...]


def _at(path: str) -> DataPath:
    return ("rules", *path.split("."))


def rule_problems(rules: Mapping[str, Json]) -> list[tuple[DataPath, str]]:
    """(path, message) for every pair of rule parameters that contradict each other."""
    found: list[tuple[DataPath, str]] = []
    reshuffle, scoring, call = rules["reshuffle"], rules["scoring"], rules["call"]
    at_turn_end = reshuffle["moment"] == "when_deck_emptied"
    if at_turn_end and reshuffle["kept_aside"] == "offer_and_throw":
        # The throw on offer went out of play with the pick that emptied the deck.
        found.append(
            (
                _at("reshuffle"),
                "reshuffle.kept_aside offer_and_throw needs a reshuffle.moment after the "
                "emptying pick, not when_deck_emptied",
            )
        )
    elif reshuffle["kept_aside"] == "current_offer" and not at_turn_end:
        # The engine's words for it too (Rules.from_profile): a reading check, which asks
        # both, reports it once.
        found.append(
            (
                _at("reshuffle"),
                "reshuffle.kept_aside current_offer goes with reshuffle.moment when_deck_emptied, "
                "and only with it",
            )
        )
    if scoring["kind"] == "transfer":
        # A transfer tally sums to zero; cutting or halving one seat's total breaks that.
        if scoring.get("cuts"):
            found.append(
                (
                    _at("scoring.cuts"),
                    "scoring.cuts needs scoring.kind penalty: a transfer tally sums to zero, "
                    "and a cut total would not",
                )
            )
        if scoring.get("drop_at_multiples_of") is not None:
            found.append(
                (
                    _at("scoring.drop_at_multiples_of"),
                    "scoring.drop_at_multiples_of needs scoring.kind penalty: a transfer tally "
                    "sums to zero, and a dropped total would not",
                )
            )
        if scoring.get("halve_at_multiples_of") is not None:
            found.append(
                (
                    _at("scoring.halve_at_multiples_of"),
                    "scoring.halve_at_multiples_of needs scoring.kind penalty: a transfer tally "
                    "sums to zero, and a halved total would not",
                )
            )
    elif rules["money"] is not None:
        found.append(
            (
                _at("money"),
                "money needs scoring.kind transfer: penalty points are owed to nobody, "
                "so there is nothing to settle",
            )
        )
    if scoring["kind"] == "none":
        # No totals are kept: only a one-hand game has a result without them.
        if rules["game_end"]["kind"] != "one_hand":
            found.append(
                (
                    _at("game_end.kind"),
                    "scoring.kind none goes with game_end.kind one_hand only: with no totals "
                    "kept, nothing decides a game of several hands",
                )
            )
        kept = ("cuts", "drop_at_multiples_of", "halve_at_multiples_of")
        for key in [k for k in kept if scoring.get(k)]:
            found.append(
                (_at(f"scoring.{key}"), f"scoring.{key} needs scoring.kind penalty, not none")
            )
    if call["limit"] == 0 and not call["inclusive"]:
        found.append(
            (
                _at("call.inclusive"),
                "call.inclusive false with call.limit 0 refuses every call (no hand is worth "
                "less than 0)",
            )
        )
    steps = call.get("limit_by_seats") or []
    if not call["inclusive"] and any(step["limit"] == 0 for step in steps):
        found.append(
            (
                _at("call.limit_by_seats"),
                "call.inclusive false with a call.limit_by_seats limit of 0 refuses every call "
                "at those seats",
            )
        )
    run = rules["throws"]["run"]
    if run.get("max") is not None and run["max"] < run["min"]:
        found.append(
            (
                _at("throws.run.max"),
                "throws.run.max below throws.run.min leaves no run legal",
            )
        )
    return found
