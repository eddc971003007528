"""Simulated games and the variant study on a Dask cluster (the ``distributed`` extra).

``local:N`` starts a cluster of N worker processes on this machine, in this process;
any other address (``tcp://host:8786``) names a running scheduler, whose workers must have
this version of jhyap-conformance installed. The games are cut into chunks; each chunk
comes back as a :class:`~conformance.simulation.stats.Tally`, and tallies add exactly, so
the figures are those of one process whatever the cluster and the order chunks finish in.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

from conformance.simulation.play import SimulationSpec, play_one
from conformance.simulation.stats import Tally

EXTRA_HINT: Final = "install the distributed extra (pip install '.[distributed]' in the checkout)"
LOCAL = re.compile(r"local:(\d{1,4})")
CHUNK: Final = 25  # games a task: a task's overhead is milliseconds, a game's tens of them


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


def _dask() -> Any:
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
    distributed = _dask()
    local = LOCAL.fullmatch(address)
    if local is not None:
        # Processes, one thread each: games are pure Python and hold the GIL.
        cluster = distributed.LocalCluster(
            n_workers=int(local.group(1)),
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=40,  # logging.ERROR
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


def tally_games(args: tuple[SimulationSpec, int | str, range]) -> Tally:
    """Play the games ``indices`` of a seeded simulation and return their tally."""
    spec, seed, indices = args
    return Tally.of([play_one(spec, seed, i) for i in indices])


def simulate_on_cluster(
    spec: SimulationSpec,
    games: range,
    seed: int | str,
    address: str,
    progress: Callable[[int], None] | None = None,
    chunk: int = CHUNK,
) -> Tally:
    """The tally of ``games`` played on the cluster at ``address``."""
    with client_for(address) as client:
        distributed = _dask()
        tasks = [(spec, seed, games[a : a + chunk]) for a in range(0, len(games), chunk)]
        futures = client.map(tally_games, tasks, pure=False)
        total, done = Tally(), 0
        for future in distributed.as_completed(futures):
            part: Tally = future.result()
            total = total + part
            done += part.games
            if progress is not None:
                progress(done)
        return total


def map_on_cluster(function: Callable[[Any], Any], tasks: Sequence[Any], address: str) -> list[Any]:
    """``function`` over ``tasks`` on the cluster, results in task order (the study)."""
    with client_for(address) as client:
        return list(client.gather(client.map(function, tasks, pure=False)))
