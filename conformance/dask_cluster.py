"""A Dask cluster (the ``distributed`` extra): what the simulations, the variant study and
the fuzz campaigns run their tasks on.

``local:N`` starts a cluster of N worker processes on this machine, in this process;
any other address (``tcp://host:8786``) names a running scheduler, whose workers must have
this version of jhyap-conformance installed.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

EXTRA_HINT: Final = "install the distributed extra (pip install '.[distributed]' in the checkout)"
LOCAL = re.compile(r"local:(\d{1,4})")


class ClusterUnavailable(Exception):
    """Dask is not installed, the address is malformed or the scheduler unreachable."""


def address_problem(address: str) -> str | None:
    """What is wrong with a ``--cluster`` value, checked before anything is played."""
    local = LOCAL.fullmatch(address)
    if local is not None:
        return None if 1 <= int(local.group(1)) <= 1024 else "local:N needs N from 1 to 1024"
    if not re.fullmatch(r"(tcp|tls|ucx|inproc)://\S+", address):
        return f"must be local:N or a scheduler address such as tcp://host:8786, not {address!r}"
    return None


def dask_module() -> Any:
    """The ``distributed`` module of Dask, or ClusterUnavailable naming the extra."""
    try:
        # lazy: optional dependency
        import distributed
    except ImportError:
        raise ClusterUnavailable(f"a cluster needs Dask: {EXTRA_HINT}") from None
    return distributed


@contextlib.contextmanager
def client_for(address: str) -> Iterator[Any]:
    """A Dask client of ``address``: ``local:N`` or a scheduler's."""
    problem = address_problem(address)
    if problem is not None:
        raise ClusterUnavailable(problem)
    distributed = dask_module()
    local = LOCAL.fullmatch(address)
    if local is not None:
        cluster = _local_cluster(distributed, int(local.group(1)))
        with cluster, distributed.Client(cluster) as client:
            try:
                yield client
            except BaseException:
                _end_workers(cluster)
                raise
        return
    try:
        client = distributed.Client(address, timeout=10)
    except Exception as exc:
        # Dask's comm layers fail by address in their own ways: OSError (no scheduler),
        # ValueError (inproc:// of no such process), TypeError (tls:// without a context,
        # ucx:// without UCX), UnicodeError (a host name over 63 characters a label).
        shown = address if len(address) <= 80 else f"{address[:60]}...({len(address)} chars)"
        why = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise ClusterUnavailable(f"cannot reach the scheduler {shown}: {why}") from None
    with client:
        yield client


def _local_cluster(distributed: Any, workers: int) -> Any:
    """A local cluster of ``workers`` processes, each of which leaves Ctrl-C to the leader
    (:mod:`conformance.dask_worker`, loaded by each worker as it starts, again after a
    crash)."""
    # Processes, one thread each: games are pure Python and hold the GIL.
    return distributed.LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        # logging.CRITICAL: a task's failure is re-raised at the client, said there in
        # one line; the worker's own ERROR log would print its traceback as well
        silence_logs=50,
        preload=["conformance.dask_worker"],
    )


def _end_workers(cluster: Any) -> None:
    """Stopped by an error or a signal: end the workers now. Closing the cluster asks each
    to finish its task first (seconds to minutes); its nanny is told not to start it again."""
    for nanny in list(cluster.workers.values()):
        pid = getattr(nanny, "pid", None)
        with contextlib.suppress(AttributeError):
            nanny.close_gracefully(reason="the leader stops")
        if pid:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def map_on_cluster(function: Callable[[Any], Any], tasks: Sequence[Any], address: str) -> list[Any]:
    """``function`` over ``tasks`` on the cluster, results in task order (the study)."""
    with client_for(address) as client:
        futures = client.map(function, tasks, pure=False)
        # One future at a time: a gather stopped by Ctrl-C leaves its waiting tasks to
        # asyncio, which prints each one's AllExit traceback when it is collected.
        return [future.result() for future in futures]


__all__ = [
    "EXTRA_HINT",
    "ClusterUnavailable",
    "address_problem",
    "client_for",
    "dask_module",
    "map_on_cluster",
]
