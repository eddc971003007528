"""Figures with 95 % confidence intervals from simulated hands and games.

Means use the normal interval (1.96 standard errors); shares use the Wilson
interval. Hands of one game are treated as independent, which makes the
intervals of per-hand figures slightly narrower than they should be.

Every figure is computed from sufficient statistics kept exactly (counts, and sums and
sums of squares as fractions): a :class:`Tally`. Tallies of disjoint sets of games add
exactly, so shards merged give the figures of one run to the last digit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
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


@dataclass(frozen=True, slots=True)
class Moments:
    """A mean's sufficient statistics, exact: they add without rounding."""

    n: int = 0
    total: Fraction = Fraction(0)
    squares: Fraction = Fraction(0)

    @classmethod
    def of(cls, values: Iterable[float]) -> Moments:
        n = 0
        total: int | Fraction = 0
        squares: int | Fraction = 0
        for x in values:
            # Integers stay integers (fast); a float is taken at its exact binary value.
            q = x if isinstance(x, int) else Fraction(x)
            n += 1
            total += q
            squares += q * q
        return cls(n, Fraction(total), Fraction(squares))

    def __add__(self, other: Moments) -> Moments:
        return Moments(self.n + other.n, self.total + other.total, self.squares + other.squares)

    def estimate(self) -> Estimate:
        n = self.n
        if n == 0:
            return NONE
        m = float(self.total / n)
        if n == 1:
            return Estimate(m, m, m, 1)
        variance = (self.squares - self.total * self.total / n) / (n - 1)
        half = Z95 * math.sqrt(variance) / math.sqrt(n)
        return Estimate(m, m - half, m + half, n)

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "sum": str(self.total), "sum_squares": str(self.squares)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Moments:
        return cls(int(data["n"]), Fraction(data["sum"]), Fraction(data["sum_squares"]))


def mean(values: Iterable[float]) -> Estimate:
    return Moments.of(values).estimate()


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
        # The means, with the share of calls won after the hand's figures (the JSON's order).
        for name in (*MEANS[:3], "call_success", *MEANS[3:]):
            out[name] = getattr(self, name).to_json()
        out["win_by_position"] = [e.to_json() for e in self.win_by_position]
        out["unfinished_games"] = self.unfinished_games
        return out


MEANS: tuple[str, ...] = (
    "turns_per_hand",
    "hands_per_game",
    "reshuffles_per_hand",
    "value_at_call",
    "value_at_beaten_call",
    "won_call_swing",
    "beaten_call_swing",
    "won_call_tally",
    "beaten_call_tally",
    "turns_per_game",
)
# The means of counts: no observation is negative, so neither is their sum.
COUNTED: frozenset[str] = frozenset(
    {"turns_per_hand", "hands_per_game", "reshuffles_per_hand", "turns_per_game"}
)


