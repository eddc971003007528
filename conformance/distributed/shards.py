"""``--shard K/N``: which games of a seeded run one shard plays.

Every game is fixed by the seed and its index, so shard K of N plays the indices
``K-1, K-1+N, K-1+2N, ...``: interleaved rather than contiguous ranges, because a timed
fuzz run has no game count to cut into ranges, and interleaving spreads the early
(often shorter or steered) games evenly over the shards.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass
from typing import Final

MAX_SHARDS: Final = 100_000


@dataclass(frozen=True, slots=True)
class Shard:
    """Shard ``index`` (from 1) of ``count``."""

    index: int = 1
    count: int = 1

    def games(self, total: int) -> range:
        """The indices of this shard's games among ``total``."""
        return range(self.index - 1, total, self.count)

    def game_at(self, position: int) -> int:
        """The index of this shard's ``position``-th game (from 0)."""
        return self.index - 1 + position * self.count

    @property
    def whole(self) -> bool:
        return self.count == 1

    def text(self) -> str:
        return f"{self.index}/{self.count}"

    def to_json(self) -> dict[str, int]:
        return {"index": self.index, "count": self.count}


WHOLE: Final = Shard()


def empty_shard_problem(shard: Shard, games: int | None) -> str | None:
    """Why shard ``shard`` of a run of ``games`` games would play none, or None."""
    if games is not None and shard.index > games:
        return (
            f"--shard {shard.text()}: a run of {games} game{'s' if games != 1 else ''} has "
            f"no game for shard {shard.index} (--games must be at least K)"
        )
    return None


def parse_shard(text: str) -> Shard:
    """A ``--shard`` value: ``K/N`` with N from 1 to MAX_SHARDS and K from 1 to N."""
    match = re.fullmatch(r"\s*(\d{1,9})\s*/\s*(\d{1,9})\s*", text)
    if match is None:
        raise argparse.ArgumentTypeError(f"must be K/N (shard K of N, e.g. 2/4), not {text!r}")
    index, count = int(match.group(1)), int(match.group(2))
    if not 1 <= count <= MAX_SHARDS:
        raise argparse.ArgumentTypeError(
            f"must be K/N with N from 1 to {MAX_SHARDS}, not {text.strip()!r}"
        )
    if not 1 <= index <= count:
        raise argparse.ArgumentTypeError(f"must be K/N with K from 1 to N, not {text.strip()!r}")
    return Shard(index, count)


def add_shard_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """``--shard K/N``."""
    parser.add_argument(
        "--shard",
        type=parse_shard,
        default=WHOLE,
        metavar="K/N",
        help=f"play only shard K of N: the {what} whose index is K-1 modulo N; the N "
        "shards' --json files merge (jhyap merge) into the report of the whole run",
    )
