"""The JSON report of a simulation (``jhyap simulate --json``): its format, the header keys
every shard of one run shares, and its figures; ``jhyap merge`` adds shards' reports up."""

from __future__ import annotations

import math
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
    """The figures of ``tally`` under ``header``, and the tally they come from. A figure
    without observations (hands per game when the host ends every game) is null: the
    report is strict JSON, which has no NaN."""
    figures = _null_for_nan(tally.summary().to_json())
    return {**header, **figures, "tally": tally.to_json()}


def _null_for_nan(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _null_for_nan(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_null_for_nan(item) for item in value]
    return value


__all__ = ["FORMAT", "FORMAT_VERSION", "RUN_KEYS", "figures_json"]