@dataclass(frozen=True, slots=True)
class Tally:
    """The sufficient statistics of a :class:`Summary`; tallies of disjoint games add."""

    games: int = 0
    hands: int = 0
    won_calls: int = 0
    unfinished_games: int = 0
    moments: Mapping[str, Moments] = field(default_factory=dict)  # by name of MEANS
    wins_by_seats: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    # hands won by position in the turn order, by the number of players in the hand

    @classmethod
    def of(cls, records: Sequence[GameRecord]) -> Tally:
        hands: list[HandRecord] = [h for g in records for h in g.hands]
        finished = [g for g in records if g.finished]
        won = [h for h in hands if h.won]
        beaten = [h for h in hands if not h.won]
        observations: dict[str, Iterable[float]] = {
            "turns_per_hand": (h.turns for h in hands),
            "hands_per_game": (len(g.hands) for g in finished),
            "reshuffles_per_hand": (h.reshuffles for h in hands),
            "value_at_call": (h.called_value for h in hands),
            "value_at_beaten_call": (h.called_value for h in beaten),
            "won_call_swing": (h.swing for h in won),
            "beaten_call_swing": (-h.swing for h in beaten),
            "won_call_tally": (h.tally for h in won),
            "beaten_call_tally": (-h.tally for h in beaten),
            "turns_per_game": (g.turns for g in finished),
        }
        wins: dict[int, list[int]] = {}
        for h in hands:
            wins.setdefault(h.seats, [0] * h.seats)[h.winner_position] += 1
        return cls(
            games=len(records),
            hands=len(hands),
            won_calls=len(won),
            unfinished_games=len(records) - len(finished),
            moments={name: Moments.of(observations[name]) for name in MEANS},
            wins_by_seats={seats: tuple(w) for seats, w in sorted(wins.items())},
        )

    def __add__(self, other: Tally) -> Tally:
        wins = dict(self.wins_by_seats)
        for seats, counts in other.wins_by_seats.items():
            mine = wins.get(seats, (0,) * seats)
            wins[seats] = tuple(a + b for a, b in zip(mine, counts, strict=True))
        return Tally(
            self.games + other.games,
            self.hands + other.hands,
            self.won_calls + other.won_calls,
            self.unfinished_games + other.unfinished_games,
            {
                name: self.moments.get(name, Moments()) + other.moments.get(name, Moments())
                for name in MEANS
            },
            dict(sorted(wins.items())),
        )

    def summary(self) -> Summary:
        table = max(self.wins_by_seats, default=0)
        full = self.wins_by_seats.get(table, ())
        estimates = {name: self.moments.get(name, Moments()).estimate() for name in MEANS}
        return Summary(
            games=self.games,
            hands=self.hands,
            call_success=share(self.won_calls, self.hands),
            win_by_position=tuple(share(w, sum(full)) for w in full),
            unfinished_games=self.unfinished_games,
            **estimates,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "hands": self.hands,
            "won_calls": self.won_calls,
            "unfinished_games": self.unfinished_games,
            "moments": {name: self.moments.get(name, Moments()).to_json() for name in MEANS},
            "wins_by_seats": {str(s): list(w) for s, w in self.wins_by_seats.items()},
        }

    @staticmethod
    def problem_of(data: Mapping[str, Any]) -> str | None:
        """What makes a tally's JSON (valid by its schema) impossible for any games, as
        ``tally/moments/NAME/FIELD: why``; None when some games could give it."""
        for name in MEANS:
            raw = data["moments"].get(name)
            if raw is None:
                continue
            where = f"tally/moments/{name}"
            try:
                total, squares = Fraction(raw["sum"]), Fraction(raw["sum_squares"])
            except ZeroDivisionError:
                return f"{where}: a fraction whose denominator is 0"
            n = int(raw["n"])
            if squares < 0:
                return f"{where}/sum_squares: negative, but a sum of squares is not"
            if name in COUNTED and total < 0:
                return f"{where}/sum: negative, but it adds counts"
            if n == 0 and (total or squares):
                return f"{where}: sums that are not 0 of no observation (n is 0)"
            if squares * n < total * total:
                # (sum of x)^2 <= n * (sum of x^2) for any n numbers (Cauchy-Schwarz)
                return f"{where}/sum_squares: below sum^2/n, which no observations give"
        return None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Tally:
        return cls(
            int(data["games"]),
            int(data["hands"]),
            int(data["won_calls"]),
            int(data["unfinished_games"]),
            {name: Moments.from_json(data["moments"][name]) for name in MEANS},
            {int(s): tuple(int(x) for x in w) for s, w in data["wins_by_seats"].items()},
        )


def summarise(records: Sequence[GameRecord]) -> Summary:
    return Tally.of(records).summary()


def success_by_value(hands: Iterable[HandRecord]) -> dict[int, Estimate]:
    """The share of calls won, by the caller's hand value."""
    counts: dict[int, list[int]] = {}
    for hand in hands:
        tally = counts.setdefault(hand.called_value, [0, 0])
        tally[0] += hand.won
        tally[1] += 1
    return {value: share(w, n) for value, (w, n) in sorted(counts.items())}
