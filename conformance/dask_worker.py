"""Loaded by each worker of a local Dask cluster (its ``preload``) as it starts: the
worker leaves Ctrl-C to the leader. Ctrl-C reaches the whole process group, and each
worker would print a KeyboardInterrupt traceback; the leader ends the workers itself."""

from __future__ import annotations

import contextlib
import signal
from typing import Any


def dask_setup(worker: Any) -> None:
    """Ignore SIGINT in this worker process (Dask calls this as the worker starts)."""
    with contextlib.suppress(ValueError):  # only the main thread may set handlers
        signal.signal(signal.SIGINT, signal.SIG_IGN)
