"""Figures with 95 % confidence intervals from simulated hands and games.

Means use the normal interval (1.96 standard errors); shares use the Wilson
interval. Hands of one game are treated as independent, which makes the
intervals of per-hand figures slightly narrower than they should be.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .play import GameRecord, HandRecord

Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class Estimate:
    """A figure, its 95 % interval and the number of observations behind it."""

    value: float
    low: float
    high: float
    n: int

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "low": self.low, "high": self.high, "n": self.n}

    def text(self, digits: int = 2, percent: bool = False) -> str:
        if self.n == 0:
            return "n/a"
        scale, unit = (100.0, " %") if percent else (1.0, "")
        v, lo, hi = (x * scale for x in (self.value, self.low, self.high))
        return f"{v:.{digits}f}{unit} [{lo:.{digits}f}, {hi:.{digits}f}]"


NONE = Estimate(math.nan, math.nan, math.nan, 0)


def mean(values: Iterable[float]) -> Estimate:
    data = list(values)
    n = len(data)
    if n == 0:
        return NONE
    m = sum(data) / n
    if n == 1:
        return Estimate(m, m, m, 1)
    sd = math.sqrt(sum((x - m) ** 2 for x in data) / (n - 1))
    half = Z95 * sd / math.sqrt(n)
    return Estimate(m, m - half, m + half, n)


def share(hits: int, n: int) -> Estimate:
    """The Wilson interval of ``hits`` out of ``n``."""
    if n == 0:
        return NONE
    p = hits / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return Estimate(p, max(0.0, centre - half), min(1.0, centre + half), n)


@dataclass(frozen=True, slots=True)
class Summary:
    """The figures `jhyap simulate` prints."""

    games: int
    hands: int
    turns_per_hand: Estimate
    hands_per_game: Estimate  # games that ended by their own rules only
    reshuffles_per_hand: Estimate
    call_success: Estimate
    value_at_call: Estimate
    value_at_beaten_call: Estimate
    won_call_swing: Estimate
    beaten_call_swing: Estimate
    won_call_tally: Estimate  # the caller's own score change, more is better
    beaten_call_tally: Estimate  # what the caller's own score loses
    turns_per_game: Estimate  # games that ended by their own rules only
    win_by_position: tuple[Estimate, ...]  # hands won, by position from the hand's starter
    unfinished_games: int

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"games": self.games, "hands": self.hands}
        for name in (
            "turns_per_hand",
            "hands_per_game",
            "reshuffles_per_hand",
            "call_success",
            "value_at_call",
            "value_at_beaten_call",
            "won_call_swing",
            "beaten_call_swing",
            "won_call_tally",
            "beaten_call_tally",
            "turns_per_game",
        ):
            out[name] = getattr(self, name).to_json()
        out["win_by_position"] = [e.to_json() for e in self.win_by_position]
        out["unfinished_games"] = self.unfinished_games
        return out


def summarise(records: Sequence[GameRecord]) -> Summary:
    hands: list[HandRecord] = [h for g in records for h in g.hands]
    finished = [g for g in records if g.finished]
    won = [h for h in hands if h.won]
    beaten = [h for h in hands if not h.won]
    table = max((h.seats for h in hands), default=0)
    full = [h for h in hands if h.seats == table]
    return Summary(
        games=len(records),
        hands=len(hands),
        turns_per_hand=mean(h.turns for h in hands),
        hands_per_game=mean(len(g.hands) for g in finished),
        reshuffles_per_hand=mean(h.reshuffles for h in hands),
        call_success=share(len(won), len(hands)),
        value_at_call=mean(h.called_value for h in hands),
        value_at_beaten_call=mean(h.called_value for h in beaten),
        won_call_swing=mean(h.swing for h in won),
        beaten_call_swing=mean(-h.swing for h in beaten),
        won_call_tally=mean(h.tally for h in won),
        beaten_call_tally=mean(-h.tally for h in beaten),
        turns_per_game=mean(g.turns for g in finished),
        win_by_position=tuple(
            share(sum(1 for h in full if h.winner_position == p), len(full)) for p in range(table)
        ),
        unfinished_games=len(records) - len(finished),
    )


def success_by_value(hands: Iterable[HandRecord]) -> dict[int, Estimate]:
    """The share of calls won, by the caller's hand value."""
    counts: dict[int, list[int]] = {}
    for hand in hands:
        tally = counts.setdefault(hand.called_value, [0, 0])
        tally[0] += hand.won
        tally[1] += 1
    return {value: share(w, n) for value, (w, n) in sorted(counts.items())}
