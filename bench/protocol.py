"""The protocol path: requests per second as a share of the echo bound, at the same moment.

Run: python bench/protocol.py [--rounds R] [--round-trips N]

Each round measures, one right after the other (so that they see the same machine):
1. the echo bound: round trips/s over bare pipes to bench/echo_engine.py (write a line,
   read a line, no checks): the most any client and engine could do one at a time;
2. the reference engine's ``state``, one request at a time through the harness's
   EngineClient (seq bookkeeping, the unrequested-line check, decoding, the ok/error check);
3. the same ``state`` requests sent ahead, a window of 8 in flight (EngineClient.plan);
4. the whole corpus replayed against the reference engine in this process's harness
   (``run_cases``, one job), with ``--window 1`` (each request waits for the answer
   before it) and with the default window: requests/s, counted.

Shares are each figure's requests/s over the echo bound of its round; the medians over
the rounds are printed, and the ratio window/no window of the corpus's wall time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness import (  # noqa: E402  (bench/harness.py)
    REFERENCE,
    bare_round_trips,
    passed_count,
    shipped_cases,
    start_table,
)

from conformance.harness.ahead import changes_nothing  # noqa: E402
from conformance.harness.client import EngineClient  # noqa: E402
from conformance.harness.runner import RunConfig, run_cases  # noqa: E402
from conformance.harness.settings import DEFAULT_WINDOW  # noqa: E402


class CountingClient(EngineClient):
    """An EngineClient that counts the requests it answers."""

    sent = 0

    def send(self, message: Mapping[str, Any], *, timeout: float | None = None) -> dict[str, Any]:
        CountingClient.sent += 1
        return super().send(message, timeout=timeout)

    def send_raw(self, line: bytes, *, timeout: float | None = None) -> dict[str, Any]:
        CountingClient.sent += 1
        return super().send_raw(line, timeout=timeout)


def state_loop(count: int, window: int) -> float:
    """Seconds per ``state`` request to the reference engine, ``window`` in flight."""
    with EngineClient(REFERENCE, timeout=10, cwd=str(ROOT)) as client:
        start_table(client)
        message = {"cmd": "state"}

        def upcoming() -> Iterator[Mapping[str, Any]]:
            for _ in range(count):
                yield message

        client.request("state")
        start = time.perf_counter()
        client.plan(upcoming(), window, changes_nothing)
        for _ in range(count):
            client.send(message)
        return (time.perf_counter() - start) / count


def corpus(window: int) -> tuple[float, int, int]:
    """Seconds for the corpus, its requests, and the cases that passed."""
    import conformance.harness.runner as runner

    cases = shipped_cases()
    original = runner.EngineClient
    runner.EngineClient = CountingClient  # type: ignore[misc]
    CountingClient.sent = 0
    try:
        start = time.perf_counter()
        result = run_cases(cases, RunConfig(engine=REFERENCE, jobs=1, window=window))
        elapsed = time.perf_counter() - start
    finally:
        runner.EngineClient = original  # type: ignore[misc]
    return elapsed, CountingClient.sent, passed_count(result)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--round-trips", type=int, default=4000)
    args = parser.parse_args()
    n = args.round_trips
    rows: dict[str, list[float]] = {}
    walls: dict[int, list[float]] = {1: [], DEFAULT_WINDOW: []}
    counts: dict[int, tuple[int, int]] = {}
    for _ in range(args.rounds):
        echo = 1 / bare_round_trips(n)
        rows.setdefault("echo bound (bare pipes)", []).append(echo)
        for window in (1, DEFAULT_WINDOW):
            rate = 1 / state_loop(n, window)
            rows.setdefault(f"state, window {window}", []).append(rate / echo)
        for window in (1, DEFAULT_WINDOW):
            elapsed, sent, passed = corpus(window)
            walls[window].append(elapsed)
            counts[window] = (sent, passed)
            rows.setdefault(f"corpus, window {window}", []).append(sent / elapsed / echo)
    print(f"python {sys.version.split()[0]}; medians of {args.rounds} rounds")
    echo = statistics.median(rows.pop("echo bound (bare pipes)"))
    print(f"echo bound: {echo:,.0f} round trips/s")
    for name, shares in rows.items():
        share = statistics.median(shares)
        print(f"{name:<20} {share * echo:>9,.0f} requests/s  share of the echo bound {share:.2f}")
    for window, (sent, passed) in counts.items():
        print(
            f"corpus, window {window}: {sent} requests, {passed} cases passed, "
            f"{statistics.median(walls[window]):.2f} s"
        )
    ratio = statistics.median(a / b for a, b in zip(walls[DEFAULT_WINDOW], walls[1], strict=True))
    print(f"corpus wall time, window {DEFAULT_WINDOW} / window 1: {ratio:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
