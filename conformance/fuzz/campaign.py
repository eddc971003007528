"""A fuzzing run: many seeded games over ``jobs`` engine pairs, then the first divergence
shrunk, written as a transcript and checked with a real replay.

Game ``g`` of a run is fully determined by the run's seed and ``g`` (its profile is the
``g``-th of the list, round robin), so the same seed gives the same games whatever the
number of jobs; with several jobs the reported divergence is still the one of the lowest
game number, because games are handed out in order and the run waits for lower ones.
"""

from __future__ import annotations

import random
import shlex
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reference_engine.profile import resolve

from ..harness.client import EngineClient, EngineError, EngineUnusable
from ..harness.replay import PASSED, Outcome, replay
from ..harness.runner import run_each
from ..spec.transcript import load_transcript
from .driver import (
    DEFAULT_WINDOW,
    Divergence,
    PipelinedClient,
    ReferenceFailed,
    Unsupported,
    run_plan,
)
from .generate import COUNTERS, Plan, applicable_counters, generate, random_spec
from .shrink import DEFAULT_BUDGET, Shrunk, shrink
from .writer import (
    KnownDivergence,
    known_entry,
    transcript_data,
    transcript_id,
    write_transcript,
)

Json = Any


@dataclass(frozen=True)
class FuzzConfig:
    """What to fuzz and how. ``profiles`` are ids of ``documents``; ``names`` says how the
    user named each (a shipped id or a file), for the commands printed."""

    engine: str
    reference: str
    documents: Mapping[str, Mapping[str, Json]]
    profiles: tuple[str, ...]
    names: Mapping[str, str] = field(default_factory=dict)
    engine_env: Mapping[str, str] | None = None
    reference_env: Mapping[str, str] | None = None
    games: int | None = None
    seconds: float | None = None
    seed: int = 0
    seats: int | None = None
    jobs: int = 1
    window: int = DEFAULT_WINDOW
    timeout: float = 10.0
    known: tuple[KnownDivergence, ...] = ()
    out: Path | None = None
    shrink_budget: int = DEFAULT_BUDGET


@dataclass
class ProfileStats:
    games: int = 0
    requests: int = 0
    unsupported: int = 0
    coverage: Counter[str] = field(default_factory=Counter)


@dataclass(frozen=True)
class Finding:
    """The first divergence of a run, shrunk and written."""

    game: int
    profile: str
    found: Divergence
    found_requests: int  # the plan's length when found
    shrunk: Shrunk
    transcript: Path | None
    data: Mapping[str, Json]
    verified: tuple[str, ...]  # what the replays of the written transcript showed
    verified_ok: bool
    find_seconds: float
    shrink_seconds: float


@dataclass
class FuzzResult:
    stats: dict[str, ProfileStats]
    games: int
    requests: int
    seconds: float
    finding: Finding | None = None
    known_hits: Counter[str] = field(default_factory=Counter)
    unsupported: dict[str, str] = field(default_factory=dict)  # profile -> engine's message
    reference_problems: list[str] = field(default_factory=list)

    @property
    def requests_per_second(self) -> float:
        return self.requests / self.seconds if self.seconds > 0 else 0.0

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else 0.0


Progress = Callable[[FuzzResult], None]


def game_seed(seed: int, game: int) -> int:
    return random.Random(f"jhyap-fuzz:{seed}:{game}").randrange(1 << 62)


def plan_for(config: FuzzConfig, game: int) -> Plan:
    """The plan of game ``game`` of a run."""
    profile = config.profiles[game % len(config.profiles)]
    spec = random_spec(config.documents, profile, game_seed(config.seed, game), config.seats)
    return generate(config.documents[profile], spec)


def _transfer(plan: Plan) -> bool:
    return bool(plan.requests[0].message["profile"]["rules"]["scoring"]["kind"] == "transfer")


