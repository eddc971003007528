"""What an engine runs with: a minimal environment and optional resource limits.

An engine gets only the variables it needs to run (``BASE_VARIABLES``, those that are
set), not the harness's whole environment with its tokens and credentials. More are
passed with ``--engine-env NAME`` (its value here) or ``--engine-env NAME=VALUE``, or
named in ``$JHYAP_ENGINE_ENV`` (comma- or space-separated names, e.g. for a CI job).
``--engine-memory`` and ``--engine-cpu`` bound its address space and CPU time
(``setrlimit`` in the engine process, POSIX only). See docs/port.md.
"""

from __future__ import annotations

import os
import re
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
            import resource

            if memory is not None:
                size = memory * 1024 * 1024
                resource.setrlimit(resource.RLIMIT_AS, (size, size))
            if cpu is not None:
                # SIGXCPU at the soft limit, SIGKILL a second later if it is ignored.
                resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))

        return apply
