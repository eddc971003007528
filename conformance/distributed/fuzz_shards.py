"""A fuzz campaign on a Dask cluster: each shard a task, merged as ``jhyap merge`` does.

A task is a :class:`FuzzShardTask`: the campaign's :class:`~conformance.fuzz.config.FuzzConfig`
(a frozen value, built once where the campaign starts and pickled to the workers) and the
shard it plays. Its command line is ``python -m conformance.distributed.campaign``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from conformance.dask_cluster import map_on_cluster
from conformance.fuzz.campaign import fuzz
from conformance.fuzz.config import FuzzConfig
from conformance.fuzz.driver import ReferenceFailed
from conformance.fuzz.report import json_report
from conformance.harness.client import EngineUnusable

from .merge import ShardFile, merge_fuzz
from .shards import Shard, empty_shard_problem


class ShardFailed(Exception):
    """A shard could not be played (its engine unusable, the reference failing): one line,
    a plain exception so that it crosses from a worker intact."""


@dataclass(frozen=True)
class FuzzShardTask:
    """Shard ``index`` of ``count`` of the campaign ``config``; ``arguments``: its
    ``jhyap fuzz`` arguments, as its report names them."""

    config: FuzzConfig
    index: int
    count: int
    arguments: tuple[str, ...]


def fuzz_shard(task: FuzzShardTask) -> dict[str, Any]:
    """Run one shard of a campaign; its JSON report."""
    shard = f"shard {task.index}/{task.count}"
    problem = empty_shard_problem(Shard(task.index, task.count), task.config.games)
    if problem:
        raise ShardFailed(f"{shard}: {problem}")
    config = replace(task.config, shard=(task.index, task.count))
    try:
        result = fuzz(config)
    except EngineUnusable as exc:
        raise ShardFailed(f"{shard}: the engine is unusable: {exc}") from None
    except ReferenceFailed as exc:
        raise ShardFailed(f"{shard}: {exc}") from None
    findings = bool(result.findings) or bool(result.reference_problems)
    return json_report(config, result, 1 if findings else 0, ("jhyap", "fuzz", *task.arguments))


def fuzz_on_cluster(
    config: FuzzConfig,
    arguments: Sequence[str],
    shards: int,
    address: str,
    command: Sequence[str],
) -> dict[str, Any]:
    """The merged report of ``shards`` shards of the campaign played on the cluster at
    ``address``; ``command``: the command line the merged report names."""
    tasks = [FuzzShardTask(config, k, shards, tuple(arguments)) for k in range(1, shards + 1)]
    reports = map_on_cluster(fuzz_shard, tasks, address)
    files = [ShardFile(f"shard {k}", r, k, shards) for k, r in enumerate(reports, 1)]
    return merge_fuzz(files, tuple(command))


__all__ = ["FuzzShardTask", "ShardFailed", "fuzz_on_cluster", "fuzz_shard"]
