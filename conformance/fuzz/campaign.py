"""A fuzzing campaign: seeded games over ``jobs`` engine pairs, every distinct divergence
class found, each shrunk once, written and checked with real replays.

Game ``g`` is fully determined by the run's seed, ``g`` and the coverage of the games
before ``g - LAG`` (its profile is the ``g``-th of the list, round robin; the steering
aims it at counters those games left at zero). Results are taken in game order and a game
is handed out only once every game ``LAG`` before it is taken, so the same seed gives the
same games, and the same findings in the same order, whatever the number of jobs.

A game is carried on past its divergences (see :mod:`.carry`): it steers away from a
divergence on a choice, and goes on past one in what the engine reports, so that the
rest of the game is still compared; each divergence it met is counted against its class
(known, found before, or new: shrunk and filed), and the coverage counters count what
the game reached before it stopped, or all of it when it reached its end.

``seconds`` bounds the whole run, shrinking and checking included: no game is handed out
after it, and each shrink ends by it (and by its find time plus ``shrink_grace``).
"""

from __future__ import annotations

import json
import random
import shlex
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence, Set
from concurrent.futures import Future, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from conformance.spec.wording import plural

from ..spec.json_types import Json
from .carry import GameRun, play_through, stopping_at_first
from .config import FuzzConfig
from .counters import COUNTERS, applicable_counters
from .driver import Divergence, GameDropped, Unsupported
from .generate import Plan, generate, random_spec
from .pool import CANDIDATE, GAME, EnginePair, PairPool
from .shrink import Reserve, Shrunk, shrink, transcribable, truncated
from .steer import steer
from .verify import verify_and_write
from .writer import involved_clauses, known_entry, transcript_id

LAG = 32  # games in flight at most; steering sees the games this many before
VERIFY_RESERVE = (
    5.0  # seconds kept at the end of a timed run (and of a shrink) to check a transcript
)
VERIFY_PER_REQUEST = 0.01  # and this much more per request of the unshrunk plan


@dataclass
class ProfileStats:
    games: int = 0
    requests: int = 0
    unsupported: int = 0  # games the engine declined (skipped: not divergences)
    applicable: tuple[str, ...] = ()  # the counters the profile can reach
    coverage: Counter[str] = field(default_factory=Counter)
    declined: Counter[str] = field(default_factory=Counter)  # the engine's messages
    # Option values (``name=value``) of the tables the engine declined, and accepted.
    declined_values: Counter[str] = field(default_factory=Counter)
    accepted_values: set[str] = field(default_factory=set)
    ended: int = 0  # games played to the end of their plan
    stopped: int = 0  # games stopped at a divergence fuzz could not see past
    carried: int = 0  # divergences a game went on past (steered away from, or carried)
    stopped_at: Counter[str] = field(default_factory=Counter)  # signatures that stopped games

    def never_accepted(self) -> list[str]:
        """Option values of declined tables that no accepted table had."""
        return sorted(v for v in self.declined_values if v not in self.accepted_values)


@dataclass(frozen=True)
class Finding:
    """One divergence class of a run, shrunk and written."""

    game: int
    profile: str  # where it diverges (the shrunk plan's profile: the same as found)
    found: Divergence
    found_requests: int  # the plan's length when found
    shrunk: Shrunk
    transcript: Path | None
    data: Mapping[str, Json]
    verified: tuple[str, ...]  # what the checks of the written transcript showed
    verified_ok: bool
    find_seconds: float  # fuzzing time (earlier shrinks left out) until it was found
    shrink_seconds: float  # shrinking, writing and checking
    found_at: float = 0.0  # seconds into the run


@dataclass
class FuzzResult:
    stats: dict[str, ProfileStats]
    games: int
    requests: int
    seconds: float
    findings: list[Finding] = field(default_factory=list)
    known_hits: Counter[str] = field(default_factory=Counter)
    repeats: Counter[str] = field(default_factory=Counter)  # later games per found class
    unsupported: dict[str, str] = field(default_factory=dict)  # profile -> engine's message
    reference_problems: list[str] = field(default_factory=list)
    shrinking_seconds: float = 0.0
    capped: bool = False  # stopped at max_findings
    activity: str = ""  # what the run does now, for progress lines

    @property
    def finding(self) -> Finding | None:
        """The first finding (of the lowest game), if any."""
        return self.findings[0] if self.findings else None

    @property
    def requests_per_second(self) -> float:
        return self.requests / self.seconds if self.seconds > 0 else 0.0

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else 0.0


