"""Work beyond one process: shards of a simulation or a fuzz campaign, their merge, and
(with the ``distributed`` extra) a study or a simulation on a Dask cluster."""
