"""Coverage counters: the branches of the rules a fuzzing run should reach, per profile.

A counter is counted on the model while a plan is built (:func:`count_events`); a
profile's *applicable* counters are those its rules, under its defaults or one of its
option values, can reach at all. The campaign steers later games toward the applicable
counters still at zero (see :mod:`.steer`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Final

from conformance.spec.wording import plural
from jhyap_core.profile import option_specs, resolve
from jhyap_core.vocabulary import JhyapError
from reference_engine.rules import DeckRunsOut, GameEndKind, ReshuffleMoment, Rules

from ..spec.json_types import Json
from .option_values import option_samples

WON_CALLS = "won calls"
BEATEN_CALLS = "beaten calls"
TIES_WITH_CALLER = "ties with the caller"
SEVERAL_LOWEST = "tie-breaks among several lowest"
AT_THRESHOLD = "totals exactly at the threshold"
CUTS = "score cuts"
# One counter per reshuffle moment (rules.reshuffle.moment): each is its own code path.
RESHUFFLE_COUNTERS: Final = {m: f"reshuffles ({m.value})" for m in ReshuffleMoment}
RESHUFFLES = RESHUFFLE_COUNTERS[ReshuffleMoment.WHEN_DECK_EMPTIED]
ELIMINATIONS = "eliminations"
SHARED_WINS = "shared wins"
GAMES_ENDED = "games ended"
TIMEOUTS = "timeouts"
REFUSED_TABLES = "refused tables"
RAW_LINES = "raw-line probes"
COUNTERS: Final = (
    WON_CALLS,
    BEATEN_CALLS,
    TIES_WITH_CALLER,
    SEVERAL_LOWEST,
    AT_THRESHOLD,
    CUTS,
    *RESHUFFLE_COUNTERS.values(),
    ELIMINATIONS,
    SHARED_WINS,
    GAMES_ENDED,
    TIMEOUTS,
    REFUSED_TABLES,
    RAW_LINES,
)

# Counters a run should reach often, not just once: the fewest per 100 games it is
# expected to count (the late and risky calls of .steer give several times as many at
# 3-6 seats). Judged from MIN_GAMES_JUDGED games a profile on.
LOW_RATES: Final = {BEATEN_CALLS: 10, SEVERAL_LOWEST: 1}
MIN_GAMES_JUDGED: Final = 20


def low_counters(coverage: Mapping[str, int], games: int, applicable: Sequence[str]) -> list[str]:
    """The applicable counters of :data:`LOW_RATES` that ``games`` games counted fewer
    times than expected, each as ``"<counter>: <count> in <games> games"``."""
    if games < MIN_GAMES_JUDGED:
        return []
    return [
        f"{name}: {coverage.get(name, 0)} in {plural(games, 'game')}"
        for name, rate in LOW_RATES.items()
        if name in applicable and coverage.get(name, 0) * 100 < rate * games
    ]


def rule_variants(document: Mapping[str, Json]) -> list[Rules]:
    """The typed rules of the profile's defaults and of each single option value."""
    found = [Rules.from_profile(resolve(document))]
    for spec in option_specs(document).values():
        for value in option_samples(spec):
            try:
                found.append(Rules.from_profile(resolve(document, {spec.name: value})))
            except (JhyapError, ValueError):
                continue
    return found


def applicable_counters(document: Mapping[str, Json]) -> tuple[str, ...]:
    """The counters a profile can reach at all (no shared wins where one seat survives,
    no totals at a threshold where no threshold is set)."""
    unreachable = unreachable_counters(document)
    return tuple(name for name in COUNTERS if name not in unreachable)


