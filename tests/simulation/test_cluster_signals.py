"""A signal stops a run on a local Dask cluster within seconds, says so in one line, and
leaves no worker behind: ``simulate --cluster`` and the fuzz campaign. Skipped without Dask."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import descendants

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
]

pytest.importorskip("distributed", reason="the distributed extra is not installed")

SIMULATE = [sys.executable, "-m", "conformance", "simulate", "dashain", "--games", "200000"]
SIMULATE += ["--cluster", "local:2"]
CAMPAIGN = [sys.executable, "-m", "conformance.distributed.campaign", "--cluster", "local:2"]
CAMPAIGN += ["--shards", "2", "--", "--games", "100000", "--profile", "dashain"]


def _default_interrupt() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # as a shell starts a foreground command


def _stat(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()


def _workers(root: int) -> list[int]:
    """The Dask workers under ``root`` that are up: they ignore SIGINT once started."""
    workers = []
    for pid in descendants(root):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                if b"spawn_main" not in cmdline.read():
                    continue
            with open(f"/proc/{pid}/status") as status:
                ignored = next(line for line in status if line.startswith("SigIgn:"))
            if int(ignored.split()[1], 16) & (1 << (signal.SIGINT - 1)):
                workers.append(pid)
        except (OSError, StopIteration):
            continue
    return workers


def _running(pid: int) -> bool:
    try:
        return _stat(pid)[0] != "Z"
    except OSError:
        return False


def _started(argv: list[str]) -> tuple[subprocess.Popen[str], list[int]]:
    leader = subprocess.Popen(
        argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_default_interrupt,
    )
    deadline = time.monotonic() + 120
    while len(_workers(leader.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(_workers(leader.pid)) >= 2
    time.sleep(3)  # the workers are playing
    return leader, descendants(leader.pid)


def _stopped(leader: subprocess.Popen[str], signum: int, group: bool) -> tuple[int, str, float]:
    began = time.monotonic()
    if group:
        os.killpg(leader.pid, signum)  # Ctrl-C reaches the whole process group
    else:
        os.kill(leader.pid, signum)
    try:
        _, err = leader.communicate(timeout=60)
    finally:
        if leader.poll() is None:
            os.killpg(leader.pid, signal.SIGKILL)
            leader.wait()
    return leader.returncode, err, time.monotonic() - began


def _left(processes: list[int]) -> list[int]:
    deadline = time.monotonic() + 5
    while any(_running(p) for p in processes) and time.monotonic() < deadline:
        time.sleep(0.1)
    alive = [p for p in processes if _running(p)]
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    return alive


def test_ctrl_c_stops_a_cluster_simulation_in_one_line() -> None:
    # The workers shared the process group and each printed a KeyboardInterrupt traceback.
    leader, processes = _started(SIMULATE)
    status, err, took = _stopped(leader, signal.SIGINT, group=True)
    assert (status, err) == (130, "jhyap simulate: interrupted\n")
    assert took < 30
    assert _left(processes) == []


@pytest.mark.parametrize(
    ("signum", "group", "status", "line"),
    [
        (signal.SIGINT, True, 130, "interrupted"),
        (signal.SIGTERM, False, 143, "stopped by SIGTERM"),
    ],
)
def test_a_signal_stops_a_fuzz_campaign_in_one_line(
    signum: int, group: bool, status: int, line: str
) -> None:
    # Ctrl-C printed tracebacks (KeyboardInterrupt, asyncio's AllExit); SIGTERM ended it
    # unhandled (-15) with the resource tracker's warning of leaked semaphores.
    leader, processes = _started(CAMPAIGN)
    code, err, took = _stopped(leader, signum, group)
    assert (code, err) == (status, f"python -m conformance.distributed.campaign: {line}\n")
    assert took < 30
    assert _left(processes) == []