Progress = Callable[[FuzzResult], None]


def game_seed(seed: int, game: int) -> int:
    return random.Random(f"jhyap-fuzz:{seed}:{game}").randrange(1 << 62)


def plan_for(config: FuzzConfig, game: int, missing: Sequence[str] = ()) -> Plan:
    """The plan of game ``game`` of a run, aimed at the ``missing`` counters."""
    profile = config.profiles[game % len(config.profiles)]
    seed = game_seed(config.seed, game)
    spec = random_spec(config.documents, profile, seed, config.seats)
    if missing:
        steering = random.Random(f"steer:{seed}")
        spec = steer(
            spec, config.documents[profile], missing, steering, game // len(config.profiles)
        )
        if config.seats is not None:
            spec = replace(spec, seats=config.seats)
    return generate(config.documents[profile], spec)


def play_game(config: FuzzConfig, pair: EnginePair, plan: Plan, stop: threading.Event) -> GameRun:
    """Play ``plan`` on ``pair``, carried on past its divergences (unless
    ``config.carry_on`` is off)."""
    if not config.carry_on:
        return stopping_at_first(plan, pair.run(plan, stop=stop.is_set))

    def play(
        played: Plan, compare_from: int, masked: Set[str], carry: Callable[[Divergence], bool]
    ) -> Divergence | Unsupported | None:
        return pair.run(
            played, stop=stop.is_set, compare_from=compare_from, masked=masked, carry=carry
        )

    def known(signature: str) -> bool:
        return known_entry(config.known, signature) is not None

    return play_through(play, plan, config.documents[plan.profile], known)


def _game_task(
    config: FuzzConfig, game: int, missing: Sequence[str], stopped: threading.Event
) -> Any:
    def task(pair: EnginePair) -> GameRun:
        if stopped.is_set():
            raise GameDropped
        return play_game(config, pair, plan_for(config, game, missing), stopped)

    return task