def unreachable_counters(document: Mapping[str, Json]) -> dict[str, str]:
    """The counters the profile cannot reach, under its defaults or any one option value,
    each with the reason."""
    variants = rule_variants(document)
    ends = {r.game_end.kind for r in variants}
    moments = {
        RESHUFFLE_COUNTERS[r.reshuffle.moment]
        for r in variants
        if r.reshuffle.deck_runs_out is DeckRunsOut.RESHUFFLE
    }
    # A cut at the threshold itself moves every total that lands on it.
    thresholds = any(
        r.game_end.kind is GameEndKind.ELIMINATION
        and r.game_end.out_above not in {c.at for c in r.scoring.cuts}
        for r in variants
    )
    reshuffles = any(r.reshuffle.deck_runs_out is DeckRunsOut.RESHUFFLE for r in variants)
    found: dict[str, str] = {}
    for name in COUNTERS:
        if name in RESHUFFLE_COUNTERS.values() and name not in moments:
            found[name] = (
                "the deck is reshuffled at another moment"
                if reshuffles
                else "an empty deck is never reshuffled"
            )
        elif name in (ELIMINATIONS, AT_THRESHOLD) and GameEndKind.ELIMINATION not in ends:
            found[name] = "the game does not end by elimination"
        elif name == AT_THRESHOLD and not thresholds:
            found[name] = "a score cut at the threshold moves every total that lands on it"
        elif name == CUTS and not any(
            r.scoring.cuts or r.scoring.halve_at_multiples_of for r in variants
        ):
            found[name] = "no score cut"
        elif name == SHARED_WINS and GameEndKind.FIXED_ROUNDS not in ends:
            found[name] = "the game does not end after a fixed number of rounds"
        elif name == TIMEOUTS and not any(r.timer.seconds > 0 for r in variants):
            found[name] = "no turn timer"
    return found


def count_events(
    coverage: Counter[str],
    events: Sequence[Mapping[str, Json]],
    rules: Rules,
    scores_before: Sequence[int],
    order_from: Callable[[int], Sequence[int]],
) -> None:
    """Count what an accepted request's events reached; ``scores_before`` are the totals
    before the request (a cut is a total other than the sum of the old one and the delta),
    ``order_from(seat)`` the turn order from a seat."""
    for event in events:
        kind = event["type"]
        if kind == "reshuffled":
            coverage[RESHUFFLE_COUNTERS[rules.reshuffle.moment]] += 1
        elif kind == "timed_out":
            coverage[TIMEOUTS] += 1
        elif kind == "round_ended":
            _count_round(coverage, event, rules, scores_before, order_from)
        elif kind == "game_ended":
            coverage[GAMES_ENDED] += 1
            if len(event["winners"]) >= 2:
                coverage[SHARED_WINS] += 1


def _count_round(
    coverage: Counter[str],
    event: Mapping[str, Json],
    rules: Rules,
    before: Sequence[int],
    order_from: Callable[[int], Sequence[int]],
) -> None:
    values = event["hand_values"]
    caller = event["caller"]
    if caller is not None:  # else the deck ran out: no call to win or beat
        if event["outcome"] == "won_call":
            coverage[WON_CALLS] += 1
        else:
            coverage[BEATEN_CALLS] += 1
        others = [v for s, v in enumerate(values) if v is not None and s != caller]
        lowest = min(others) if others else None
        if lowest == values[caller]:
            coverage[TIES_WITH_CALLER] += 1
        tied = [s for s in order_from(caller) if s != caller and values[s] == lowest]
        # A tie-break is tested where the turn order and the seat numbers pick apart.
        if len(tied) >= 2 and lowest <= values[caller] and tied[0] != min(tied):
            coverage[SEVERAL_LOWEST] += 1
    scores, deltas = event["scores"], event["deltas"]
    same_length = len(before) == len(scores) == len(deltas)
    if same_length and any(b + d != s for b, d, s in zip(before, deltas, scores, strict=True)):
        coverage[CUTS] += 1
    threshold = rules.game_end.out_above if rules.game_end.kind is GameEndKind.ELIMINATION else None
    if threshold is not None and threshold in scores:
        coverage[AT_THRESHOLD] += 1
    if event["eliminated"]:
        coverage[ELIMINATIONS] += 1


__all__ = [
    "AT_THRESHOLD",
    "COUNTERS",
    "CUTS",
    "RESHUFFLES",
    "RESHUFFLE_COUNTERS",
    "applicable_counters",
    "count_events",
    "low_counters",
    "rule_variants",
    "unreachable_counters",
]
