"""Game specs: seats, option values and a style of play for each game, steered toward
the coverage counters a profile has not reached yet."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace

from jhyap_core.profile import option_specs, resolve
from jhyap_core.vocabulary import JhyapError
from reference_engine.rules import GameEndKind, Rules

from ..spec.json_types import Json
from .counters import (
    AT_THRESHOLD,
    BEATEN_CALLS,
    CUTS,
    ELIMINATIONS,
    GAMES_ENDED,
    RAW_LINES,
    REFUSED_TABLES,
    RESHUFFLE_COUNTERS,
    SEVERAL_LOWEST,
    SHARED_WINS,
    TIES_WITH_CALLER,
    TIMEOUTS,
    WON_CALLS,
)
from .option_values import option_samples, random_option_value
from .plan import GameSpec


def random_spec(
    documents: Mapping[str, Mapping[str, Json]],
    profile: str,
    seed: int,
    seats: int | None = None,
) -> GameSpec:
    """A random game spec for ``profile``: seats (sometimes just outside the range),
    option values over every allowed value, and a style of play."""
    rng = random.Random(seed)
    document = documents[profile]
    rules = resolve(document)["rules"]
    low, high = int(rules["seats"]["min"]), int(rules["seats"]["max"])
    if seats is None:
        roll = rng.random()
        if roll < 0.04:
            seats = low - 1
        elif roll < 0.08:
            seats = high + 1
        else:
            seats = rng.randint(low, high)
    options = {
        name: random_option_value(spec, rng) for name, spec in option_specs(document).items()
    }
    ends = GameEndKind(rules["game_end"]["kind"])
    max_rounds = rng.choice((1, 1, 2, 3, 0))
    if max_rounds == 0 and ends is GameEndKind.HOST_ENDS:
        max_rounds = 6
    long_game = max_rounds == 0 or max_rounds >= 6
    return GameSpec(
        profile=profile,
        seats=seats,
        options=options,
        seed=rng.randrange(1 << 30),
        call_rate=rng.choice((0.02, 0.3, 0.9, 0.9)),
        probe_rate=rng.choice((0.0, 0.1, 0.1, 0.3)),
        timeout_rate=rng.choice((0.0, 0.0, 0.3, 0.95)),
        check_rate=rng.choice((0.05, 0.2)),
        max_rounds=max_rounds,
        max_requests=1500 if long_game else rng.choice((150, 400)),
        deal_style="quick" if long_game and rng.random() < 0.5 else "",
    )


# -- steering --------------------------------------------------------------------------

# What a game aims at when a counter is still at zero: a deal style, and spec changes.
_AIMS: dict[str, dict[str, Json]] = {
    TIES_WITH_CALLER: {"deal_style": "tie", "call_aim": "tie", "max_rounds": 2},
    SEVERAL_LOWEST: {"deal_style": "tiebreak", "call_aim": "tiebreak", "max_rounds": 3},
    AT_THRESHOLD: {"deal_style": "edge", "call_aim": "edge", "max_rounds": 0},
    CUTS: {"deal_style": "edge", "call_aim": "edge", "max_rounds": 0},
    ELIMINATIONS: {"deal_style": "quick", "call_rate": 1.0, "max_rounds": 0},
    GAMES_ENDED: {"deal_style": "quick", "call_rate": 1.0, "max_rounds": 0},
    SHARED_WINS: {"deal_style": "even", "call_aim": "even", "max_rounds": 0},
    TIMEOUTS: {"timeout_rate": 0.95},
    WON_CALLS: {"call_rate": 1.0, "deal_style": "quick"},
    BEATEN_CALLS: {"deal_style": "tie", "call_aim": "tie", "max_rounds": 2},
}
STEER_RATE = 0.85  # the share of games that aim at a counter still missing
# The share of the other games, at three seats or more, played with late and risky calls
# (call_aim "beaten", see generate._calls): a call held until other hands are at or below
# the caller's, so that beaten calls, and showdowns among several lower hands, come at
# every table size (calls made as soon as allowed are beaten mostly at two seats).
RISKY_RATE = 0.4
# Counters nearly every game reaches: aimed at only once the others are.
_EASY = (WON_CALLS, RAW_LINES)
_RARE = (SEVERAL_LOWEST, AT_THRESHOLD, CUTS, SHARED_WINS)


def steer(
    spec: GameSpec,
    document: Mapping[str, Json],
    missing: Sequence[str],
    rng: random.Random,
    turn: int | None = None,
) -> GameSpec:
    """``spec`` aimed at one of the ``missing`` counters (most of the time): the deal
    style, call rate and length that reach it, and option values that allow it. Game
    ``turn`` of a run aims at the ``turn``-th missing counter, round robin, so that each
    is aimed at as often (else at one drawn at random)."""
    if not missing or rng.random() >= STEER_RATE:
        return risky(spec, rng)
    aims = sorted(c for c in missing if c not in _EASY) or sorted(missing)
    aims += [c for c in aims if c in _RARE]  # the rarest are aimed at twice as often
    aim = aims[turn % len(aims)] if turn is not None else rng.choice(aims)
    changes: dict[str, Json] = {}  # probes are refused: they leave the aim intact
    if aim in RESHUFFLE_COUNTERS.values():
        changes.update(call_rate=0.0, max_rounds=1, deal_style="uniform")
        changes["options"] = _options_for(document, spec.options, rng, reshuffle=aim)
    else:
        changes.update(_AIMS.get(aim, {}))
        if aim in (AT_THRESHOLD, CUTS, ELIMINATIONS, GAMES_ENDED, SHARED_WINS):
            changes["max_requests"] = 1500
            changes["options"] = _options_for(document, spec.options, rng, cuts=aim == CUTS)
        if aim == TIMEOUTS:
            changes["options"] = _options_for(document, spec.options, rng, timer=True)
    rules = resolve(document, changes.get("options", spec.options))["rules"]
    low, high = int(rules["seats"]["min"]), int(rules["seats"]["max"])
    if aim == SEVERAL_LOWEST:
        changes["seats"] = max(low, min(high, max(spec.seats, 3)))
    elif aim == SHARED_WINS:
        changes["seats"] = _seats_sharing(rules, low, high, rng)
    elif aim == REFUSED_TABLES:
        changes["seats"] = rng.choice((low - 1, high + 1))
    # Else a seat count outside the range stays: a refused table is a probe too.
    if changes.get("max_rounds") == 0 and rules["game_end"]["kind"] == GameEndKind.HOST_ENDS:
        changes["max_rounds"] = 6
    steered = replace(spec, **changes)
    # An aim that leaves the calls as drawn (timeouts, refused tables) may take risks too.
    return steered if {"call_aim", "call_rate"} & set(changes) else risky(steered, rng)


def risky(spec: GameSpec, rng: random.Random) -> GameSpec:
    """``spec`` with late and risky calls, at :data:`RISKY_RATE`, at three seats or more."""
    if spec.call_aim or spec.seats < 3 or rng.random() >= RISKY_RATE:
        return spec
    return replace(spec, call_aim="beaten")


def _seats_sharing(rules: Mapping[str, Json], low: int, high: int, rng: random.Random) -> int:
    """A seat count at which fixed rounds won in turn leave two or more seats level: the
    rounds a multiple of it, or one short of a multiple by at least two."""
    rounds = rules["game_end"].get("rounds") or 0
    fitting = [n for n in range(max(2, low), high + 1) if rounds and rounds % n != 1]
    # The fewest seats: their hands of one value are the easiest to deal.
    return min(fitting) if fitting else max(2, low)


def _options_for(
    document: Mapping[str, Json],
    options: Mapping[str, Json],
    rng: random.Random,
    *,
    reshuffle: str = "",
    cuts: bool = False,
    timer: bool = False,
) -> dict[str, Json]:
    """``options`` with values that can reach the aim: a reshuffle moment, score cuts,
    a running timer; for game ends, the lowest threshold (games end sooner)."""
    chosen = dict(options)
    for name, spec in option_specs(document).items():
        fitting = []
        for value in option_samples(spec):
            try:
                rules = Rules.from_profile(resolve(document, {**chosen, name: value}))
            except (JhyapError, ValueError):
                continue
            if (
                (reshuffle and RESHUFFLE_COUNTERS[rules.reshuffle.moment] == reshuffle)
                or (cuts and (rules.scoring.cuts or rules.scoring.halve_at_multiples_of))
                or (timer and rules.timer.seconds > 0)
            ):
                fitting.append(value)
        if fitting and spec.sets in _AIMED_PARAMETERS:
            chosen[name] = rng.choice(fitting)
        elif spec.sets == "game_end.out_above" and not (reshuffle or timer):
            chosen[name] = option_samples(spec)[0]
    return chosen


_AIMED_PARAMETERS = ("reshuffle.moment", "scoring.cuts", "turn_timer.seconds")
