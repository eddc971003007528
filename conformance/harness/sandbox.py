"""What an engine runs with: a minimal environment and optional resource limits.

An engine gets only the variables it needs to run (``BASE_VARIABLES``, those that are
set), not the harness's whole environment with its tokens and credentials. More are
passed with ``--engine-env NAME`` (its value here) or ``--engine-env NAME=VALUE``, or
named in ``$JHYAP_ENGINE_ENV`` (comma- or space-separated names, e.g. for a CI job).
``--engine-memory`` and ``--engine-cpu`` bound its address space and CPU time
(``setrlimit`` in the engine process, POSIX only). See docs/port.md.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import ctypes
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

BASE_VARIABLES: Final = (
    "PATH",
    "HOME",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "TMPDIR",
    "TZ",
    "SYSTEMROOT",
)
PASSTHROUGH_VARIABLE: Final = "JHYAP_ENGINE_ENV"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def engine_environment(
    items: Sequence[str] = (), source: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment of an engine: the base variables, ``$JHYAP_ENGINE_ENV``'s names
    and ``items`` (``NAME`` or ``NAME=VALUE``), taken from ``source`` (default: ours).

    Raises ValueError for an item that is neither.
    """
    source = os.environ if source is None else source
    env = {name: source[name] for name in BASE_VARIABLES if name in source}
    named = source.get(PASSTHROUGH_VARIABLE, "").replace(",", " ").split()
    for item in [*named, *items]:
        name, equals, value = item.partition("=")
        if not _NAME.fullmatch(name):
            raise ValueError(f"--engine-env expects NAME or NAME=VALUE, not {item!r}")
        if equals:
            env[name] = value
        elif name in source:
            env[name] = source[name]
    return env


@dataclass(frozen=True)
class EngineLimits:
    """Resource limits for an engine process; None leaves one unlimited."""

    memory_mb: int | None = None
    cpu_seconds: int | None = None

    def describe(self) -> str:
        parts = []
        if self.memory_mb is not None:
            parts.append(f"--engine-memory {self.memory_mb} MB")
        if self.cpu_seconds is not None:
            parts.append(f"--engine-cpu {self.cpu_seconds} s")
        return " and ".join(parts)

    def preexec(self) -> Callable[[], None] | None:
        """What the engine process runs before the engine: setrlimit (None: no limit)."""
        if self.memory_mb is None and self.cpu_seconds is None:
            return None
        memory, cpu = self.memory_mb, self.cpu_seconds

        def apply() -> None:  # runs in the child between fork and exec: keep it small
            # lazy: POSIX only
            import resource

            if memory is not None:
                size = memory * 1024 * 1024
                resource.setrlimit(resource.RLIMIT_AS, (size, size))
            if cpu is not None:
                # SIGXCPU at the soft limit, SIGKILL a second later if it is ignored.
                resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))

        return apply


_PR_SET_PDEATHSIG: Final = 1


def parent_death_signal() -> Callable[[], None] | None:
    """What an engine process runs before the engine so that it is killed when the harness
    dies, even by ``kill -9`` (which runs no cleanup): ``PR_SET_PDEATHSIG`` on Linux.
    None elsewhere: there the engine's input closing (its end of the pipe) is the signal,
    and ``close``/``atexit`` end it on every exit the harness survives to see.

    The kernel sends it when the *thread* that started the engine ends, so engines are
    started on one thread that lives as long as the harness (:func:`launch`).
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)  # loaded here: the child only calls it
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def apply() -> None:  # runs in the child between fork and exec: keep it small
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != parent:  # the harness died before the signal was armed
            os._exit(1)

    return apply


_LAUNCHER: list[concurrent.futures.ThreadPoolExecutor] = []
_LAUNCHER_LOCK = threading.Lock()


def launch(start: Callable[[], subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    """Run ``start`` (a Popen) on the launcher thread, which lives until the harness exits:
    a parent-death signal armed in the child then fires when the harness dies, not when
    the worker thread that asked for the engine ends. An engine that starts while the
    caller is interrupted (Ctrl-C) is killed, not left behind."""
    if not sys.platform.startswith("linux"):
        return start()
    with _LAUNCHER_LOCK:
        if not _LAUNCHER:
            _LAUNCHER.append(
                concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="jhyap-launcher")
            )
        future = _LAUNCHER[0].submit(start)
    try:
        return future.result()
    except BaseException:
        if not future.cancel():
            with contextlib.suppress(Exception):
                started = future.result(timeout=30)
                with contextlib.suppress(OSError):
                    os.killpg(started.pid, signal.SIGKILL)
                started.wait()
        raise


def engine_preexec(limits: EngineLimits | None) -> Callable[[], None] | None:
    """Everything an engine process runs before the engine: the parent-death signal and
    the resource limits (None: nothing)."""
    steps = [
        step
        for step in (parent_death_signal(), limits.preexec() if limits is not None else None)
        if step is not None
    ]
    if not steps:
        return None

    def apply() -> None:
        for step in steps:
            step()

    return apply


__all__ = [
    "BASE_VARIABLES",
    "PASSTHROUGH_VARIABLE",
    "EngineLimits",
    "engine_environment",
    "engine_preexec",
    "launch",
    "parent_death_signal",
]
