"""A signal stops ``jhyap simulate --jobs 2`` at once, and no pool worker outlives it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import pytest

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
]

JHYAP = [sys.executable, "-m", "conformance"]
GAMES = ["simulate", "dashain", "--games", "200000", "--jobs", "2"]


def _default_interrupt() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # as a shell starts a foreground command


def _workers(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as children:
            return [int(word) for word in children.read().split()]
    except OSError:
        return []


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _started() -> tuple[subprocess.Popen[str], list[int]]:
    leader = subprocess.Popen(
        [*JHYAP, *GAMES],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_default_interrupt,
    )
    deadline = time.monotonic() + 60
    while len(_workers(leader.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    workers = _workers(leader.pid)
    assert len(workers) == 2
    time.sleep(1)  # the workers are playing
    return leader, workers


def _gone(workers: list[int], within: float) -> list[int]:
    deadline = time.monotonic() + within
    while any(_running(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    alive = [w for w in workers if _running(w)]
    for w in alive:
        os.kill(w, signal.SIGKILL)
    return alive


@pytest.mark.parametrize(
    ("signum", "group", "status", "line"),
    [
        (signal.SIGINT, True, 130, "jhyap simulate: interrupted\n"),
        (signal.SIGTERM, False, 143, "jhyap simulate: stopped by SIGTERM\n"),
        (signal.SIGHUP, False, 129, "jhyap simulate: stopped by SIGHUP\n"),
    ],
)
def test_a_signal_stops_the_pool_within_seconds(
    signum: int, group: bool, status: int, line: str
) -> None:
    leader, workers = _started()
    if group:
        os.killpg(leader.pid, signum)  # Ctrl-C reaches the whole process group
    else:
        os.kill(leader.pid, signum)
    started = time.monotonic()
    try:
        _, err = leader.communicate(timeout=15)
    finally:
        if leader.poll() is None:
            os.killpg(leader.pid, signal.SIGKILL)
            leader.wait()
    assert time.monotonic() - started < 15
    # stderr is a pipe: the progress log may come first, the signal's line comes last.
    *progress, last = err.splitlines(keepends=True)
    assert (leader.returncode, last) == (status, line)
    assert all(re.fullmatch(r"jhyap simulate: played \d+/200000 games\n", p) for p in progress)
    assert _gone(workers, 5) == []


def test_no_pool_worker_outlives_a_killed_leader() -> None:
    leader, workers = _started()
    leader.kill()
    leader.wait()
    leader.stderr.close()  # type: ignore[union-attr]
    # At once: without the parent-death signal each worker plays on until its batch of
    # games is done and its result finds no reader (seconds, minutes on a loaded machine).
    assert _gone(workers, 0.5) == []
