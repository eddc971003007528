"""Shrinking a diverging plan to a short one with the same divergence.

Two stages, both deterministic for a seed (budgets count requests, never seconds):

1. *Search nearby*: new plans from simpler specs of the same table (fewer seats first,
   no probes, more calls, timeouts where a timer runs, every seat count) and a few seeds
   derived from the failing one; the plan that reaches the same divergence (same
   signature) in the fewest requests wins. Nearby games have no raw-line probes, and a
   divergence at a raw-line probe skips this stage: the answer to a malformed line does
   not depend on the game, so deleting the requests around it is quicker.
2. *Delete*: the requests after the divergence go, then ``state`` checkpoints, then
   chunks of requests, halving the chunk size (ddmin); a deletion is kept when the
   divergence survives it. A raw-line probe is first tried right after the start. Deals
   are simplified last: only the cards the hand draws keep their places, the rest of the
   deck goes to canonical order.

Every candidate is judged by sending it to both engines again, so what survives is
exactly what the transcript will show.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from reference_engine.cards import DECK
from reference_engine.profile import option_specs, resolve

from .driver import Divergence, Unsupported
from .generate import GameSpec, Plan, Request, generate, request
from .steer import option_samples

Json = Any
Evaluate = Callable[[Plan], "Divergence | Unsupported | None"]
SEARCH_SEEDS = 6
STYLE_MINIMUM = 8  # candidates each style may try whatever its share
SEARCH_CAP = 250  # requests of one nearby game: the search is for short ones
DEFAULT_BUDGET = 200_000  # requests sent to each engine while shrinking


@dataclass
class _Budget:
    left: int

    def spend(self, plan: Plan) -> bool:
        if self.left <= 0:
            return False
        self.left -= len(plan.requests)
        return True


@dataclass(frozen=True)
class Shrunk:
    plan: Plan
    divergence: Divergence
    candidates: int  # plans tried
    requests_sent: int


def _cost(plan: Plan, divergence: Divergence) -> tuple[int, int, int]:
    """Smaller is simpler: requests up to the divergence, then seats, then the plan's length."""
    return (divergence.index + 1, plan.spec.seats, len(plan.requests))


def truncated(plan: Plan, divergence: Divergence) -> Plan:
    return replace(plan, requests=plan.requests[: divergence.index + 1])


_QUIET: dict[str, Any] = {"probe_rate": 0.0, "check_rate": 0.0}
# Styles of nearby games, the cheapest and likeliest first; none sends raw-line probes.
STYLES: tuple[dict[str, Any], ...] = tuple(
    {**style, "raw_rate": 0.0}
    for style in (
        {"max_rounds": 1, "call_rate": 0.9, "probe_rate": 0.3, "check_rate": 0.3},
        {"max_rounds": 1, "call_rate": 1.0, **_QUIET},
        {"max_rounds": 1, "call_rate": 1.0, "deal_style": "mirror", **_QUIET},
        {"max_rounds": 2, "call_rate": 1.0, "deal_style": "mirror", **_QUIET},
        {"timeout_rate": 0.97, **_QUIET},
        {"max_rounds": 2, "call_rate": 1.0, "deal_style": "quick", **_QUIET},
        {"max_rounds": 0, "call_rate": 1.0, "deal_style": "quick", **_QUIET},
        {"max_rounds": 3, "call_rate": 1.0, "deal_style": "mirror", **_QUIET},
        {"max_rounds": 2, "call_rate": 0.9, "probe_rate": 0.1, "check_rate": 0.2},
        {"timeout_rate": 0.97, "check_rate": 0.3},
        {"check_rate": 0.05},
        {"probe_rate": 0.0, "check_rate": 0.2},
    )
)