class EnginePair:
    """The engine under test and the reference, each a protocol subprocess."""

    def __init__(self, config: FuzzConfig) -> None:
        self.config = config
        self.engine: PipelinedClient | None = None
        self.reference: PipelinedClient | None = None

    def _start(self, command: str, env: Mapping[str, str] | None) -> PipelinedClient:
        client = PipelinedClient(command, timeout=self.config.timeout, env=env)
        try:
            client.handshake()
        except BaseException:
            client.close(graceful=False)
            raise
        return client

    def connect(self) -> tuple[PipelinedClient, PipelinedClient]:
        if self.reference is None:
            try:
                self.reference = self._start(self.config.reference, self.config.reference_env)
            except EngineUnusable as exc:
                raise ReferenceFailed(f"the reference engine is unusable: {exc}") from None
        if self.engine is None:
            self.engine = self._start(self.config.engine, self.config.engine_env)
        return self.engine, self.reference

    def run(self, plan: Plan) -> Divergence | Unsupported | None:
        engine, reference = self.connect()
        try:
            return run_plan(
                engine, reference, plan, transfer=_transfer(plan), window=self.config.window
            )
        finally:
            if engine.broken is not None or not engine.alive:
                self.engine = None
                engine.close(graceful=False)
            if reference.broken is not None or not reference.alive:
                self.reference = None
                reference.close(graceful=False)

    def reference_answers(self, plan: Plan) -> list[dict[str, Json]]:
        _, reference = self.connect()
        answers: list[dict[str, Json]] = []
        window = self.config.window
        for begin in range(0, len(plan.requests), window):
            chunk = plan.requests[begin : begin + window]
            got, error = reference.collect(reference.post(chunk), chunk)
            if error is not None:
                raise ReferenceFailed(f"the reference engine failed: {error}")
            answers.extend(got)
        return answers

    def close(self, graceful: bool = True) -> None:
        for client in (self.engine, self.reference):
            if client is not None:
                client.close(graceful=graceful and client.broken is None)
        self.engine = self.reference = None


def fuzz(config: FuzzConfig, progress: Progress | None = None) -> FuzzResult:
    """Play the run's games; shrink and write the first divergence not known."""
    began = time.monotonic()
    result = FuzzResult({p: ProfileStats() for p in config.profiles}, 0, 0, 0.0)
    lock = threading.Lock()
    state: dict[str, Any] = {"next": 0, "found": None}
    found: list[tuple[int, Plan, Divergence, float]] = []
    failures: list[BaseException] = []
    stop = threading.Event()
    jobs = max(1, config.jobs)
    pairs = [EnginePair(config) for _ in range(jobs)]

    def take() -> int | None:
        with lock:
            game = state["next"]
            if stop.is_set() or (config.games is not None and game >= config.games):
                return None
            if config.seconds is not None and time.monotonic() - began >= config.seconds:
                return None
            if state["found"] is not None and game > state["found"]:
                return None
            state["next"] = game + 1
            return int(game)

    def work(pair: EnginePair) -> None:
        try:
            while (game := take()) is not None:
                plan = plan_for(config, game)
                outcome = pair.run(plan)
                with lock:
                    stats = result.stats[plan.profile]
                    sent = len(plan.requests)
                    if isinstance(outcome, Divergence):
                        sent = outcome.index + 1
                    stats.requests += sent
                    result.requests += sent
                    result.games += 1
                    if plan.invariant_problems:
                        result.reference_problems.extend(plan.invariant_problems)
                    if isinstance(outcome, Unsupported):
                        stats.unsupported += 1
                        result.unsupported.setdefault(plan.profile, outcome.message)
                    else:
                        stats.games += 1
                        stats.coverage.update(plan.coverage)
                    if isinstance(outcome, Divergence):
                        entry = known_entry(config.known, outcome.signature)
                        if entry is not None:
                            result.known_hits[outcome.signature] += 1
                        else:
                            found.append((game, plan, outcome, time.monotonic() - began))
                            if state["found"] is None or game < state["found"]:
                                state["found"] = game
                    result.seconds = time.monotonic() - began
                    if progress is not None:
                        progress(result)
        except BaseException as exc:
            with lock:
                failures.append(exc)
            stop.set()

    try:
        pairs[0].connect()  # an unusable engine stops the run before any game
        run_each(work, pairs, "jhyap-fuzz")
        result.seconds = time.monotonic() - began
        if failures:
            raise failures[0]
        if found:
            game, plan, divergence, when = min(found, key=lambda f: f[0])
            result.finding = _shrink_and_write(config, pairs[0], game, plan, divergence, when)
    finally:
        stop.set()
        for pair in pairs:
            pair.close(graceful=not failures)
    return result


