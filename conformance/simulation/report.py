"""The JSON report of a simulation (``jhyap simulate --json``): its format, the header keys
every shard of one run shares, and its figures; ``jhyap merge`` adds shards' reports up."""

from __future__ import annotations

from typing import Any

from .stats import Tally

FORMAT = "jhyap-simulation"
FORMAT_VERSION = 1
# The header keys every shard of one run shares (and merge checks).
RUN_KEYS: tuple[str, ...] = (
    "profile",
    "options",
    "seats",
    "policies",
    "total_games",
    "seed",
    "max_rounds",
    "host_ends",
)


def figures_json(header: dict[str, Any], tally: Tally) -> dict[str, Any]:
    """The figures of ``tally`` under ``header``, and the tally they come from."""
    return {**header, **tally.summary().to_json(), "tally": tally.to_json()}


__all__ = ["FORMAT", "FORMAT_VERSION", "RUN_KEYS", "figures_json"]