def _nearby_specs(
    documents: Mapping[str, Mapping[str, Json]], spec: GameSpec, profiles: Sequence[str]
) -> list[list[GameSpec]]:
    """Simpler specs, one list per style; in each the failing table's profile before the others, its
    options before the defaults, fewer seats first, a few seeds derived from its own."""
    rng = random.Random(spec.seed)
    seeds = [rng.randrange(1 << 30) for _ in range(SEARCH_SEEDS)]
    order = [spec.profile, *(p for p in profiles if p != spec.profile)]
    found: list[list[GameSpec]] = []
    for style in STYLES:
        group: list[GameSpec] = []
        for profile in order:
            document = documents[profile]
            defaults = resolve(document)["option_values"]
            rules = resolve(document, defaults)["rules"]
            timer = any(
                o.get("sets") == "turn_timer.seconds" for o in document.get("options") or []
            )
            if style.get("timeout_rate") and not timer:
                continue
            low, high = int(rules["seats"]["min"]), int(rules["seats"]["max"])
            # The largest value of each option too: the highest call limit allows ties
            # among three full hands, which no hand under the default limit can make.
            highest = {n: option_samples(o)[-1] for n, o in option_specs(document).items()}
            option_sets = [spec.options] if profile == spec.profile else []
            option_sets += [o for o in (defaults, highest) if o not in option_sets]
            if profile == spec.profile and not low <= spec.seats <= high:
                seat_counts = [spec.seats]
            else:
                seat_counts = list(range(low, high + 1))
            group += [
                replace(spec, profile=profile, seats=n, seed=seed, options=options, **style)
                for options in option_sets
                for n in seat_counts
                for seed in seeds
            ]
        found.append(group)
    return found


def _same(a: Divergence, b: Divergence) -> bool:
    """The same divergence, under any profile: the signature after its profile id (a
    timeout's pick counts as a pick)."""

    def key(d: Divergence) -> str:
        rest = d.signature.partition(" ")[2]
        return "pick:" + rest[len("timeout:") :] if rest.startswith("timeout:") else rest

    return key(a) == key(b)


def search_nearby(
    documents: Mapping[str, Mapping[str, Json]],
    plan: Plan,
    divergence: Divergence,
    evaluate: Evaluate,
    budget: _Budget,
    profiles: Sequence[str] = (),
) -> tuple[Plan, Divergence, int]:
    """The simplest plan from nearby specs that shows the same divergence."""
    best, best_div = truncated(plan, divergence), divergence
    if divergence.index <= 1 or plan.requests[divergence.index].raw is not None:
        return best, best_div, 0
    tried = 0
    groups = _nearby_specs(documents, plan.spec, profiles or (plan.profile,))
    # Each style may spend what is left less an equal share kept for every later style:
    # a style that cannot show the divergence must not starve one that can.
    share = budget.left // len(groups)
    for number, group in enumerate(groups):
        allowed = budget.left - share * (len(groups) - number - 1)
        for count, spec in enumerate(group):
            if best_div.index <= 2:  # a deal and one request: nothing shorter is likely
                return best, best_div, tried
            limited = replace(spec, max_requests=min(best_div.index + 1, SEARCH_CAP))
            candidate = generate(documents[spec.profile], limited)
            # A few candidates even past the share: a long divergence costs much a try.
            if (allowed <= 0 and count >= STYLE_MINIMUM) or not budget.spend(candidate):
                break
            allowed -= len(candidate.requests)
            tried += 1
            found = evaluate(candidate)
            if not isinstance(found, Divergence) or not _same(found, divergence):
                continue
            if _cost(candidate, found) < _cost(best, best_div):
                best, best_div = truncated(candidate, found), found
    return best, best_div, tried


def _valid(requests: Sequence[Request]) -> bool:
    """No action before the first deal (a transcript may not have one); a raw-line probe
    (``cmd`` ``raw``) may stand anywhere."""
    for item in requests:
        if item.cmd == "deal":
            return True
        if item.cmd == "act":
            return False
    return True


