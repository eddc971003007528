"""Play aimed at a counter: which throw and which pick bring a seat's hand toward a goal.

A targeted deal (see :mod:`.deals`) makes hands of chosen values, but where no hand can be
called at the deal (five cards always worth more than the call limit), or where the goal
moves as the scores do, the values must be reached in play. The generator's model knows
the offer and the top of the deck, so each seat's throw and pick can be chosen to bring
its hand value to a goal: the lowest it can (the seat meant to call), the caller's value
(a tie, a tie-break among several lowest), a gap to the threshold or a cut (``edge``), or
one value for every other seat (``even``: rounds whose winners take turns, for shared
wins). The call itself is held back until the hands make the aim (``_calls``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from jhyap_core.cards import Card
from reference_engine import picking
from reference_engine.game import Game

LOWEST = "lowest"  # a goal: as low as the seat can get
Goal = int | str | None  # a hand value, LOWEST, or None (no goal: play at random)


def _value(game: Game, cards: Sequence[Card]) -> int:
    return game.rules.cards.hand_value(cards)


def _pick_values(game: Game, seat: int) -> list[int]:
    """The values of the cards the seat may pick next: the offer's pickable ones and the
    top of the deck (the model knows it)."""
    found = []
    if game.offer is not None and picking.offer_open_to(seat, game.multi_throwers, game.rules):
        found += [_value(game, [c]) for c in picking.pickable_cards(game.offer, game.rules)]
    if game.deck:
        found.append(_value(game, [game.deck[-1]]))
    return found


def _miss(total: int, goal: int | str) -> int:
    return total if goal == LOWEST else abs(total - int(goal))


def aimed_throw(
    game: Game, seat: int, goal: Goal, legal: Sequence[tuple[Card, ...]]
) -> tuple[Card, ...] | None:
    """The legal throw that, with the best pick after it, brings the hand nearest ``goal``;
    more cards first on a draw (a shorter hand moves faster). None without a goal."""
    if goal is None or not legal:
        return None
    held = game.hand_value(seat)
    picks = _pick_values(game, seat) or [0]

    def miss(throw: tuple[Card, ...]) -> tuple[int, int]:
        left = held - _value(game, throw)
        return min(_miss(left + p, goal) for p in picks), -len(throw)

    best: tuple[Card, ...] = min(legal, key=miss)
    return best


def aimed_pick(game: Game, seat: int, goal: Goal) -> Card | None:
    """The offer card to pick toward ``goal``, or None: the deck (when its top is as good,
    or there is no goal or no offer open to the seat)."""
    if goal is None or game.offer is None:
        return None
    if not picking.offer_open_to(seat, game.multi_throwers, game.rules):
        return None
    held = game.hand_value(seat)
    offer = picking.pickable_cards(game.offer, game.rules)
    if not offer:
        return None
    best = min(offer, key=lambda c: _miss(held + _value(game, [c]), goal))
    if game.deck and _miss(held + _value(game, [game.deck[-1]]), goal) <= _miss(
        held + _value(game, [best]), goal
    ):
        return None
    return best


def goals_for(
    game: Game, aim: str, order: Sequence[int], targets: Mapping[int, int | None]
) -> dict[int, Goal]:
    """Each seat's goal now, for ``aim``; ``order`` is the turn order from the deal's
    starter (the seat meant to call), ``targets`` the values its deal aimed at."""
    caller = order[0]
    if aim == "beaten":
        # The starter holds a hand at the call limit, the highest it may call with; the
        # others go as low as they get: the call comes late, against low hands.
        rules = game.rules
        limit = rules.calling.limit_for(game.seats) - (0 if rules.calling.inclusive else 1)
        return {**dict.fromkeys(order, LOWEST), caller: limit}
    now = game.hand_value(caller)
    goals: dict[int, Goal] = {caller: LOWEST}
    for seat in order[1:]:
        target = targets.get(seat)
        if aim in ("tie", "tiebreak"):
            # The seats dealt the tie follow the caller's hand down.
            goals[seat] = now if target is not None else None
        else:
            goals[seat] = target
    return goals


__all__ = ["LOWEST", "Goal", "aimed_pick", "aimed_throw", "goals_for"]
