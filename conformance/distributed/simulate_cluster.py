"""Simulated games on a Dask cluster (the ``distributed`` extra, :mod:`conformance.dask_cluster`).

The games are cut into chunks; each chunk comes back as a
:class:`~conformance.simulation.stats.Tally`, and tallies add exactly, so the figures are
those of one process whatever the cluster and the order chunks finish in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from conformance.dask_cluster import client_for, dask_module
from conformance.simulation.play import SimulationSpec, play_one
from conformance.simulation.stats import Tally

CHUNK: Final = 25  # games a task: a task's overhead is milliseconds, a game's tens of them


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
        distributed = dask_module()
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


__all__ = ["CHUNK", "simulate_on_cluster", "tally_games"]
