"""What a campaign fuzzes and how: :class:`FuzzConfig`, a frozen value (pickled to the
workers of a campaign on a cluster)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..spec.json_types import Json
from .settings import DEFAULT_BUDGET, DEFAULT_MAX_FINDINGS, DEFAULT_WINDOW
from .writer import KnownDivergence


@dataclass(frozen=True)
class FuzzConfig:
    """What to fuzz and how. ``profiles`` are ids of ``documents``; ``names`` says how the
    user named each (a shipped id or a file), for the commands printed;
    ``engine_env_items`` are the ``--engine-env`` arguments, repeated in those commands."""

    engine: str
    reference: str
    documents: Mapping[str, Mapping[str, Json]]
    profiles: tuple[str, ...]
    names: Mapping[str, str] = field(default_factory=dict)
    engine_env: Mapping[str, str] | None = None
    reference_env: Mapping[str, str] | None = None
    engine_env_items: tuple[str, ...] = ()
    games: int | None = None
    seconds: float | None = None
    seed: int = 0
    seats: int | None = None
    jobs: int = 1
    window: int = DEFAULT_WINDOW
    timeout: float = 10.0
    known: tuple[KnownDivergence, ...] = ()
    out: Path | None = None
    shrink_budget: int = DEFAULT_BUDGET
    shrink_grace: float = 30.0  # a shrink may take its find time plus this many seconds
    max_findings: int = DEFAULT_MAX_FINDINGS
    check_schema: bool = True
    steer: bool = True
    # Carry each game on past its divergences (see .carry); off, a game ends at its first.
    carry_on: bool = True
    # Play only shard (K, N): the games whose index is K-1 modulo N (conformance.distributed).
    # A shard steers by its own games' coverage: with steering off, the shards' games are
    # exactly the unsharded run's.
    shard: tuple[int, int] = (1, 1)


__all__ = ["FuzzConfig"]
