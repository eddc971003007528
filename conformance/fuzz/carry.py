"""A game carried on past its divergences, so that the rest of it is still compared.

A divergence no longer ends the view of the engine. What the game does next depends on
where the two engines parted:

- **on a choice** (accepted by one, refused by the other or refused with another code, or
  a raw line answered otherwise): the game *steers away*. Its plan is made again with
  that choice avoided at that request (:attr:`.plan.GameSpec.avoid`: a probe or a raw
  line is left out, another action is chosen), which keeps every request before it, and
  is played again from the start, the answers before it not compared again. The engines
  are then in the same state, so what follows is compared exactly as in any game;
- **in what the engine reports** (events, a state, its schema): the game *carries on*
  with the same plan, the fields of that divergence's signature left out of what is
  compared afterwards (the engine's answer is taken for them). From there on the two
  engines may hold different states (scores, eliminations), and what is met later may
  follow from the first: a report of a family that follows from it (:data:`FOLLOWS`),
  already met in this game or listed in the known-divergences file is carried too (not
  filed: it may be a consequence); a refusal listed there is steered away from; any
  other stops the game, and is not filed as a class.

A game stops at an engine failure (crash, timeout, a broken answer), at a divergence of
the ``start`` request, when the choices tried at one request diverge
:data:`MAX_DETOURS_AT_ONE` + 1 times, after :data:`MAX_DETOURS` plans made again, or at a
divergence after a carried report (above). Otherwise it reaches the end of its plan.

What is carried on depends only on the game and on the known-divergences file, never on
what other games found, so the same seed still gives the same games whatever ``--jobs``.
Every divergence met before any report was carried is the first divergence of the plan
it was met in (:attr:`Met.plan`), played from its start: a new class among them is
shrunk and filed from that plan.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Set
from dataclasses import dataclass, replace
from typing import Final

from ..spec.json_types import Json
from .driver import REPORTS, Divergence, DivergenceKind, Unsupported
from .generate import generate
from .plan import Plan, choice_key

MAX_DETOURS: Final = 12  # plans made again in one game before it stops
# Plans made again at one request: when other choices there diverge too, no choice of
# that seat steers away (the engine holds another state: whose turn it is, its hand).
MAX_DETOURS_AT_ONE: Final = 2
# The rule families a report of a family may be followed by in what the engine reports
# afterwards, the same wrong value carried on: a wrong hand value makes wrong scores, a
# wrong score wrong eliminations, a wrong elimination a wrong game end and settlement
# (and, where a seat goes out, another dealer and turn order).
_GAME_END: Final = frozenset({"game-end", "money", "deal", "turn"})
FOLLOWS: Final[Mapping[str, frozenset[str]]] = {
    "cards": frozenset({"cards", "scoring", "showdown", *_GAME_END}),
    "showdown": frozenset({"showdown", "scoring", *_GAME_END}),
    "scoring": frozenset({"scoring", *_GAME_END}),
    "game-end": _GAME_END,
    "money": frozenset({"money", "game-end"}),
}

Outcome = Divergence | Unsupported | None
# Plays a plan: (plan, compare from this request, signatures masked, carry) -> outcome.
Play = Callable[[Plan, int, Set[str], Callable[[Divergence], bool]], Outcome]


@dataclass(frozen=True)
class Met:
    """A divergence met in a game, and the plan it was met in. ``after`` is the signature
    of the report carried before it ("" when none was: ``plan`` played from its start
    then meets it first)."""

    divergence: Divergence
    plan: Plan
    after: str = ""


@dataclass(frozen=True)
class GameRun:
    """A game played to its end, or until it stopped."""

    plan: Plan  # the last plan played
    met: tuple[Met, ...]  # every divergence met, in order (the one that stopped it too)
    end: Outcome  # what stopped the game (None: it reached the end of its plan)
    detours: int = 0  # plans made again to steer away

    @property
    def ended(self) -> bool:
        return self.end is None

    @property
    def stopped(self) -> Divergence | None:
        return self.end if isinstance(self.end, Divergence) else None

    @property
    def first(self) -> Outcome:
        """The game's first divergence (or the engine declining it): a run without
        carrying on ends there."""
        return self.met[0].divergence if self.met else self.end

    @property
    def carried(self) -> int:
        """The divergences the game went on past."""
        return sum(m.divergence is not self.end for m in self.met)

    @property
    def requests(self) -> int:
        """The requests of the last plan compared (all of them when the game ended)."""
        stopped = self.stopped
        return stopped.index + 1 if stopped is not None else len(self.plan.requests)

    def coverage(self) -> Counter[str]:
        """The coverage counters the game reached before it stopped."""
        stopped = self.stopped
        return self.plan.coverage_until(stopped.index if stopped is not None else None)

    def signatures(self) -> list[str]:
        """The signatures of the divergences met with nothing carried before them, once
        each, in order: what a campaign files or counts."""
        seen: dict[str, None] = {}
        for met in self.met:
            if not met.after:
                seen.setdefault(met.divergence.signature, None)
        return list(seen)


def stopping_at_first(plan: Plan, outcome: Outcome) -> GameRun:
    """A game that ended at its first divergence (a run that does not carry on)."""
    met = (Met(outcome, plan),) if isinstance(outcome, Divergence) else ()
    return GameRun(plan, met, outcome)


def avoiding(document: Mapping[str, Json], plan: Plan, index: int) -> Plan:
    """``plan`` made again with the choice of request ``index`` avoided there."""
    key = choice_key(plan.requests[index].message)
    # Made from where ``plan`` was made up to a few requests before ``index``: the same
    # plan as made afresh, for a fraction of its cost.
    return generate(document, replace(plan.spec, avoid=(*plan.spec.avoid, (index, key))), base=plan)


def family(signature: str) -> str:
    """The rule family a signature names (``dhumbal scoring: scores differs``: scoring)."""
    head = signature.split(":", 1)[0].split(" ", 1)
    return head[1] if len(head) > 1 else ""


def _steerable(plan: Plan, found: Divergence) -> bool:
    """Whether the game can steer away from ``found``: a divergence on a choice."""
    if found.index == 0 or found.kind in (DivergenceKind.CRASH, DivergenceKind.TIMEOUT):
        return False
    if plan.requests[found.index].raw is not None:
        return True  # a raw line is left out: it changes nothing
    return found.kind is DivergenceKind.REFUSAL


def play_through(
    play: Play,
    plan: Plan,
    document: Mapping[str, Json],
    known: Callable[[str], bool],
    max_detours: int = MAX_DETOURS,
) -> GameRun:
    """Play ``plan`` past its divergences (see the module's docstring); ``known`` says
    whether a signature is listed in the known-divergences file."""
    met: list[Met] = []
    masked: set[str] = set()
    after = ""
    follows: set[str] = set()  # the families a carried report may be followed by
    detours = 0
    compare_from = 0
    current = plan

    def seen(found: Divergence) -> bool:
        signature = found.signature
        if known(signature) or any(m.divergence.signature == signature for m in met):
            return True
        return found.kind in REPORTS and family(signature) in follows

    def carry(found: Divergence) -> bool:
        nonlocal after
        if after and not seen(found):
            return False
        met.append(Met(found, current, after))
        masked.add(found.signature)
        after = after or found.signature
        follows.update(FOLLOWS.get(family(found.signature), {family(found.signature)}))
        return True

    at_one: Counter[int] = Counter()
    while True:
        outcome = play(current, compare_from, frozenset(masked), carry)
        if not isinstance(outcome, Divergence):
            return GameRun(current, tuple(met), outcome, detours)
        # After a carried report, a refusal is steered away from only when listed: the
        # model that chooses another action no longer holds the engine's state.
        if after and not (seen(outcome) if outcome.kind in REPORTS else known(outcome.signature)):
            # It may follow from the report carried before it: not a class of its own.
            return GameRun(current, tuple(met), outcome, detours)
        met.append(Met(outcome, current, after))
        at_one[outcome.index] += 1
        stuck = at_one[outcome.index] > MAX_DETOURS_AT_ONE or detours >= max_detours
        if stuck or not _steerable(current, outcome):
            return GameRun(current, tuple(met), outcome, detours)
        again = avoiding(document, current, outcome.index)
        if again.requests[: outcome.index] != current.requests[: outcome.index]:
            return GameRun(current, tuple(met), outcome, detours)  # not the same game
        current, compare_from, detours = again, outcome.index, detours + 1


__all__ = [
    "MAX_DETOURS",
    "GameRun",
    "Met",
    "Play",
    "avoiding",
    "play_through",
    "stopping_at_first",
]
