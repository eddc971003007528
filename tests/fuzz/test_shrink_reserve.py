"""The time a shrink keeps for the checks after it is measured on its own replays
(conformance.fuzz.shrink.Reserve), on a fake clock: a loaded machine shrinks for less
time instead of overrunning "find + 30 s"."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from conformance.fuzz.shrink import Reserve, _Shrinker


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _shrinker(clock: Clock, seconds_a_request: float, reserve: Reserve) -> _Shrinker:
    def evaluate(plans: Sequence[Any]) -> list[Any]:
        # the plans of a batch run side by side: the longest one sets the time
        clock.now += seconds_a_request * max(len(p.requests) for p in plans)
        return [None] * len(plans)

    divergence: Any = SimpleNamespace(signature="a difference")
    return _Shrinker(evaluate, 2, 10**9, 30.0, divergence, None, clock, reserve)


def _plan(requests: int) -> Any:
    return SimpleNamespace(requests=[{}] * requests)


def test_before_any_replay_the_prior_is_kept() -> None:
    reserve = Reserve(requests=100, prior=5.0)
    assert reserve.seconds == 5.0
    reserve.timed(2.0, 0)  # nothing measured from an empty plan
    assert reserve.seconds == 5.0


def test_the_slowest_batch_sets_the_reserve() -> None:
    reserve = Reserve(requests=100, prior=5.0)
    reserve.timed(1.0, 50)  # 20 ms a request
    reserve.timed(0.5, 50)  # faster: the slowest stays
    # two replays of 100 requests, at three times the slowest request, and the floor
    assert reserve.seconds == 0.5 + 3.0 * 0.02 * 100 * 2


def test_a_loaded_machine_stops_the_shrink_early_enough_for_the_checks() -> None:
    # seconds a request (powers of two: the sums are exact) and the batches sent by then
    for seconds_a_request, batches_sent in ((1 / 1024, 463), (1 / 64, 21), (1 / 16, 1)):
        clock = Clock()
        reserve = Reserve(requests=100, prior=5.0)
        work = _shrinker(clock, seconds_a_request, reserve)
        batches = 0
        while work.open():
            work.batch([_plan(64), _plan(16)])
            batches += 1
        assert work.stopped == "the time limit"
        # the measured reserve is what the checks get, whatever the load
        kept = 0.5 + 3.0 * seconds_a_request * 100 * 2
        assert reserve.seconds == kept
        assert batches == batches_sent
        assert clock.now >= 30.0 - kept  # no batch began after the shrink's share ran out
        if batches > 1:  # the first began under the prior
            assert clock.now - seconds_a_request * 64 < 30.0 - kept