class _Campaign:
    def __init__(self, config: FuzzConfig, progress: Progress | None) -> None:
        self.config = config
        self.progress = progress
        self.began = time.monotonic()
        self.deadline = self.began + config.seconds if config.seconds is not None else None
        self.result = FuzzResult({p: ProfileStats() for p in config.profiles}, 0, 0, 0.0)
        self.applicable = {p: applicable_counters(config.documents[p]) for p in config.profiles}
        for profile, stats in self.result.stats.items():
            stats.applicable = self.applicable[profile]
        self.found: set[str] = set()
        # The games handed out and not yet taken, by position (see run).
        self.flying: dict[int, Future[GameRun]] = {}
        # Set at the deadline, or once the run is sure to stop: games not finished then
        # are dropped, and no engine is started for them (with many jobs on few cores, a
        # game in flight can take many times the run's time to finish).
        self.stopped = threading.Event()

    def now(self) -> float:
        return time.monotonic() - self.began

    def game_at(self, position: int) -> int:
        """The index of this shard's ``position``-th game."""
        index, count = self.config.shard
        return index - 1 + position * count

    def more_games(self, game: int) -> bool:
        config = self.config
        if self.result.capped or (config.games is not None and game >= config.games):
            return False
        return self.deadline is None or time.monotonic() < self.deadline

    def missing(self, game: int) -> tuple[str, ...]:
        if not self.config.steer:
            return ()
        profile = self.config.profiles[game % len(self.config.profiles)]
        coverage = self.result.stats[profile].coverage
        return tuple(c for c in self.applicable[profile] if not coverage[c])

    def tell(self, activity: str = "") -> None:
        self.result.activity = activity
        self.result.seconds = self.now()
        if self.progress is not None:
            self.progress(self.result)

    def run(self) -> FuzzResult:
        config, result = self.config, self.result
        pool = PairPool(config, config.jobs)
        failed = False
        try:
            # An unusable engine stops the run before any game.
            pool.submit(lambda pair: pair.connect(), CANDIDATE).result()
            flying = self.flying
            handed = taken = 0
            stopped = self.stopped
            while True:
                while handed < taken + LAG and self.more_games(self.game_at(handed)):
                    game = self.game_at(handed)
                    task = _game_task(config, game, self.missing(game), stopped)
                    flying[handed] = pool.submit(task, GAME)
                    handed += 1
                if taken in flying and self.deadline is not None:
                    wait([flying[taken]], timeout=max(0.0, self.deadline - time.monotonic()))
                if self.deadline is not None and time.monotonic() >= self.deadline:
                    if taken not in flying or not flying[taken].done():
                        stopped.set()
                    for future in flying.values():
                        future.cancel()  # games not begun are dropped at the deadline
                if taken not in flying or flying[taken].cancelled():
                    break
                try:
                    played = flying.pop(taken).result()
                except GameDropped:
                    break
                self.take(pool, self.game_at(taken), played)
                taken += 1
                if result.capped:
                    break
            for future in flying.values():
                future.cancel()
        except BaseException:
            failed = True
            raise
        finally:
            result.seconds = self.now()
            pool.close(graceful=not failed)
        return result

    def take(self, pool: PairPool, game: int, played: GameRun) -> None:
        result = self.result
        plan, outcome = played.plan, played.end
        stats = result.stats[plan.profile]
        sent = played.requests
        stats.requests += sent
        result.requests += sent
        result.games += 1
        result.reference_problems.extend(plan.invariant_problems)
        if isinstance(outcome, Unsupported):
            stats.unsupported += 1
            result.unsupported.setdefault(plan.profile, outcome.message)
            stats.declined[outcome.message] += 1
            if outcome.what == "start":
                stats.declined_values.update(_option_words(plan))
        else:
            if plan.start_error is None:
                stats.accepted_values.update(_option_words(plan))
            stats.games += 1
            stats.coverage.update(played.coverage())
            stopped = played.stopped
            stats.ended += stopped is None
            stats.stopped += stopped is not None
            if stopped is not None:
                stats.stopped_at[stopped.signature] += 1
            stats.carried += played.carried
        self.tell()
        # Each class met with nothing carried before it, once a game, in the order met.
        filed = {m.divergence.signature: m for m in reversed(played.met) if not m.after}
        for signature in played.signatures():
            met = filed[signature]
            if known_entry(self.config.known, signature) is not None:
                result.known_hits[signature] += 1
            elif signature in self.found:
                result.repeats[signature] += 1
            elif not result.capped:
                self.found.add(signature)
                if len(result.findings) + 1 >= self.config.max_findings:
                    # The run stops once this class is filed: no game after this one is
                    # taken, so none is played on (between the shrink's batches, a pair
                    # would start one, for nothing; one begun is dropped between windows).
                    self.stopped.set()
                    for future in self.flying.values():
                        future.cancel()
                result.findings.append(self.file(pool, game, met.plan, met.divergence))
                if len(result.findings) >= self.config.max_findings:
                    result.capped = True

    def late(self, game: int, plan: Plan, divergence: Divergence) -> Finding:
        """A class found when the run's time is spent: listed with its rerun command, not
        shrunk, written or checked (a file is written only once checked)."""
        config = self.config
        found_at = self.now()
        ident = transcript_id(plan.profile, config.seed, game)
        rerun, _ = commands(config, game, plan.profile, ident)
        data = {
            "clauses": involved_clauses(config.documents[plan.profile], divergence),
            "fuzz": {"rerun": rerun, "replay": "(none: no transcript was written)"},
        }
        shrunk = Shrunk(truncated(plan, divergence), divergence, 0, 0, "the time limit")
        note = ("found as --time ran out: not shrunk, written or checked; rerun to file it",)
        return Finding(
            game,
            plan.profile,
            divergence,
            len(plan.requests),
            shrunk,
            None,
            data,
            note,
            False,
            found_at - self.result.shrinking_seconds,
            0.0,
            found_at,
        )

    def file(self, pool: PairPool, game: int, plan: Plan, divergence: Divergence) -> Finding:
        """Shrink, write and check one new divergence class."""
        config = self.config
        # Checking replays the transcript twice, one request at a time: its allowance
        # grows with the length.
        reserve = VERIFY_RESERVE + VERIFY_PER_REQUEST * (divergence.index + 1)
        if self.deadline is not None and time.monotonic() >= self.deadline - reserve:
            return self.late(game, plan, divergence)
        found_at = self.now()
        find_seconds = found_at - self.result.shrinking_seconds
        began = time.monotonic()
        # The checks after the shrink (two replays) come out of the same allowance: the
        # time kept for them is measured on the shrink's own replays (the fixed reserve
        # is only the guess before the first is timed).
        deadline = began + max(0.0, find_seconds) + config.shrink_grace
        if self.deadline is not None:
            deadline = min(deadline, self.deadline)
        self.tell(f"shrinking {divergence.signature}: {plural(divergence.index + 1, 'request')}")
        shrunk = shrink(
            config.documents,
            plan,
            divergence,
            pool.run_all,
            config.shrink_budget,
            width=pool.width,
            deadline=deadline,
            report=self.tell,
            reserve=Reserve(requests=divergence.index + 1, prior=reserve),
        )
        self.tell(f"checking the transcript of {divergence.signature}")
        tries = [(shrunk.plan, shrunk.divergence)]
        unshrunk = truncated(plan, divergence)
        cleaned = replace(unshrunk, requests=transcribable(unshrunk.requests))
        for fallback in (cleaned, unshrunk):
            # The cleaned plan even when no longer: a shrink cut short by its time may keep
            # an action before the first deal, which no transcript can hold.
            if all(fallback.requests != t.requests for t, _ in tries) and (
                fallback is cleaned or len(fallback.requests) > len(tries[-1][0].requests)
            ):
                tries.append((fallback, replace(divergence, index=len(fallback.requests) - 1)))
        path, data, verified, ok = verify_and_write(config, pool, game, tries, commands)
        seconds = time.monotonic() - began
        self.result.shrinking_seconds += seconds
        self.tell()
        return Finding(
            game,
            shrunk.plan.profile,
            divergence,
            len(plan.requests),
            shrunk,
            path,
            data,
            verified,
            ok,
            find_seconds,
            seconds,
            found_at,
        )


