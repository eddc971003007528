"""Work beyond one process: shards of a simulation or a fuzz campaign, their merge, and
(with the ``distributed`` extra) a study or a simulation on a Dask cluster."""

# The public API: the modules, each imported by name (an import of the package alone
# imports none of them, so that starting one command stays quick).
__all__ = [
    "campaign",
    "cluster",
    "fuzz_shards",
    "merge",
    "shards",
    "simulate_cluster",
]
