"""Seeded games through the Python API, reduced to one record per hand and per game."""

from __future__ import annotations

import contextlib
import ctypes
import os
import random
import signal
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from jhyap_core.vocabulary import EventType, Phase, RoundOutcome
from reference_engine.game import Game
from reference_engine.policies import POLICIES, Policy, TableMemory, left_unfinished, step
from reference_engine.rules import GameEndKind, ScoringKind


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One hand that ended with a call."""

    seats: int  # players in the hand
    turns: int
    reshuffles: int
    caller_position: int  # 0 = the hand's starter, 1 = the next player, ...
    winner_position: int
    winner_policy: str
    called_value: int
    won: bool
    swing: float  # the caller's gain against the average other player, in points
    tally: int  # the change in the caller's own score, counted so that more is better


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game: its hands, and whether it ended by its own rules within the cap."""

    hands: tuple[HandRecord, ...]
    finished: bool
    turns: int
    policy_of_winners: tuple[str, ...]  # the policy names of the winning seats


@dataclass(frozen=True, slots=True)
class SimulationSpec:
    """Everything that decides the games: the same spec and seed give the same records."""

    document: Mapping[str, Any]
    seats: int
    policies: tuple[str, ...]  # by seat, cycled when shorter than the table
    options: Mapping[str, Any]
    max_rounds: int = 50
    max_turns: int = 20_000  # a game still going after this many turns is left unfinished

    def seat_policies(self) -> list[str]:
        return [self.policies[i % len(self.policies)] for i in range(self.seats)]


def game_rng(seed: int | str, index: int) -> random.Random:
    """The generator of game ``index``: independent of how games are split over processes."""
    return random.Random(f"jhyap-simulate:{seed}:{index}")


def play_one(spec: SimulationSpec, seed: int | str, index: int) -> GameRecord:
    """Play game ``index`` of a seeded simulation and record it."""
    rng = game_rng(seed, index)
    names = spec.seat_policies()
    policies: list[Policy] = [POLICIES[name] for name in names]
    game = Game(spec.document, spec.seats, spec.options)
    memory = TableMemory(spec.seats)
    sign = 1 if game.rules.scoring.kind is ScoringKind.TRANSFER else -1
    hands: list[HandRecord] = []
    turns = hand_turns = reshuffles = 0
    order: list[int] = []
    called = 0
    while game.phase is not Phase.GAME_OVER and turns < spec.max_turns:
        if left_unfinished(game, spec.max_rounds):
            break
        _, _, events = step(game, memory, policies, rng, spec.max_rounds)
        for event in events:
            etype = event["type"]
            if etype == EventType.ROUND_STARTED:
                order = list(event["turn_order"])
                hand_turns = reshuffles = 0
            elif etype == EventType.RESHUFFLED:
                reshuffles += 1
            elif etype in (EventType.CALLED, EventType.PICKED):
                hand_turns += 1
                turns += 1
                if etype == EventType.CALLED:
                    called = int(event["value"])
            elif etype == EventType.ROUND_ENDED and event["caller"] is not None:
                # (A hand that ended because the deck ran out had no call: not recorded.)
                caller, winner = event["caller"], event["winner"]
                deltas = event["deltas"]
                others = [deltas[s] for s in order if s != caller]
                swing = sign * (deltas[caller] - sum(others) / len(others))
                hands.append(
                    HandRecord(
                        seats=len(order),
                        turns=hand_turns,
                        reshuffles=reshuffles,
                        caller_position=order.index(caller),
                        winner_position=order.index(winner),
                        winner_policy=names[winner],
                        called_value=called,
                        won=event["outcome"] == RoundOutcome.WON_CALL,
                        swing=swing,
                        tally=sign * deltas[caller],
                    )
                )
    finished = (
        game.phase is Phase.GAME_OVER and game.rules.game_end.kind is not GameEndKind.HOST_ENDS
    )
    winners: tuple[str, ...] = ()
    if game.result is not None:
        winners = tuple(names[s] for s in game.result["winners"])
    return GameRecord(tuple(hands), finished, turns, winners)


def _play_range(args: tuple[SimulationSpec, int | str, range]) -> list[GameRecord]:
    spec, seed, indices = args
    return [play_one(spec, seed, i) for i in indices]


def play_games(
    spec: SimulationSpec,
    games: int | range,
    seed: int | str,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    chunk: int = 25,
) -> list[GameRecord]:
    """Play ``games`` seeded games (a count, or the indices of a shard's games), in game
    order whatever ``jobs`` is."""
    indices = range(games) if isinstance(games, int) else games
    ranges = [indices[start : start + chunk] for start in range(0, len(indices), chunk)]
    records: list[GameRecord] = []
    done = 0

    def collect(batches: Iterator[list[GameRecord]]) -> None:
        nonlocal done
        for batch in batches:
            records.extend(batch)
            done += len(batch)
            if progress is not None:
                progress(done)

    tasks = [(spec, seed, part) for part in ranges]
    if jobs <= 1 or len(tasks) <= 1:
        collect(_play_range(task) for task in tasks)
    else:
        with worker_pool(jobs) as pool:
            collect(pool.map(_play_range, tasks))
    return records


_PR_SET_PDEATHSIG = 1
_STOP_WAIT = 5.0  # seconds a stopped worker has to end before it is killed


def _serve_the_leader(leader: int) -> None:
    """A pool worker's first step: it leaves signals to the leader (Ctrl-C reaches the whole
    process group; the leader stops the pool) and dies with it, even by ``kill -9``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)  # not the leader's handler, inherited by fork
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != leader:  # the leader died before the signal was armed
        os._exit(1)


@contextlib.contextmanager
def worker_pool(jobs: int) -> Iterator[ProcessPoolExecutor]:
    """A process pool of ``jobs`` workers that waits for its tasks when the block ends
    normally, and otherwise (an error, Ctrl-C, SIGTERM) cancels what is queued and ends
    its workers at once: none plays on, and none outlives the leader."""
    pool = ProcessPoolExecutor(
        max_workers=jobs, initializer=_serve_the_leader, initargs=(os.getpid(),)
    )
    try:
        yield pool
    except BaseException:
        stop_pool(pool)
        raise
    pool.shutdown(wait=True)


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel the pool's queued tasks and end its workers now (SIGTERM, then SIGKILL)."""
    workers = list((pool._processes or {}).values())
    # A worker ended while the queue's feeder thread writes to it leaves that thread
    # blocked on a full pipe, and Python before 3.11.7 (Debian's 3.11.2) joins it at exit
    # (the pool's manager thread, then interpreter shutdown): the leader would never exit.
    call_queue = getattr(pool, "_call_queue", None)
    if call_queue is not None:
        call_queue.cancel_join_thread()
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        with contextlib.suppress(OSError, ValueError):
            worker.terminate()
    for worker in workers:
        with contextlib.suppress(OSError, ValueError, AssertionError):
            worker.join(_STOP_WAIT)
            if worker.is_alive():
                worker.kill()
                worker.join(_STOP_WAIT)


def default_seats(document: Mapping[str, Any]) -> int:
    """Four seats, or the nearest count the profile allows."""
    seats = document["rules"]["seats"]
    return max(int(seats["min"]), min(4, int(seats["max"])))


def known_policies() -> Sequence[str]:
    return tuple(POLICIES)
