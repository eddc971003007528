"""What the variant study measures: its points (profile, options, seats, policy) and the
figures of one point. Every figure of the stored study depends on this file, the rest of
conformance/simulation/ except study.py, and the reference engine: their sources make the
study's code version (``study.code_version``). The storing and caching is study.py's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jhyap_core.profile import option_specs

from .play import HandRecord, SimulationSpec, default_seats, play_one
from .stats import mean, share, success_by_value, summarise

STUDY_VERSION = 1
SEED = "variant-study-1"
HANDS_PER_POINT = 300  # hands played for each point of a hand-length figure
GAMES_PER_POLICY = 40  # whole games for the game-length figures
HAND_CAP = 10  # hands per game when only hands are measured
POLICIES = ("heuristic", "random")
LIMITS = (5, 10, 15)  # the call limits compared where the host may choose among them


@dataclass(frozen=True, slots=True)
class Point:
    """One configuration of the study: a profile, its options, a seat count and a policy."""

    profile: str
    kind: str  # "limit", "seats" or "games"
    options: Mapping[str, Any]
    seats: int
    policy: str


def call_limit_option(document: Mapping[str, Any]) -> tuple[str, list[int]] | None:
    """The option that sets the call limit and the limits of ``LIMITS`` it allows."""
    for spec in option_specs(document).values():
        if spec.sets != "call.limit":
            continue
        allowed = []
        for limit in LIMITS:
            try:
                spec.normalize(limit)
            except Exception:
                continue
            allowed.append(limit)
        return spec.name, allowed
    return None


def points_of(profile: str, document: Mapping[str, Any]) -> list[Point]:
    seats = default_seats(document)
    points: list[Point] = []
    limits = call_limit_option(document)
    for policy in POLICIES:
        if limits is not None:
            name, values = limits
            points += [Point(profile, "limit", {name: v}, seats, policy) for v in values]
        else:
            points.append(Point(profile, "limit", {}, seats, policy))
        if document["rules"]["game_end"]["kind"] != "host_ends":
            points.append(Point(profile, "games", {}, seats, policy))
    low, high = int(document["rules"]["seats"]["min"]), int(document["rules"]["seats"]["max"])
    points += [Point(profile, "seats", {}, n, "heuristic") for n in range(low, high + 1)]
    return points


def measure(args: tuple[Point, Mapping[str, Any]]) -> dict[str, Any]:
    """Play one point of the study and return its figures as JSON data."""
    point, document = args
    seed = f"{SEED}:{point.profile}:{point.kind}:{sorted(point.options.items())}:{point.seats}"
    if point.kind == "games":
        spec = SimulationSpec(document, point.seats, (point.policy,), point.options, 200)
        records = [play_one(spec, seed, i) for i in range(GAMES_PER_POLICY)]
        return {"summary": summarise(records).to_json()}
    spec = SimulationSpec(document, point.seats, (point.policy,), point.options, HAND_CAP)
    records = []
    hands: list[HandRecord] = []
    while len(hands) < HANDS_PER_POINT:
        record = play_one(spec, seed, len(records))
        records.append(record)
        hands.extend(record.hands)
    summary = summarise(records).to_json()
    summary["turns_per_player"] = mean(h.turns / h.seats for h in hands).to_json()
    summary["at_limit_success"] = _at_limit(hands, document, point.options)
    summary["success_by_value"] = {str(v): e.to_json() for v, e in success_by_value(hands).items()}
    return {"summary": summary}


def _at_limit(
    hands: Sequence[HandRecord], document: Mapping[str, Any], options: Mapping[str, Any]
) -> dict[str, Any]:
    """Calls made right on the limit against calls below it (an inclusive limit only)."""
    limit = int(document["rules"]["call"]["limit"])
    option = call_limit_option(document)
    if option is not None and option[0] in options:
        limit = int(options[option[0]])
    if not document["rules"]["call"]["inclusive"]:
        limit -= 1
    on = [h for h in hands if h.called_value == limit]
    below = [h for h in hands if h.called_value < limit]
    return {
        "limit": limit,
        "on": share(sum(h.won for h in on), len(on)).to_json(),
        "below": share(sum(h.won for h in below), len(below)).to_json(),
    }
