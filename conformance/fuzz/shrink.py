"""Shrinking a diverging plan to a short one with the same divergence.

Coarse steps first, each candidate judged by sending it to both engines again (so what
survives is exactly what the transcript will show), candidates in batches as wide as the
engine pool (every ``--jobs`` pair at once):

1. the requests after the divergence go; a raw-line probe is tried right after the start;
2. *nearby games*: a few new one-hand plans of the same profile and table (fewer seats,
   no probes, calls at once, mirrored deals), the shortest one with the same signature
   kept; the profile never changes, so a finding is filed where it diverges;
3. whole hands go (every hand before the diverging one at once, then one at a time);
4. ``state`` checkpoints, then chunks of requests, halving the chunk size (ddmin);
5. cards: each deal's undrawn cards go to the table's canonical order.

A deadline and a request budget bound it: when either runs out, the best plan so far is
the result (it diverges: every plan kept did). The deadline is that of the shrink and of
the replays that check its result after it: the time kept for those (:class:`Reserve`) is
measured on the shrink's own replays, the slowest request of any batch times a margin, so
that a loaded machine shrinks for less time rather than overrunning.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from conformance.spec.wording import plural
from jhyap_core.profile import option_specs, resolve

from ..spec.decks import deck_names, table_deck
from ..spec.json_types import Json
from .driver import Divergence, Unsupported
from .generate import GameSpec, Plan, Request, generate, request
from .option_values import option_samples
from .settings import DEFAULT_BUDGET

Outcome = Divergence | Unsupported | None
EvaluateMany = Callable[[Sequence[Plan]], list[Outcome]]
Report = Callable[[str], None]
NEARBY_SEEDS = 4
NEARBY_CAP = 600  # requests of one nearby game: the search is for short ones


@dataclass
class Reserve:
    """The time kept at the end of a shrink for the replays that check its result:
    ``replays`` replays of up to ``requests`` requests, each request as slow as the
    slowest one of the shrink's batches times ``margin``; ``prior`` seconds until a
    batch has been timed."""

    requests: int
    prior: float
    replays: int = 2
    margin: float = 3.0
    floor: float = 0.5  # starting the checks' engines, writing the file
    slowest: float = 0.0  # seconds a request, in the slowest batch so far

    def timed(self, seconds: float, requests: int) -> None:
        """A batch whose longest plan had ``requests`` requests took ``seconds``: its
        plans ran side by side, so each of that plan's requests took at most that share."""
        if requests > 0:
            self.slowest = max(self.slowest, seconds / requests)

    @property
    def seconds(self) -> float:
        if not self.slowest:
            return self.prior
        return self.floor + self.margin * self.slowest * self.requests * self.replays


@dataclass(frozen=True)
class Shrunk:
    plan: Plan
    divergence: Divergence
    candidates: int  # plans tried
    requests_sent: int
    stopped: str | None = None  # what ended it early: "the time limit", "the request budget"


def truncated(plan: Plan, divergence: Divergence) -> Plan:
    return replace(plan, requests=plan.requests[: divergence.index + 1])


def _cost(plan: Plan, divergence: Divergence) -> tuple[int, int, int]:
    """Smaller is simpler: requests up to the divergence, then seats, then the length."""
    return (divergence.index + 1, plan.spec.seats, len(plan.requests))


def _valid(requests: Sequence[Request]) -> bool:
    """No action before the first deal (a transcript may not have one); a raw-line probe
    may stand anywhere."""
    for item in requests:
        if item.cmd == "deal":
            return True
        if item.cmd == "act":
            return False
    return True


_QUIET: dict[str, Any] = {"probe_rate": 0.0, "check_rate": 0.0, "raw_rate": 0.0}
STYLES: tuple[dict[str, Any], ...] = (
    {"max_rounds": 1, "call_rate": 1.0, **_QUIET},
    {"max_rounds": 1, "call_rate": 1.0, "deal_style": "mirror", **_QUIET},
    {"max_rounds": 1, "call_rate": 0.9, "probe_rate": 0.3, "check_rate": 0.3, "raw_rate": 0.0},
    {"max_rounds": 2, "call_rate": 1.0, "deal_style": "quick", **_QUIET},
    # The steering's aims: ties, tie-breaks, totals on the threshold or a cut.
    {"max_rounds": 2, "call_rate": 1.0, "deal_style": "tiebreak", **_QUIET},
    {"max_rounds": 2, "call_rate": 1.0, "deal_style": "tie", **_QUIET},
    {"timeout_rate": 0.97, **_QUIET},
)
# The steering's aimed games (see .aimed): tried right after the failing game's own style.
AIMED: tuple[dict[str, Any], ...] = (
    {"max_rounds": 0, "call_aim": "edge", "deal_style": "edge", **_QUIET},
    {"max_rounds": 3, "call_aim": "tiebreak", "deal_style": "tiebreak", **_QUIET},
    {"max_rounds": 2, "call_aim": "tie", "deal_style": "tie", **_QUIET},
)


