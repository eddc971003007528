"""Engine pairs, and a pool of them that games and shrink candidates share.

Each of ``jobs`` worker threads owns one :class:`EnginePair` (the engine under test and
the reference, each a protocol subprocess) and takes tasks from one priority queue:
shrink candidates (priority 0) before games (priority 1), so that a divergence being
shrunk gets every pair as soon as each finishes the game it is playing.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import queue
import threading
from collections.abc import Callable, Mapping, Sequence, Set
from concurrent.futures import Future
from typing import Any, TypeVar

from ..harness.client import EngineUnusable
from ..spec.json_types import Json
from .config import FuzzConfig
from .driver import Divergence, GameDropped, PipelinedClient, ReferenceFailed, Unsupported, run_plan
from .plan import Plan

T = TypeVar("T")
CANDIDATE, GAME = 0, 1  # task priorities


def transfer_scoring(plan: Plan) -> bool:
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

    def run(
        self,
        plan: Plan,
        stop: Callable[[], bool] | None = None,
        compare_from: int = 0,
        masked: Set[str] = frozenset(),
        carry: Callable[[Divergence], bool] | None = None,
    ) -> Divergence | Unsupported | None:
        """Play ``plan`` on both engines; ``stop`` may drop it, ``compare_from``,
        ``masked`` and ``carry`` carry a game on (see :func:`run_plan`)."""
        if stop is not None and stop():
            raise GameDropped  # before starting any engine
        engine, reference = self.connect()
        try:
            return run_plan(
                engine,
                reference,
                plan,
                transfer=transfer_scoring(plan),
                window=self.config.window,
                check_schema=self.config.check_schema,
                stop=stop,
                compare_from=compare_from,
                masked=masked,
                carry=carry,
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


def _runner(plan: Plan) -> Callable[[EnginePair], Divergence | Unsupported | None]:
    return lambda pair: pair.run(plan)


_Task = tuple[int, int, Callable[[EnginePair], Any] | None, "Future[Any] | None"]


class PairPool:
    """``size`` engine pairs, each served by a thread; tasks by priority, then in order."""

    def __init__(self, config: FuzzConfig, size: int) -> None:
        self.pairs = [EnginePair(config) for _ in range(max(1, size))]
        self._queue: queue.PriorityQueue[_Task] = queue.PriorityQueue()
        self._order = itertools.count()
        # The first pair serves at once; the others start their engines a few at a time
        # once it has served a task, and take tasks only when started: with many jobs on
        # few cores, starting every process at once would outlast a short run, and the
        # game the run waits for would wait for its engines behind all the others.
        self._first_served = threading.Event()
        self._closing = threading.Event()
        self._starting = threading.Semaphore(max(2, os.cpu_count() or 1))
        self._threads = [
            threading.Thread(
                target=self._serve, args=(pair, i > 0), name=f"jhyap-fuzz-{i}", daemon=True
            )
            for i, pair in enumerate(self.pairs)
        ]
        for thread in self._threads:
            thread.start()

    @property
    def width(self) -> int:
        return len(self.pairs)

    def _start(self, pair: EnginePair) -> bool:
        """Start the pair's engines after the first pair served; False when closing."""
        while not self._first_served.wait(timeout=0.05):
            if self._closing.is_set():
                return False
        while not self._starting.acquire(timeout=0.05):
            if self._closing.is_set():
                return False
        try:
            if not self._closing.is_set():
                # A failure here is met again, and told, by the pair's first task.
                with contextlib.suppress(Exception):
                    pair.connect()
        finally:
            self._starting.release()
        return not self._closing.is_set()

    def _serve(self, pair: EnginePair, later: bool) -> None:
        if later and not self._start(pair):
            return
        while True:
            _, _, task, future = self._queue.get()
            if task is None or future is None:
                return
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(task(pair))
            except BaseException as exc:
                future.set_exception(exc)
            finally:
                self._first_served.set()

    def submit(self, task: Callable[[EnginePair], T], priority: int = GAME) -> Future[T]:
        future: Future[T] = Future()
        self._queue.put((priority, next(self._order), task, future))
        return future

    def run_all(self, plans: Sequence[Plan]) -> list[Divergence | Unsupported | None]:
        """Every plan played on the pairs at once (shrink candidates); results in order."""
        futures = [self.submit(_runner(plan), CANDIDATE) for plan in plans]
        return [f.result() for f in futures]

    def close(self, graceful: bool = True) -> None:
        self._closing.set()
        while True:  # tasks not begun are dropped
            try:
                _, _, _, pending = self._queue.get_nowait()
            except queue.Empty:
                break
            if pending is not None:
                pending.cancel()
        for _ in self._threads:
            self._queue.put((2, next(self._order), None, None))
        for thread in self._threads:
            thread.join(timeout=30)
        # Every pair at once: a graceful stop waits for each engine to exit.
        closers = [
            threading.Thread(target=pair.close, args=(graceful,), daemon=True)
            for pair in self.pairs
            if pair.engine is not None or pair.reference is not None
        ]
        for closer in closers:
            closer.start()
        for closer in closers:
            closer.join(timeout=30)


__all__ = ["CANDIDATE", "GAME", "EnginePair", "PairPool", "transfer_scoring"]
