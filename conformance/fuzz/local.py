"""Fuzzing without subprocesses: the driver's engine interface over engines in this process.

:func:`.driver.run_plan` posts a window of requests to each engine and collects their
answers afterwards; :class:`LocalEngine` does the same over a
:class:`~conformance.harness.inprocess.ReferenceClient` (the reference engine answering in
this process), answering each request when collected. ``around`` wraps each answer: a test
patches the engine under test there (a planted bug) and leaves the reference, answering
through another client, as it is. :func:`fuzz_locally` plays a run's games so, for the
properties that need many games and no process (every drawn profile plays; one bug is
one class).
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field

from ..harness.client import EngineError
from ..harness.inprocess import ReferenceClient
from ..spec.json_types import Json
from .campaign import plan_for
from .config import FuzzConfig
from .counters import applicable_counters
from .driver import Divergence, Unsupported, run_plan
from .plan import Plan, Request
from .pool import transfer_scoring

Around = Callable[[], AbstractContextManager[object]]


class LocalEngine:
    """An engine in this process with the driver's ``post``/``collect`` interface."""

    def __init__(self, around: Around = contextlib.nullcontext) -> None:
        self.client = ReferenceClient()
        self.around = around
        self._posted: list[Request] = []

    def post(self, requests: Sequence[Request]) -> int:
        first = self.client.next_seq + len(self._posted)
        self._posted.extend(requests)
        return first

    def collect(
        self, first: int, requests: Sequence[Request]
    ) -> tuple[list[dict[str, Json]], EngineError | None]:
        answers: list[dict[str, Json]] = []
        posted, self._posted = self._posted, []
        with self.around():
            for item in posted:
                try:
                    if item.raw is None:
                        answers.append(self.client.send(item.message))
                    else:
                        line, _ = item.line(self.client.next_seq)
                        answers.append(self.client.send_raw(line.encode("utf-8")))
                except EngineError as exc:
                    return answers, exc
        return answers, None


@dataclass
class LocalRun:
    """What a local run found: each game's outcome, the signatures, the coverage."""

    outcomes: list[Divergence | Unsupported | None] = field(default_factory=list)
    coverage: Counter[str] = field(default_factory=Counter)

    @property
    def signatures(self) -> Counter[str]:
        return Counter(o.signature for o in self.outcomes if isinstance(o, Divergence))


def play_locally(
    plan: Plan, around: Around = contextlib.nullcontext
) -> Divergence | Unsupported | None:
    """Send ``plan`` to a local engine wrapped in ``around`` and to the local reference."""
    return run_plan(LocalEngine(around), LocalEngine(), plan, transfer=transfer_scoring(plan))


def fuzz_locally(config: FuzzConfig, around: Around = contextlib.nullcontext) -> LocalRun:
    """Play ``config.games`` games of the run (steered as the campaign steers them) on a
    local engine wrapped in ``around`` against the local reference; no shrinking."""
    run = LocalRun()
    games = config.games if config.games is not None else 1
    applicable = {p: applicable_counters(config.documents[p]) for p in config.profiles}
    seen: dict[str, Counter[str]] = {p: Counter() for p in config.profiles}
    for game in range(games):
        profile = config.profiles[game % len(config.profiles)]
        missing = tuple(c for c in applicable[profile] if not seen[profile][c])
        plan: Plan = plan_for(config, game, missing if config.steer else ())
        outcome = play_locally(plan, around)
        run.outcomes.append(outcome)
        reached = plan.coverage_until(outcome.index if isinstance(outcome, Divergence) else None)
        seen[profile].update(reached)
        run.coverage.update(reached)
    return run


__all__ = ["LocalEngine", "LocalRun", "fuzz_locally", "play_locally"]