def transcribable(requests: Sequence[Request]) -> tuple[Request, ...]:
    """``requests`` without the actions before the first deal (refused probes: they change
    nothing) but the last request, which a transcript can write."""
    kept: list[Request] = []
    dealt = False
    for index, item in enumerate(requests):
        dealt = dealt or item.cmd == "deal"
        if item.cmd == "act" and not dealt and index != len(requests) - 1:
            continue
        kept.append(item)
    return tuple(kept)


class _Shrinker:
    def __init__(
        self,
        evaluate: EvaluateMany,
        width: int,
        budget: int,
        deadline: float | None,
        divergence: Divergence,
        report: Report | None,
        clock: Callable[[], float],
        reserve: Reserve | None = None,
    ) -> None:
        self.evaluate = evaluate
        self.reserve = reserve
        self.width = max(1, width)
        self.left = budget
        self.budget = budget
        self.deadline = deadline
        self.signature = divergence.signature
        self.report = report
        self.clock = clock
        self.tried = 0
        self.stopped: str | None = None

    def open(self) -> bool:
        kept = self.reserve.seconds if self.reserve is not None else 0.0
        if self.deadline is not None and self.clock() >= self.deadline - kept:
            self.stopped = "the time limit"
        elif self.left <= 0:
            self.stopped = "the request budget"
        return self.stopped is None

    def batch(self, plans: Sequence[Plan]) -> list[Divergence | None]:
        """Each plan's divergence when it is the same one, else None (a plan past the
        budget or the deadline is not sent)."""
        sent: list[Plan] = []
        for plan in plans:
            if not self.open():
                break
            self.left -= len(plan.requests)
            sent.append(plan)
        began = self.clock()
        found = self.evaluate(sent) if sent else []
        if sent and self.reserve is not None:
            self.reserve.timed(self.clock() - began, max(len(p.requests) for p in sent))
        self.tried += len(sent)
        same = [
            f if isinstance(f, Divergence) and f.signature == self.signature else None
            for f in found
        ]
        return same + [None] * (len(plans) - len(sent))

    def note(self, stage: str, plan: Plan, divergence: Divergence) -> None:
        if self.report is not None:
            self.report(
                f"shrinking {self.signature}: {stage}, "
                f"{plural(divergence.index + 1, 'request')}, {plural(self.tried, 'candidate')}"
            )

    # -- stages ---------------------------------------------------------------------

    def first(self, plan: Plan, divergence: Divergence) -> tuple[Plan, Divergence]:
        """Truncated; a raw line right after the start; no state checks but the last."""
        requests = plan.requests[: divergence.index + 1]
        candidates: list[tuple[Request, ...]] = []
        # A transcript may not hold an action before the first deal, even a refused one:
        # every other candidate is made without them.
        without = transcribable(requests)
        if without != requests:
            (found,) = self.batch([replace(plan, requests=without)])
            if found is not None:
                requests, divergence = without[: found.index + 1], found
        if requests[-1].raw is not None and len(requests) > 2:
            candidates.append((requests[0], requests[-1]))
        checks = tuple(
            r for i, r in enumerate(requests) if r.cmd != "state" or i == len(requests) - 1
        )
        if len(checks) < len(requests):
            candidates.append(checks)
        best = (replace(plan, requests=requests), divergence)
        for candidate, found in zip(
            candidates, self.batch([replace(plan, requests=c) for c in candidates]), strict=True
        ):
            if found is not None:
                return replace(plan, requests=candidate[: found.index + 1]), found
        return best

    def nearby(
        self, documents: Mapping[str, Mapping[str, Json]], plan: Plan, divergence: Divergence
    ) -> tuple[Plan, Divergence]:
        """The shortest of a few simpler games of the same profile with the same signature."""
        best, best_div = plan, divergence
        if divergence.index <= 2 or plan.requests[divergence.index].raw is not None:
            return best, best_div
        specs = _nearby_specs(documents[plan.profile], plan.spec)
        for begin in range(0, len(specs), self.width):
            if best_div.index <= 2 or not self.open():
                break
            chunk = specs[begin : begin + self.width]
            limit = min(best_div.index + 1, NEARBY_CAP)
            plans = [generate(documents[s.profile], replace(s, max_requests=limit)) for s in chunk]
            for candidate, found in zip(plans, self.batch(plans), strict=True):
                if found is not None and _cost(candidate, found) < _cost(best, best_div):
                    best, best_div = truncated(candidate, found), found
            self.note("nearby games", best, best_div)
        return best, best_div

    def hands(self, plan: Plan, divergence: Divergence) -> tuple[Plan, Divergence]:
        """Whole hands before the diverging one go: all at once, then one at a time."""
        requests = plan.requests
        while self.open():
            deals = [i for i, r in enumerate(requests) if r.cmd == "deal"]
            if len(deals) < 2:
                break
            cuts = [(1, deals[-1])]
            cuts += [(deals[k], deals[k + 1]) for k in range(len(deals) - 1)]
            options = [requests[:a] + requests[b:] for a, b in cuts]
            options = [o for o in options if _valid(o[1:])]
            kept = self._first_hit(plan, options)
            if kept is None:
                break
            requests, divergence = kept
            self.note("whole hands", plan, divergence)
        return replace(plan, requests=requests), divergence

    def _first_hit(
        self, plan: Plan, options: Sequence[tuple[Request, ...]]
    ) -> tuple[tuple[Request, ...], Divergence] | None:
        for begin in range(0, len(options), self.width):
            chunk = options[begin : begin + self.width]
            found = self.batch([replace(plan, requests=o) for o in chunk])
            for option, hit in zip(chunk, found, strict=True):
                if hit is not None:
                    return option[: hit.index + 1], hit
            if not self.open():
                return None
        return None

    def requests(
        self, plan: Plan, divergence: Divergence, unit: int = 1
    ) -> tuple[Plan, Divergence]:
        """ddmin over the requests after the start, a batch of chunks at a time; chunks
        are whole multiples of ``unit`` requests from the first action (a round of turns,
        a throw and a pick for each seat, keeps the turn order where it was)."""
        requests = plan.requests
        first = next((i for i, r in enumerate(requests) if r.cmd == "act"), 1) if unit > 1 else 1
        chunk = max(unit, (len(requests) - first - 1) // 2 // unit * unit)
        while chunk >= unit and self.open():
            position = first
            while position < len(requests) - 1 and self.open():
                starts: list[int] = []
                options: list[tuple[Request, ...]] = []
                at = position
                while len(options) < self.width and at < len(requests) - 1:
                    end = min(at + chunk, len(requests) - 1)
                    option = requests[:at] + requests[end:]
                    if _valid(option[1:]):
                        starts.append(at)
                        options.append(option)
                    at = end
                found = self.batch([replace(plan, requests=o) for o in options])
                hit = next((k for k, f in enumerate(found) if f is not None), None)
                if hit is None:
                    position = at
                    continue
                winner = found[hit]
                assert winner is not None
                requests, divergence = options[hit][: winner.index + 1], winner
                position = starts[hit]
            self.note(f"requests in chunks of {chunk}", plan, divergence)
            chunk = chunk // 2 // unit * unit
        return replace(plan, requests=requests), divergence

    def cards(self, plan: Plan, divergence: Divergence) -> tuple[Plan, Divergence]:
        """Each deal's undrawn cards in the table's canonical order, where that keeps it."""
        requests = list(plan.requests)
        rules = plan.requests[0].message["profile"]["rules"]
        full = deck_names(*table_deck(rules, plan.spec.seats))
        hand_size = int(rules["hand_size"])
        simpler: list[tuple[int, Request]] = []
        for i, item in enumerate(requests):
            order = list(item.message.get("deck") or ()) if item.cmd == "deal" else []
            if len(order) != len(full) or sorted(order) != sorted(full):
                continue
            hand_end = next(
                (j for j in range(i + 1, len(requests)) if requests[j].cmd == "deal"),
                len(requests),
            )
            drawn = sum(
                1
                for r in requests[i + 1 : hand_end]
                if r.cmd == "act" and r.message["action"].get("type") in ("pick", "timeout")
            )
            keep = min(len(full), hand_size * plan.spec.seats + 1 + drawn)
            rest = list(full)
            for card in order[:keep]:
                rest.remove(card)
            simple = order[:keep] + rest
            if simple != order:
                simpler.append((i, request({**item.message, "deck": simple})))
        if not simpler or not self.open():
            return plan, divergence
        every = list(requests)
        for i, item in simpler:
            every[i] = item
        options = [tuple(every)] + [
            (*requests[:i], item, *requests[i + 1 :]) for i, item in simpler
        ]
        kept = self._first_hit(plan, options)
        if kept is not None:
            self.note("cards", plan, kept[1])
            return replace(plan, requests=kept[0]), kept[1]
        return plan, divergence


def _nearby_specs(document: Mapping[str, Json], spec: GameSpec) -> list[GameSpec]:
    """Simpler specs of the failing table's profile: its options, then the defaults and
    the largest values; fewer seats first; a few seeds derived from its own."""
    rng = random.Random(spec.seed)
    seeds = [rng.randrange(1 << 30) for _ in range(NEARBY_SEEDS)]
    defaults = resolve(document)["option_values"]
    rules = resolve(document, defaults)["rules"]
    timer = any(o.get("sets") == "turn_timer.seconds" for o in document.get("options") or [])
    low, high = int(rules["seats"]["min"]), int(rules["seats"]["max"])
    # The highest call limit allows ties among three full hands, which no hand under the
    # default limit can make.
    highest = {n: option_samples(o)[-1] for n, o in option_specs(document).items()}
    option_sets = [spec.options] + [o for o in (defaults, highest) if o != spec.options]
    if not low <= spec.seats <= high:
        seat_counts = [spec.seats]
    else:
        seat_counts = sorted(range(low, high + 1), key=lambda n: (n != spec.seats and n > low, n))
    # The failing game's own style first (its aims included), quieter.
    own = {
        "probe_rate": 0.0,
        "raw_rate": 0.0,
        "check_rate": 0.0,
        "call_rate": spec.call_rate,
        "deal_style": spec.deal_style,
        "call_aim": spec.call_aim,
        "max_rounds": spec.max_rounds,
        "timeout_rate": spec.timeout_rate,
    }
    styles = [s for s in (own, *AIMED, *STYLES) if timer or not s.get("timeout_rate")]
    # In waves, one seed each: a wave tries every style at each seat count, fewest seats
    # first, so that the style that makes the divergence short (totals on the threshold:
    # the aimed ``edge``; a tie-break: ``tiebreak`` at three seats) comes within the
    # first few batches, not after every seed of every other style.
    return [
        replace(spec, seats=n, seed=seed, options=options, avoid=(), **style)
        for seed in seeds
        for options in option_sets[:2]
        for n in seat_counts[:3]
        for style in styles
    ]


def shrink(
    documents: Mapping[str, Mapping[str, Json]],
    plan: Plan,
    divergence: Divergence,
    evaluate: EvaluateMany,
    budget: int = DEFAULT_BUDGET,
    *,
    width: int = 1,
    deadline: float | None = None,
    report: Report | None = None,
    clock: Callable[[], float] = time.monotonic,
    reserve: Reserve | None = None,
) -> Shrunk:
    """A short plan of the same profile with the same divergence (never longer than the
    given one), found within ``budget`` requests by ``deadline``, less the time
    ``reserve`` keeps for the checks after it (measured as the shrink goes)."""
    work = _Shrinker(evaluate, width, budget, deadline, divergence, report, clock, reserve)
    best, best_div = work.first(plan, divergence)
    best, best_div = work.nearby(documents, best, best_div)
    best, best_div = work.hands(best, best_div)
    best, best_div = work.requests(best, best_div, unit=2 * best.spec.seats)
    best, best_div = work.requests(best, best_div)
    best, best_div = work.cards(best, best_div)
    return Shrunk(best, best_div, work.tried, budget - work.left, work.stopped)


__all__ = ["Reserve", "Shrunk", "shrink", "transcribable", "truncated"]
