"""The processes of engines under test: their registry, and the helpers they leave.

Every engine runs in a process group of its own. On Linux the harness makes itself a
child subreaper, so that a helper that leaves the group (``setsid()``, a daemon) becomes
its child when its parent ends; such an orphan is killed and reaped with the engine whose
``JHYAP_ENGINE_ID`` its environment carries (or with every engine, when it carries none).
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import os
import signal
import sys
import threading
import time
from typing import Final, Protocol


class Engine(Protocol):
    """What the registry knows of a running engine."""

    @property
    def pid(self) -> int: ...

    @property
    def engine_id(self) -> str: ...

    def close(self, *, graceful: bool = True) -> int | None: ...


# Strong references: an engine whose client was dropped unclosed must still be found.
LIVE: set[Engine] = set()
LIVE_LOCK = threading.Lock()

_HAVE_PROC = os.path.exists("/proc/self/stat")
ENGINE_ID_VARIABLE: Final = "JHYAP_ENGINE_ID"
ENGINE_IDS = itertools.count(1)
_PR_SET_CHILD_SUBREAPER: Final = 36
_subreaper: bool | None = None


def become_subreaper() -> bool:
    """Make this process adopt its orphaned descendants (Linux); True when it does."""
    global _subreaper
    if _subreaper is None:
        _subreaper = False
        if sys.platform.startswith("linux"):
            with contextlib.suppress(OSError, AttributeError):
                libc = ctypes.CDLL(None, use_errno=True)
                _subreaper = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    return _subreaper


def _processes() -> list[tuple[int, bytes, int, int, int]]:
    """(pid, state, parent, group, session) of every process /proc shows."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    found = []
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 3:
            found.append((int(name), fields[0], int(fields[1]), int(fields[2]), int(fields[3])))
    return found


def _engine_id_of(pid: int) -> str | None:
    """The JHYAP_ENGINE_ID in a process's environment, or None (also when unreadable)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            environ = handle.read()
    except OSError:
        return None
    prefix = ENGINE_ID_VARIABLE.encode() + b"="
    for item in environ.split(b"\0"):
        if item.startswith(prefix):
            return item[len(prefix) :].decode("ascii", "replace")
    return None


def adopted_helpers(engine_id: str) -> list[int]:
    """Orphans this process adopted that belong to engine ``engine_id``.

    An adopted orphan is a child of ours in another session than ours (every engine
    starts a session of its own) that is no engine we started. It belongs to the engine
    whose id its environment carries; one that carries no id, an empty one or the id of
    no engine of ours (it emptied or rewrote its environment) is anyone's, and is counted
    for every engine: nothing an engine started may outlive it by hiding its id.
    """
    if not _HAVE_PROC:
        return []
    with LIVE_LOCK:  # no engine is being started meanwhile (see EngineClient.__init__)
        return _adopted(engine_id, _processes())


def _adopted(engine_id: str, processes: list[tuple[int, bytes, int, int, int]]) -> list[int]:
    """:func:`adopted_helpers` among ``processes``; called under LIVE_LOCK."""
    me, session = os.getpid(), os.getsid(0)
    engines = {client.pid for client in LIVE}
    ours = {client.engine_id for client in LIVE} - {engine_id}
    helpers = []
    for pid, state, parent, _, sid in processes:
        if parent != me or sid == session or pid in engines or state == b"Z":
            continue
        if _engine_id_of(pid) not in ours:
            helpers.append(pid)
    return helpers


def reap_adopted(engine_id: str, timeout: float = 2.0) -> None:
    """Kill and reap the helpers of ``engine_id`` that became our children, and the
    helpers of theirs that become ours as they die."""
    if not become_subreaper():
        return
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        # One look at /proc finds both the live helpers and the ended ones to reap.
        with LIVE_LOCK:
            processes = _processes() if _HAVE_PROC else []
            helpers = _adopted(engine_id, processes)
            _reap_zombies(processes)
        if not helpers:
            return
        for pid in helpers:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in helpers:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, 0)


def _reap_zombies(processes: list[tuple[int, bytes, int, int, int]]) -> None:
    """Reap adopted children among ``processes`` that ended by themselves (never an engine
    we started); called under LIVE_LOCK."""
    me, session = os.getpid(), os.getsid(0)
    engines = {client.pid for client in LIVE}
    for pid, state, parent, _, sid in processes:
        if state == b"Z" and parent == me and sid != session and pid not in engines:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)


def live_group_members(pgid: int) -> list[int]:
    """The processes of group ``pgid`` still running, zombies not counted.

    A zombie whose parent never reaps it (an orphan under a PID 1 that does not reap)
    would keep ``killpg(pgid, 0)`` succeeding forever, so /proc is asked where it exists;
    but only when the group exists: when ``killpg`` finds no process in it (not even a
    zombie), there is nothing to look for.
    """
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return []
    except PermissionError:
        if not _HAVE_PROC:
            return []
    if not _HAVE_PROC:
        return [pgid]
    return sorted(
        pid for pid, state, _, group, _ in _processes() if group == pgid and state != b"Z"
    )


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