def delete_requests(
    plan: Plan, divergence: Divergence, evaluate: Evaluate, budget: _Budget
) -> tuple[Plan, Divergence, int]:
    """ddmin over the requests after the start; the divergence must survive each deletion."""
    tried = 0

    def attempt(requests: tuple[Request, ...]) -> Divergence | None:
        nonlocal tried
        if not _valid(requests[1:]):
            return None
        candidate = replace(plan, requests=requests)
        if not budget.spend(candidate):
            return None
        tried += 1
        found = evaluate(candidate)
        if isinstance(found, Divergence) and found.signature == divergence.signature:
            return found
        return None

    requests = plan.requests[: divergence.index + 1]
    if requests[-1].raw is not None and len(requests) > 2:
        # A raw line's answer seldom depends on the game: the start and the line alone.
        alone = (requests[0], requests[-1])
        if (found := attempt(alone)) is not None:
            return replace(plan, requests=alone), found, tried
    checks = tuple(r for i, r in enumerate(requests) if r.cmd != "state" or i == len(requests) - 1)
    if len(checks) < len(requests) and (found := attempt(checks)) is not None:
        requests, divergence = checks[: found.index + 1], found
    chunk = max(1, (len(requests) - 2) // 2)
    while chunk >= 1 and budget.left > 0:
        position = 1
        while position < len(requests) - 1 and budget.left > 0:
            end = min(position + chunk, len(requests) - 1)
            candidate = requests[:position] + requests[end:]
            found = attempt(candidate)
            if found is not None:
                requests, divergence = candidate[: found.index + 1], found
            else:
                position = end
        chunk //= 2
    return replace(plan, requests=requests), divergence, tried


def simplify_deals(
    plan: Plan, divergence: Divergence, evaluate: Evaluate, budget: _Budget
) -> tuple[Plan, Divergence, int]:
    """Put each deal's undrawn cards in canonical order, where the divergence allows."""
    tried = 0
    requests = list(plan.requests)
    seats = plan.spec.seats
    hand_size = int(plan.requests[0].message["profile"]["rules"]["hand_size"])
    for i, item in enumerate(requests):
        if item.cmd != "deal" or len(item.message.get("deck") or ()) != 52:
            continue
        order = list(item.message["deck"])
        hand_end = next(
            (j for j in range(i + 1, len(requests)) if requests[j].cmd == "deal"), len(requests)
        )
        drawn = sum(
            1
            for r in requests[i + 1 : hand_end]
            if r.cmd == "act" and r.message["action"].get("type") in ("pick", "timeout")
        )
        keep = min(52, hand_size * seats + 1 + drawn)  # at most the cards dealt, turned, drawn
        named = set(order[:keep])
        simple = order[:keep] + [str(c) for c in DECK if str(c) not in named]
        if simple == order:
            continue
        simpler = request({**item.message, "deck": simple})
        candidate_requests = [*requests[:i], simpler, *requests[i + 1 :]]
        candidate = replace(plan, requests=tuple(candidate_requests))
        if not budget.spend(candidate):
            break
        tried += 1
        found = evaluate(candidate)
        if isinstance(found, Divergence) and found.signature == divergence.signature:
            requests, divergence = candidate_requests[: found.index + 1], found
    return replace(plan, requests=tuple(requests)), divergence, tried


def shrink(
    documents: Mapping[str, Mapping[str, Json]],
    plan: Plan,
    divergence: Divergence,
    evaluate: Evaluate,
    budget: int = DEFAULT_BUDGET,
    profiles: Sequence[str] = (),
) -> Shrunk:
    """A short plan with the same divergence (never longer than the given one); the nearby
    search may move it to another of ``profiles`` where it shows in fewer requests."""
    search = _Budget(budget * 2 // 3)
    best, best_div, tried = search_nearby(documents, plan, divergence, evaluate, search, profiles)
    spent = _Budget(budget - (budget * 2 // 3 - search.left))
    best, best_div, more = delete_requests(best, best_div, evaluate, spent)
    tried += more
    best, best_div, more = simplify_deals(best, best_div, evaluate, spent)
    tried += more
    return Shrunk(best, best_div, tried, budget - spent.left)


__all__ = ["DEFAULT_BUDGET", "Shrunk", "shrink", "truncated"]