def commands(config: FuzzConfig, game: int, profile: str, ident: str) -> tuple[str, str]:
    """The fuzz command that finds game ``game`` again, and the run command replaying it."""
    named = [config.names.get(p, p) for p in config.profiles]
    rerun = ["jhyap", "fuzz", "--engine", config.engine]
    for name in named:
        rerun += ["--profile", name]
    rerun += ["--seed", str(config.seed), "--games", str(game + 1)]
    if config.seats is not None:
        rerun += ["--seats", str(config.seats)]
    out = str(config.out) if config.out is not None else "."
    replay_words = ["jhyap", "run", "--engine", config.engine, "--transcripts", out, "-k", ident]
    replay_words += ["--profile", config.names.get(profile, profile)]
    return shlex.join(rerun), shlex.join(replay_words)


def _shrink_and_write(
    config: FuzzConfig,
    pair: EnginePair,
    game: int,
    plan: Plan,
    divergence: Divergence,
    find_seconds: float,
) -> Finding:
    began = time.monotonic()
    shrunk = shrink(
        config.documents, plan, divergence, pair.run, config.shrink_budget, config.profiles
    )
    answers = pair.reference_answers(shrunk.plan)
    profile = shrunk.plan.profile
    ident = transcript_id(profile, config.seed, game)
    rerun, replay_command = commands(config, game, profile, ident)
    data = transcript_data(
        config.documents[profile],
        shrunk.plan,
        answers,
        shrunk.divergence,
        seed=config.seed,
        game=game,
        engine=config.engine,
        rerun=rerun,
        replay=replay_command,
    )
    shrink_seconds = time.monotonic() - began
    path = None
    verified: tuple[str, ...] = ()
    verified_ok = False
    if config.out is not None:
        path = write_transcript(config.out, data)
        verified, verified_ok = verify(config, path, profile)
    return Finding(
        game,
        plan.profile,
        divergence,
        len(plan.requests),
        shrunk,
        path,
        data,
        verified,
        verified_ok,
        find_seconds,
        shrink_seconds,
    )


def replay_file(
    command: str,
    env: Mapping[str, str] | None,
    path: Path,
    documents: Mapping[str, Json],
    profile: str,
    timeout: float = 10.0,
) -> Outcome:
    """Replay one transcript file under ``profile`` on a fresh engine process."""
    transcript = load_transcript(path, documents)
    resolved = resolve(documents[profile], transcript.options)
    with EngineClient(command, timeout=timeout, env=env) as client:
        info = client.handshake()
        return replay(client, info, transcript, profile, resolved)


def verify(config: FuzzConfig, path: Path, profile: str) -> tuple[tuple[str, ...], bool]:
    """Whether the written transcript validates, fails against the engine and passes against
    the reference; one line per check."""
    lines = []
    try:
        against_reference = replay_file(
            config.reference, config.reference_env, path, config.documents, profile, config.timeout
        )
        against_engine = replay_file(
            config.engine, config.engine_env, path, config.documents, profile, config.timeout
        )
    except (EngineError, ValueError, Exception) as exc:  # an invalid file is a suite bug
        return (f"the transcript could not be replayed: {exc}",), False
    ok = against_reference.status == PASSED and against_engine.status != PASSED
    lines.append(f"against the reference: {against_reference.status}")
    lines.append(
        f"against the engine: {against_engine.status}"
        + (
            f" at step {against_engine.step}: {against_engine.reason}"
            if against_engine.step
            else ""
        )
    )
    return tuple(lines), ok


def never_reached(config: FuzzConfig, result: FuzzResult) -> dict[str, list[str]]:
    """Per profile, the coverage counters that stayed at zero (of those it can reach)."""
    missing = {}
    for profile in config.profiles:
        stats = result.stats[profile]
        possible = applicable_counters(config.documents[profile])
        missing[profile] = [c for c in COUNTERS if c in possible and not stats.coverage[c]]
    return missing


def plans_equal(a: Sequence[Plan], b: Sequence[Plan]) -> bool:
    return [[r.body for r in p.requests] for p in a] == [[r.body for r in p.requests] for p in b]


__all__ = [
    "EnginePair",
    "Finding",
    "FuzzConfig",
    "FuzzResult",
    "ProfileStats",
    "fuzz",
    "game_seed",
    "never_reached",
    "plan_for",
    "verify",
]