def _option_words(plan: Plan) -> list[str]:
    return [f"{k}={json.dumps(v)}" for k, v in sorted(plan.spec.options.items())]


def fuzz(config: FuzzConfig, progress: Progress | None = None) -> FuzzResult:
    """Play the run's games; shrink, write and check each new divergence class."""
    return _Campaign(config, progress).run()


def commands(config: FuzzConfig, game: int, profile: str, ident: str) -> tuple[str, str]:
    """The fuzz command that finds game ``game`` again, and the run command replaying it."""
    named = [config.names.get(p, p) for p in config.profiles]
    env: list[str] = []
    for item in config.engine_env_items:
        env += ["--engine-env", item]
    rerun = ["jhyap", "fuzz", "--engine", config.engine, *env]
    for name in named:
        rerun += ["--profile", name]
    rerun += ["--seed", str(config.seed), "--games", str(game + 1)]
    if config.shard != (1, 1):
        rerun += ["--shard", f"{config.shard[0]}/{config.shard[1]}"]
    if not config.steer:
        rerun.append("--no-steer")
    if not config.carry_on:
        rerun.append("--no-carry-on")
    if config.seats is not None:
        rerun += ["--seats", str(config.seats)]
    out = str(config.out) if config.out is not None else "."
    replay_words = ["jhyap", "run", "--engine", config.engine, *env, "--transcripts", out]
    replay_words += ["-k", ident, "--profile", config.names.get(profile, profile)]
    return shlex.join(rerun), shlex.join(replay_words)


def never_reached(config: FuzzConfig, result: FuzzResult) -> dict[str, list[str]]:
    """Per profile, the coverage counters that stayed at zero (of those it can reach)."""
    missing = {}
    for profile in config.profiles:
        stats = result.stats[profile]
        possible = stats.applicable or applicable_counters(config.documents[profile])
        missing[profile] = [c for c in COUNTERS if c in possible and not stats.coverage[c]]
    return missing


__all__ = [
    "GAME",
    "EnginePair",
    "Finding",
    "FuzzConfig",
    "FuzzResult",
    "ProfileStats",
    "commands",
    "fuzz",
    "game_seed",
    "never_reached",
    "plan_for",
]
