"""A Dask cluster (the ``distributed`` extra): what the simulations, the variant study and
the fuzz campaigns run their tasks on.

``local:N`` starts a cluster of N worker processes on this machine, in this process;
any other address (``tcp://host:8786``) names a running scheduler, whose workers must have
this version of jhyap-conformance installed.
"""

from __future__ import annotations

import contextlib
import re
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
        # Processes, one thread each: games are pure Python and hold the GIL.
        cluster = distributed.LocalCluster(
            n_workers=int(local.group(1)),
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            # logging.CRITICAL: a task's failure is re-raised at the client, said there in
            # one line; the worker's own ERROR log would print its traceback as well
            silence_logs=50,
        )
        with cluster, distributed.Client(cluster) as client:
            yield client
        return
    try:
        client = distributed.Client(address, timeout=10)
    except OSError as exc:
        raise ClusterUnavailable(f"cannot reach the scheduler {address}: {exc}") from None
    with client:
        yield client


def map_on_cluster(function: Callable[[Any], Any], tasks: Sequence[Any], address: str) -> list[Any]:
    """``function`` over ``tasks`` on the cluster, results in task order (the study)."""
    with client_for(address) as client:
        return list(client.gather(client.map(function, tasks, pure=False)))


__all__ = [
    "EXTRA_HINT",
    "ClusterUnavailable",
    "address_problem",
    "client_for",
    "dask_module",
    "map_on_cluster",
]
