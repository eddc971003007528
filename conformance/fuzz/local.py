"""Fuzzing without subprocesses: the driver's engine interface over engines in this process.

:func:`.driver.run_plan` posts a window of requests to each engine and collects their
answers afterwards; :class:`LocalEngine` does the same over a
:class:`~conformance.harness.inprocess.ReferenceClient` (the reference engine answering in
this process), answering each request when collected. ``around`` wraps each answer: a test
patches the engine under test there (a planted bug) and leaves the reference, answering
through another client, as it is. :func:`fuzz_locally` plays a run's games so, for the
properties that need many games and no process (every drawn profile plays; one bug is
one class; games carried on past a known divergence reach their end).
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence, Set
from contextlib import AbstractContextManager
from dataclasses import dataclass, field

from ..harness.client import EngineError
from ..harness.inprocess import ReferenceClient
from ..spec.json_types import Json
from .campaign import plan_for
from .carry import GameRun, play_through, stopping_at_first
from .config import FuzzConfig
from .counters import applicable_counters
from .driver import Divergence, Unsupported, run_plan
from .plan import Plan, Request
from .pool import transfer_scoring
from .writer import known_entry

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
    """What a local run found: each game, the signatures, the coverage."""

    games: list[GameRun] = field(default_factory=list)
    coverage: Counter[str] = field(default_factory=Counter)

    @property
    def outcomes(self) -> list[Divergence | Unsupported | None]:
        """Each game's first divergence (or the engine declining it), else None."""
        return [game.first for game in self.games]

    @property
    def signatures(self) -> Counter[str]:
        """Games per signature met (with no report carried before it): the classes."""
        return Counter(s for game in self.games for s in game.signatures())

    @property
    def ended(self) -> int:
        return sum(game.ended for game in self.games)

    @property
    def stopped(self) -> int:
        return sum(game.stopped is not None for game in self.games)


def play_locally(
    plan: Plan, around: Around = contextlib.nullcontext
) -> Divergence | Unsupported | None:
    """Send ``plan`` to a local engine wrapped in ``around`` and to the local reference."""
    return run_plan(LocalEngine(around), LocalEngine(), plan, transfer=transfer_scoring(plan))


def play_through_locally(
    plan: Plan,
    document: Mapping[str, Json],
    config: FuzzConfig,
    around: Around = contextlib.nullcontext,
) -> GameRun:
    """Play ``plan`` as a campaign of ``config`` plays it, carried on past its divergences
    (unless ``config.carry_on`` is off), on local engines."""
    if not config.carry_on:
        return stopping_at_first(plan, play_locally(plan, around))
    engine, reference = LocalEngine(around), LocalEngine()
    transfer = transfer_scoring(plan)

    def play(
        played: Plan, compare_from: int, masked: Set[str], carry: Callable[[Divergence], bool]
    ) -> Divergence | Unsupported | None:
        return run_plan(
            engine,
            reference,
            played,
            transfer=transfer,
            compare_from=compare_from,
            masked=masked,
            carry=carry,
        )

    return play_through(play, plan, document, lambda s: known_entry(config.known, s) is not None)


def fuzz_locally(config: FuzzConfig, around: Around = contextlib.nullcontext) -> LocalRun:
    """Play ``config.games`` games of the run (steered as the campaign steers them) on a
    local engine wrapped in ``around`` against the local reference, each carried on past
    its divergences as the campaign carries it; no shrinking."""
    run = LocalRun()
    games = config.games if config.games is not None else 1
    applicable = {p: applicable_counters(config.documents[p]) for p in config.profiles}
    seen: dict[str, Counter[str]] = {p: Counter() for p in config.profiles}
    for game in range(games):
        profile = config.profiles[game % len(config.profiles)]
        missing = tuple(c for c in applicable[profile] if not seen[profile][c])
        plan: Plan = plan_for(config, game, missing if config.steer else ())
        game_run = play_through_locally(plan, config.documents[profile], config, around)
        run.games.append(game_run)
        reached = game_run.coverage()
        seen[profile].update(reached)
        run.coverage.update(reached)
    return run


__all__ = ["LocalEngine", "LocalRun", "fuzz_locally", "play_locally", "play_through_locally"]
