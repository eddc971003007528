"""A measure of the suite itself: bugs planted in the example engines bound with the kits.

Run: python bench/planted_bugs.py [--quick] [--fuzz-seconds S | --fuzz-games N] [--seed N]
     [--jobs J] [--shapes NAME,...] [--engines NAME,...] [--cases PATTERN,...] [--fuzz-all]
     [--json FILE]

Each bug *shape* (issue 37's and those of tests/mutants/) is planted as a small override of
one function, method or hook of an example engine: examples/python-loop (a console game
driven by the kit's loop driver), tests/kit_engines/object_api.py (an object-API binding)
and examples/javascript-object (a JavaScript library bound with the JavaScript kit). The
planted engine is served over the real protocol (``--serve ENGINE SHAPE`` for the Python
ones, bench/planted_bugs.mjs for the JavaScript one) and judged:

1. by the corpus: ``jhyap run`` against it (with ``--profile`` the engine's own rules file,
   as written for the object-API binding, which plays every shipped profile); the cases
   that fail with the bug in and pass without it catch it;
2. when the corpus catches nothing (or with ``--fuzz-all``): by one default ``jhyap fuzz``
   run, seeded, of ``--fuzz-seconds`` under the engine's profile, the divergences met by
   the unplanted engine in the same run listed as known; the classes of the new ones.

The table gives each shape and engine: ``corpus`` (the case ids), ``fuzz`` (the classes),
``nothing``, or ``n/a`` when the shape cannot be planted in that engine (the reason says
what owns it). The totals count the planted rows. ``--quick`` fuzzes 5 s a run;
``--fuzz-games N`` bounds each fuzz run by its games instead (``jhyap fuzz --games N``: the
same classes whatever the machine's load, as the tests use it; nothing shrunk, which would
change no class); ``--cases`` replays only the
corpus cases whose ids match (``jhyap run -k``), as the tests do.
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import json
import os
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import jhyap_kit  # noqa: E402
from jhyap_core.cards import parse_cards  # noqa: E402
from jhyap_core.table import Throw as PlacedThrow  # noqa: E402
from jhyap_core.vocabulary import ErrorCode, JhyapError, Phase, ThrowKind  # noqa: E402
from jhyap_kit import Pick, Source, Throw  # noqa: E402
from reference_engine.rules import ShowdownTie, WinnerAmongLowest  # noqa: E402

JS_SERVER = ROOT / "bench" / "planted_bugs.mjs"
TARGET = "12345678910111213"  # the string a substring run check searches
FULL_FUZZ_SECONDS = 60.0  # issue 37's target: one default fuzz run of 60 s per profile
QUICK_FUZZ_SECONDS = 5.0
CAUGHT_OUTCOMES = frozenset({"failed", "errored", "crashed", "timed_out"})

# -- the shapes -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    what: str
    source: str  # where the shape comes from: issue 37, or a mutant of tests/mutants/


SHAPES: dict[str, Shape] = {
    "run_ranks_substring": Shape(
        "a run accepted when its ranks, joined, appear in '12345678910111213' (Ac Ad 2c)",
        "issue 37",
    ),
    "run_lowest_suit_unchecked": Shape(
        "a run whose lowest card's suit is never checked (4c 3c 2h)", "issue 37"
    ),
    "run_with_gaps": Shape("a run in one suit accepted with gaps in its ranks", "issue 37"),
    "beaten_call_to_last_lower_seat": Shape(
        "a beaten call won by the last seat at or below the caller, not the lowest hand",
        "issue 37",
    ),
    "thrown_cards_laid_in_hand_order": Shape(
        "a thrown set or run laid in hand order instead of the order chosen", "issue 37"
    ),
    "own_thrown_card_picked_back": Shape(
        "a pick gives the player back a card of the throw just made", "issue 37"
    ),
    "wrong_next_starter": Shape(
        "the next hand is started by the seat after the one the rules name", "issue 37"
    ),
    "caller_wins_a_tie": Shape(
        "a hand equal to the caller's does not beat the call",
        "tests/mutants/engine.py tie_to_caller",
    ),
    "tie_broken_by_seat_number": Shape(
        "among equal lowest hands the lowest seat number wins",
        "tests/mutants/engine.py tie_break_by_seat_number",
    ),
    "ace_high_runs": Shape(
        "Q K A accepted as a run where aces are low", "tests/mutants/engine.py ace_high_runs"
    ),
    "two_card_runs": Shape(
        "two neighbouring cards of one suit accepted as a run",
        "tests/mutants/engine.py two_card_runs",
    ),
    "mixed_suit_runs": Shape(
        "a run of consecutive ranks accepted in several suits",
        "tests/mutants/engine.py mixed_suit_runs",
    ),
    "call_limit_boundary": Shape(
        "a hand worth exactly the call limit read the other way (inclusive/exclusive)",
        "tests/mutants/engine.py limit_exclusive",
    ),
    "beaten_penalty_off_by_5": Shape(
        "a beaten call's penalty 5 more than the rules say",
        "tests/mutants/engine.py penalty_30, planted.py failed_show_penalty_20",
    ),
    "out_on_reaching_the_threshold": Shape(
        "a seat reaching the elimination score is out (not only above it)",
        "tests/mutants/engine.py out_at_100",
    ),
    "pick_rule_misread": Shape(
        "the offer's pickable cards misread: the ends only where any card may be taken "
        "(python-loop), any card where only a run's ends may (object-api), the last only "
        "where the first or the last may (javascript-object)",
        "tests/mutants/engine.py dashain_run_middle, dhumbal_run_ends; "
        "rules.py first_or_last_read_as_last",
    ),
    "refused_throw_loses_the_cards": Shape(
        "a throw refused as illegal has already taken its cards out of the hand",
        "tests/mutants/planted.py refused_throw_loses_the_cards",
    ),
    "won_call_others_pay_nothing": Shape(
        "after a won call the others' scores do not change",
        "tests/mutants/planted.py won_call_others_pay_nothing",
    ),
    "first_round_lock_everywhere": Shape(
        "no call before every player has had a turn, where the rules allow one",
        "tests/mutants/engine.py first_round_lock_everywhere",
    ),
    "joker_worth_one": Shape(
        "a joker counts 1 instead of its value", "tests/mutants/planted.py joker_worth_one"
    ),
    "king_valued_as_queen": Shape(
        "a king counted at a queen's value", "tests/mutants/rules.py king_valued_as_queen"
    ),
    "score_cut_on_any_score_past": Shape(
        "a score cut applied to any total at or past its score, not exactly at it",
        "tests/mutants/planted.py cut_at_any_score_past_200",
    ),
}

# -- buggy predicates on (rank, suit) pairs, rank 0 a joker: shared by every engine ---------

Cards = Sequence[tuple[int, str]]


def _naturals(cards: Cards) -> bool:
    return all(rank != 0 for rank, _ in cards)


def _consecutive(ranks: Sequence[int]) -> bool:
    ordered = sorted(ranks)
    return ordered == list(range(ordered[0], ordered[0] + len(ordered)))


def substring_run(cards: Cards) -> bool:
    ranks = sorted(rank for rank, _ in cards)
    return len(cards) >= 3 and _naturals(cards) and "".join(map(str, ranks)) in TARGET


def lowest_suit_unchecked_run(cards: Cards) -> bool:
    ordered = sorted(cards)
    return (
        len(cards) >= 3
        and _naturals(cards)
        and len({suit for _, suit in ordered[1:]}) == 1
        and _consecutive([rank for rank, _ in cards])
    )


def gapped_run(cards: Cards) -> bool:
    ranks = [rank for rank, _ in cards]
    return (
        len(cards) >= 3
        and _naturals(cards)
        and len({suit for _, suit in cards}) == 1
        and len(set(ranks)) == len(ranks)
    )


def ace_high_run(cards: Cards) -> bool:
    ranks = [14 if rank == 1 else rank for rank, _ in cards]
    return (
        len(cards) >= 3
        and _naturals(cards)
        and len({suit for _, suit in cards}) == 1
        and _consecutive(ranks)
    )


def two_card_run(cards: Cards) -> bool:
    return (
        len(cards) == 2
        and _naturals(cards)
        and cards[0][1] == cards[1][1]
        and abs(cards[0][0] - cards[1][0]) == 1
    )


def mixed_suit_run(cards: Cards) -> bool:
    return len(cards) >= 3 and _naturals(cards) and _consecutive([rank for rank, _ in cards])


RUN_PREDICATES: dict[str, Callable[[Cards], bool]] = {
    "run_ranks_substring": substring_run,
    "run_lowest_suit_unchecked": lowest_suit_unchecked_run,
    "run_with_gaps": gapped_run,
    "ace_high_runs": ace_high_run,
    "two_card_runs": two_card_run,
    "mixed_suit_runs": mixed_suit_run,
}

# Who wins a beaten call, by shape: (values, turn order after the caller, caller) -> winner.
Winner = Callable[[Mapping[int, int], Sequence[int], int], int | None]


def last_lower_seat(values: Mapping[int, int], order: Sequence[int], caller: int) -> int | None:
    lower = [s for s in order if s != caller and values[s] <= values[caller]]
    return lower[-1] if lower else None


def lowest_seat_number(values: Mapping[int, int], order: Sequence[int], caller: int) -> int | None:
    others = [s for s in order if s != caller]
    lowest = min(values[s] for s in others)
    if lowest > values[caller]:
        return None
    return min(s for s in others if values[s] == lowest)


def caller_keeps_ties(values: Mapping[int, int], order: Sequence[int], caller: int) -> int | None:
    others = [s for s in order if s != caller]
    lowest = min(values[s] for s in others)
    return next(s for s in others if values[s] == lowest) if lowest < values[caller] else None


def first_lowest(values: Mapping[int, int], order: Sequence[int], caller: int) -> int | None:
    """The examples' own rule: the first lowest hand after the caller, a tie beating it."""
    others = [s for s in order if s != caller]
    lowest = min(values[s] for s in others)
    return next(s for s in others if values[s] == lowest) if lowest <= values[caller] else None


WINNERS: dict[str, Winner] = {
    "beaten_call_to_last_lower_seat": last_lower_seat,
    "tie_broken_by_seat_number": lowest_seat_number,
    "caller_wins_a_tie": caller_keeps_ties,
}

# -- the engines ----------------------------------------------------------------------------

# A Python plant: given the binding's module, the engine class to serve with the bug in.
PythonPlant = Callable[[ModuleType], type]


class Language(StrEnum):
    PYTHON = "python"
    JAVASCRIPT = "javascript"


@dataclass(frozen=True)
class Engine:
    name: str
    binding: Path
    language: Language
    run_profile: str | None  # jhyap run --profile; None: every case as written
    fuzz_profile: str  # the profile fuzzed (a shipped id or a file)
    plants: Mapping[str, PythonPlant] = field(default_factory=dict)  # Python engines
    js_plants: frozenset[str] = frozenset()  # shapes bench/planted_bugs.mjs plants
    not_plantable: Mapping[str, str] = field(default_factory=dict)  # shape -> why not

    def command(self, shape: str | None) -> list[str]:
        if self.language is Language.JAVASCRIPT:
            return ["node", str(JS_SERVER if shape else self.binding), *([shape] if shape else [])]
        if shape is None:
            return [sys.executable, str(self.binding)]
        return [sys.executable, str(Path(__file__).resolve()), "--serve", self.name, shape]

    def planted(self, shape: str) -> bool:
        return shape in self.plants or shape in self.js_plants


def load_binding(path: Path) -> ModuleType:
    """The binding module at ``path``, imported without serving (its ``__main__`` skipped).

    Each call loads a fresh copy of it and of the modules beside it (the game it binds), so
    that a plant changes only this copy: sys.modules and sys.path are left as they were."""
    folder = path.resolve().parent
    spec = importlib.util.spec_from_file_location(f"planted_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)

    def beside() -> dict[str, ModuleType]:
        return {
            name: loaded
            for name, loaded in list(sys.modules.items())
            if Path(getattr(loaded, "__file__", None) or "/").resolve().parent == folder
        }

    saved, path_before = beside(), list(sys.path)  # a binding puts its folder on sys.path
    for name in saved:
        del sys.modules[name]
    try:
        spec.loader.exec_module(module)
    finally:
        for name in beside():
            del sys.modules[name]
        sys.modules.update(saved)
        sys.path[:] = path_before
    return module


class _Proxy:
    """A module seen through an override of some of its functions."""

    def __init__(self, module: ModuleType, **overrides: Any) -> None:
        self._module = module
        self.__dict__.update(overrides)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, name)


# -- plants shared by the two Python bindings (hooks of the kit's TrackedEngine) -------------


def _laid_in_hand_order(base: type) -> type:
    class Planted(base):  # type: ignore[misc]
        def laid(self, cards: tuple[str, ...], kind: Any) -> tuple[str, ...]:
            table = self.table  # laid is asked before the cards leave the hand
            hand = list(table.hands[table.to_act]) if table and table.to_act is not None else []
            if not all(c in hand for c in cards):
                return tuple(super().laid(cards, kind))
            return tuple(sorted(cards, key=hand.index))

    return Planted


def _own_card_back(base: type) -> type:

    class Planted(base):  # type: ignore[misc]
        own_pick = False

        def act(self, seat: int, action: Any) -> Any:
            t = self.core
            card = getattr(action, "card", None)
            if (
                isinstance(action, Pick)
                and action.source is Source.OFFER
                and t is not None
                and t.phase is Phase.PICK
                and t.to_act == seat
                and t.thrown is not None
                and t.offer is not None
                and card is not None
                and not any(c.name == card for c in t.offer.cards)
                and any(c.name == card for c in t.thrown.cards)
            ):
                # The card goes back to the hand: put on offer for the pick, out of the throw.
                own = next(c for c in t.thrown.cards if c.name == card)
                rest = list(t.thrown.cards)
                rest.remove(own)
                t.offer = PlacedThrow((*t.offer.cards, own), t.offer.kind)
                t.thrown = PlacedThrow(tuple(rest), t.thrown.kind)
                self.own_pick = True
                try:
                    return super().act(seat, action)
                finally:
                    self.own_pick = False
            return super().act(seat, action)

        def pickable_positions(self, offer: tuple[str, ...], kind: Any) -> tuple[int, ...]:
            if self.own_pick:
                return tuple(range(len(offer)))
            return tuple(super().pickable_positions(offer, kind))

    return Planted


def _next_starter_one_on(base: type) -> type:
    class Planted(base):  # type: ignore[misc]
        def start(self, profile: Any, options: Any, seats: int) -> None:
            super().start(profile, options, seats)
            table = self.core
            right = table._next_starter

            def next_starter(caller: int | None, winner: int | None, out: Sequence[int]) -> int:
                return int(table.next_active(right(caller, winner, out)))

            table._next_starter = next_starter

    return Planted


def _refused_throw_discards(base: type) -> type:

    class Planted(base):  # type: ignore[misc]
        def act(self, seat: int, action: Any) -> Any:
            try:
                return super().act(seat, action)
            except JhyapError:
                t = self.core
                if isinstance(action, Throw) and t is not None and t.to_act == seat:
                    hand = t.hands[seat]
                    for card in [c for c in hand if c.name in action.cards]:
                        hand.remove(card)
                raise

    return Planted


def _ends_only(base: type) -> type:
    class Planted(base):  # type: ignore[misc]
        def pickable_positions(self, offer: tuple[str, ...], kind: Any) -> tuple[int, ...]:
            return (0, len(offer) - 1) if len(offer) > 1 else tuple(range(len(offer)))

    return Planted


def _any_card(base: type) -> type:
    class Planted(base):  # type: ignore[misc]
        def pickable_positions(self, offer: tuple[str, ...], kind: Any) -> tuple[int, ...]:
            return tuple(range(len(offer)))

    return Planted


def _hook_plant(wrap: Callable[[type], type], attribute: str) -> PythonPlant:
    def plant(module: ModuleType) -> type:
        return wrap(getattr(module, attribute))

    return plant


# -- examples/python-loop: the console game's functions and its binding ----------------------


def _loop_run(shape: str) -> PythonPlant:
    predicate = RUN_PREDICATES[shape]

    def plant(module: ModuleType) -> type:
        dg = module.dg
        right = dg.discard_kind

        def discard_kind(cards: list[Any]) -> str | None:
            kind = right(cards)
            if kind is None and predicate([(c.rank, c.suit[0]) for c in cards]):
                return "run"
            return kind  # type: ignore[no-any-return]

        dg.discard_kind = discard_kind  # the game and its binding both call it
        return module.BoundDhumbal  # type: ignore[no-any-return]

    return plant


def _loop_winner(shape: str) -> PythonPlant:
    return _loop_showdown(WINNERS[shape])


def _loop_showdown(choose: Winner, others_pay: bool = True) -> PythonPlant:
    def plant(module: ModuleType) -> type:
        dg = module.dg

        class Planted(module.Table):  # type: ignore[name-defined, misc]
            def showdown(self, shower: int) -> None:
                # Game.showdown with its choice of winner replaced by ``choose`` (and,
                # unless ``others_pay``, the others' hands not scored after a won call).
                points = [dg.hand_points(p.hand) if not p.out else 0 for p in self.players]
                order, seat = [], self.next_alive(shower)
                while seat != shower:
                    order.append(seat)
                    seat = self.next_alive(seat)
                found = choose(dict(enumerate(points)), order, shower)
                winner = shower if found is None else found
                before = [p.score for p in self.players]
                if winner == shower:
                    for s in order:
                        self.players[s].score += points[s] if others_pay else 0
                else:
                    self.players[shower].score += points[shower] + dg.FAILED_SHOW_PENALTY
                over = [s for s in self.alive() if self.players[s].score > dg.OUT_ABOVE]
                if len(over) == len(self.alive()):
                    least = min(self.players[s].score for s in over)
                    over = [s for s in over if self.players[s].score != least]
                for s in over:
                    self.players[s].out = True
                scores = [p.score for p in self.players]
                deltas = [a - b for a, b in zip(scores, before, strict=True)]
                self.history.append(dg.RoundSummary(shower, winner, deltas, scores, over))
                out = self.players[winner].out
                self.starter = winner if not out else self.next_alive(winner)

        module.Table = Planted  # type: ignore[attr-defined]  # the binding opens module.Table
        return module.BoundDhumbal  # type: ignore[no-any-return]

    return plant


def _loop_constant(name: str, change: Callable[[int], int]) -> PythonPlant:
    """A module constant of the game read wrong (after the binding declared the right one)."""

    def plant(module: ModuleType) -> type:
        setattr(module.dg, name, change(getattr(module.dg, name)))
        return module.BoundDhumbal  # type: ignore[no-any-return]

    return plant


def _loop_show_limit_exclusive(module: ModuleType) -> type:
    def can_show(self: Any, player: Any) -> bool:
        return bool(module.dg.hand_points(player.hand) < self.show_limit)

    module.dg.Game.can_show = can_show
    return module.BoundDhumbal  # type: ignore[no-any-return]


def _loop_king_as_queen(module: ModuleType) -> type:
    module.dg.Card.points = property(lambda card: 12 if card.rank == 13 else card.rank)
    return module.BoundDhumbal  # type: ignore[no-any-return]


PYTHON_LOOP = Engine(
    "python-loop",
    ROOT / "examples" / "python-loop" / "bind.py",
    Language.PYTHON,
    str(ROOT / "examples" / "python-loop" / "rules.yaml"),
    str(ROOT / "examples" / "python-loop" / "rules.yaml"),
    plants={
        **{shape: _loop_run(shape) for shape in RUN_PREDICATES},
        **{shape: _loop_winner(shape) for shape in WINNERS},
        "thrown_cards_laid_in_hand_order": _hook_plant(_laid_in_hand_order, "BoundDhumbal"),
        "own_thrown_card_picked_back": _hook_plant(_own_card_back, "BoundDhumbal"),
        "wrong_next_starter": _hook_plant(_next_starter_one_on, "BoundDhumbal"),
        "refused_throw_loses_the_cards": _hook_plant(_refused_throw_discards, "BoundDhumbal"),
        "pick_rule_misread": _hook_plant(_ends_only, "BoundDhumbal"),
        "call_limit_boundary": _loop_show_limit_exclusive,
        "beaten_penalty_off_by_5": _loop_constant("FAILED_SHOW_PENALTY", lambda p: p + 5),
        "out_on_reaching_the_threshold": _loop_constant("OUT_ABOVE", lambda p: p - 1),
        "king_valued_as_queen": _loop_king_as_queen,
        "won_call_others_pay_nothing": _loop_showdown(first_lowest, others_pay=False),
    },
    not_plantable={
        "score_cut_on_any_score_past": "the game has no score cuts",
        "joker_worth_one": "the game plays no jokers",
        "first_round_lock_everywhere": "the game keeps no count of turns to lock a call by",
    },
)

# -- tests/kit_engines/object_api.py: the rule functions its hooks call ----------------------


def _object_run(shape: str) -> PythonPlant:
    predicate = RUN_PREDICATES[shape]

    def plant(module: ModuleType) -> type:
        throws = module.throws

        def classify(cards: Sequence[Any], rules: Any) -> Any:
            kind = throws.classify(cards, rules)
            if kind is None and predicate([(c.rank, c.suit) for c in cards]):
                return ThrowKind.RUN
            return kind

        module.throws = _Proxy(throws, classify=classify)  # type: ignore[attr-defined]
        return module.ObjectApiEngine  # type: ignore[no-any-return]

    return plant


def _object_last_lower_seat(module: ModuleType) -> type:
    scoring = module.scoring

    def showdown(values: Mapping[int, int], order: Sequence[int], caller: int, rules: Any) -> Any:
        right = scoring.showdown(values, order, caller, rules)
        found = last_lower_seat(values, order, caller)
        if found is None or found == right.winner or right.winner == caller:
            return right
        # The reference's scoring with ``found`` made the unique lowest hand (value -1),
        # its real value put back where the scoring counts it.
        result = scoring.showdown({**values, found: -1}, order, caller, rules)
        deltas = dict(result.deltas)
        if deltas[found] == -1:
            deltas[found] = values[found]
        elif deltas[caller] < 0 and rules.scoring.beaten_call.value != "hands_except_winner":
            deltas[caller] -= values[found] + 1  # a transfer counted the winner's hand as -1
            deltas[found] += values[found] + 1
        return replace(result, deltas=deltas)

    module.scoring = _Proxy(scoring, showdown=showdown)  # type: ignore[attr-defined]
    return module.ObjectApiEngine  # type: ignore[no-any-return]


def _tie_read_the_other_way(original: Any) -> Any:

    def showdown(values: Any, order: Any, caller: int, rules: Any) -> Any:
        other = next(t for t in ShowdownTie if t is not rules.showdown.tie)
        return original(values, order, caller, rules.with_values({"showdown.tie": other}))

    return showdown


def _tie_by_seat_number(original: Any) -> Any:

    def showdown(values: Any, order: Any, caller: int, rules: Any) -> Any:
        lowest = rules.with_values({"showdown.winner_among_lowest": WinnerAmongLowest.LOWEST_SEAT})
        return original(values, order, caller, lowest)

    return showdown


def _object_rules(module_name: str, function: str, wrap: Callable[[Any], Any]) -> PythonPlant:
    """A rule function of the reference that the binding calls, overridden in the binding."""

    def plant(module: ModuleType) -> type:
        original = getattr(module, module_name)
        setattr(
            module, module_name, _Proxy(original, **{function: wrap(getattr(original, function))})
        )
        return module.ObjectApiEngine  # type: ignore[no-any-return]

    return plant


def _limit_boundary(original: Any) -> Any:
    def call_refusal(value: int, turns: int, players: int, rules: Any, *seats: Any) -> Any:
        flipped = rules.with_values({"calling.inclusive": not rules.calling.inclusive})
        return original(value, turns, players, flipped, *seats)

    return call_refusal


def _penalty_plus_5(original: Any) -> Any:
    def showdown(values: Any, order: Any, caller: int, rules: Any) -> Any:
        return original(
            values,
            order,
            caller,
            rules.with_values({"scoring.beaten_penalty": rules.scoring.beaten_penalty + 5}),
        )

    return showdown


def _out_on_reaching(original: Any) -> Any:
    def eliminated_after(scores: Any, active: Any, rules: Any) -> Any:
        if rules.game_end.out_above is None:
            return original(scores, active, rules)
        return original(
            scores, active, rules.with_values({"game_end.out_above": rules.game_end.out_above - 1})
        )

    return eliminated_after


def _cut_past(original: Any) -> Any:
    def cut_score(total: int, rules: Any) -> int:
        for cut in rules.scoring.cuts:
            if total >= cut.at:
                return int(cut.to)
        return int(original(total, rules))

    return cut_score


def _won_call_nobody_pays(original: Any) -> Any:
    def showdown(values: Any, order: Any, caller: int, rules: Any) -> Any:
        result = original(values, order, caller, rules)
        if result.winner != caller:
            return result
        return replace(
            result, deltas={s: (d if s == caller else 0) for s, d in result.deltas.items()}
        )

    return showdown


def _first_round_locked(original: Any) -> Any:
    def call_refusal(value: int, turns: int, players: int, rules: Any, *seats: Any) -> Any:
        if turns < players:
            return ErrorCode.CALL_TOO_EARLY
        return original(value, turns, players, rules, *seats)

    return call_refusal


def _object_joker_worth_one(module: ModuleType) -> type:
    class Planted(module.ObjectApiEngine):  # type: ignore[name-defined, misc]
        def hand_value(self, cards: Sequence[str]) -> int:
            values = self.model.cards.rank_values
            return sum(1 if c.rank == 0 else values[c.rank] for c in parse_cards(list(cards)))

    return Planted


def _object_king_as_queen(module: ModuleType) -> type:

    class Planted(module.ObjectApiEngine):  # type: ignore[name-defined, misc]
        def hand_value(self, cards: Sequence[str]) -> int:
            values = self.model.cards.rank_values
            return sum(values[12 if c.rank == 13 else c.rank] for c in parse_cards(list(cards)))

    return Planted


OBJECT_API = Engine(
    "object-api",
    ROOT / "tests" / "kit_engines" / "object_api.py",
    Language.PYTHON,
    None,
    "dhumbal",
    plants={
        **{shape: _object_run(shape) for shape in RUN_PREDICATES},
        "beaten_call_to_last_lower_seat": _object_last_lower_seat,
        "caller_wins_a_tie": _object_rules("scoring", "showdown", _tie_read_the_other_way),
        "tie_broken_by_seat_number": _object_rules("scoring", "showdown", _tie_by_seat_number),
        "thrown_cards_laid_in_hand_order": _hook_plant(_laid_in_hand_order, "ObjectApiEngine"),
        "own_thrown_card_picked_back": _hook_plant(_own_card_back, "ObjectApiEngine"),
        "wrong_next_starter": _hook_plant(_next_starter_one_on, "ObjectApiEngine"),
        "refused_throw_loses_the_cards": _hook_plant(_refused_throw_discards, "ObjectApiEngine"),
        "pick_rule_misread": _hook_plant(_any_card, "ObjectApiEngine"),
        "call_limit_boundary": _object_rules("calling", "call_refusal", _limit_boundary),
        "beaten_penalty_off_by_5": _object_rules("scoring", "showdown", _penalty_plus_5),
        "out_on_reaching_the_threshold": _object_rules(
            "game_end", "eliminated_after", _out_on_reaching
        ),
        "king_valued_as_queen": _object_king_as_queen,
        "score_cut_on_any_score_past": _object_rules("scoring", "cut_score", _cut_past),
        "won_call_others_pay_nothing": _object_rules("scoring", "showdown", _won_call_nobody_pays),
        "first_round_lock_everywhere": _object_rules(
            "calling", "call_refusal", _first_round_locked
        ),
        "joker_worth_one": _object_joker_worth_one,
    },
)

# Which profile fuzz plays a shape under on the object-API binding (default: dhumbal).
OBJECT_API_FUZZ_PROFILES = {
    "thrown_cards_laid_in_hand_order": "everestbuzz",
    "pick_rule_misread": "dashain",
    "score_cut_on_any_score_past": "yaniv-israel",
    "ace_high_runs": "bga-yaniv",
    "joker_worth_one": "bga-yaniv",
}

# -- examples/javascript-object: yaniv.mjs's methods (planted by bench/planted_bugs.mjs) ------

JS_KIT_OWNS = "the JavaScript kit keeps this in private fields: no engine method decides it"

JAVASCRIPT_OBJECT = Engine(
    "javascript-object",
    ROOT / "examples" / "javascript-object" / "bind.mjs",
    Language.JAVASCRIPT,
    str(ROOT / "examples" / "javascript-object" / "rules.yaml"),
    str(ROOT / "examples" / "javascript-object" / "rules.yaml"),
    js_plants=frozenset(
        {
            *RUN_PREDICATES,
            *WINNERS,
            "thrown_cards_laid_in_hand_order",
            "call_limit_boundary",
            "beaten_penalty_off_by_5",
            "out_on_reaching_the_threshold",
            "pick_rule_misread",
            "won_call_others_pay_nothing",
            "joker_worth_one",
        }
    ),
    not_plantable={
        "own_thrown_card_picked_back": JS_KIT_OWNS + " (the offer a pick takes from)",
        "wrong_next_starter": JS_KIT_OWNS + " (each deal overwrites the library's starter)",
        "refused_throw_loses_the_cards": JS_KIT_OWNS + " (the hands; the library refuses first)",
        "king_valued_as_queen": "kings and queens are both worth 10 in Yaniv",
        "score_cut_on_any_score_past": "the cut is an inline test in Game.yaniv",
        "first_round_lock_everywhere": "the library keeps no count of turns to lock a call by",
    },
)

ENGINES: dict[str, Engine] = {e.name: e for e in (PYTHON_LOOP, OBJECT_API, JAVASCRIPT_OBJECT)}


def fuzz_profile(engine: str, shape: str) -> str:
    if engine == "object-api":
        return OBJECT_API_FUZZ_PROFILES.get(shape, OBJECT_API.fuzz_profile)
    return ENGINES[engine].fuzz_profile


def serve(engine: str, shape: str) -> int:
    """Serve ``engine`` with ``shape`` planted, over the protocol on stdin/stdout."""

    found = ENGINES[engine]
    module = load_binding(found.binding)
    engine_class = found.plants[shape](module)
    return int(jhyap_kit.main(engine_class()))


# -- judging ----------------------------------------------------------------------------------


class Verdict(StrEnum):
    CORPUS = "corpus"  # cases of the corpus fail with the bug in
    FUZZ = "fuzz"  # the corpus passed; fuzz found a divergence
    NOTHING = "nothing"  # neither
    BROKEN = "broken"  # the planted engine gave no report
    NOT_PLANTABLE = "n/a"  # the shape has no plant in that engine


@dataclass(frozen=True)
class Row:
    shape: str
    engine: str
    verdict: Verdict
    cases: tuple[str, ...] = ()
    fuzz_classes: tuple[str, ...] = ()
    fuzz_signatures: tuple[str, ...] = ()
    fuzzed: bool = False  # a fuzz run judged it (the corpus missed it, or --fuzz-all)
    note: str = ""
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "shape": self.shape,
            "engine": self.engine,
            "verdict": self.verdict.value,
            "cases": list(self.cases),
            "fuzz_classes": list(self.fuzz_classes),
            "fuzz_signatures": list(self.fuzz_signatures),
            "fuzzed": self.fuzzed,
            "note": self.note,
            "seconds": round(self.seconds, 2),
        }


def _jhyap(args: Sequence[str], timeout: float) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "conformance", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def corpus_failures(
    engine: str, shape: str | None, folder: Path, cases: Sequence[str] = ()
) -> tuple[set[str], str]:
    """The cases (``id@profile``) that do not pass against the engine, and a problem if the
    run gave no report; ``cases``: only the ids matching these patterns (none: every case)."""
    found = ENGINES[engine]
    report = folder / f"run-{engine}-{shape or 'none'}.json"
    args = ["run", "--engine", shlex.join(found.command(shape)), "--json", str(report), "-q"]
    for pattern in cases:
        args += ["-k", pattern]
    if found.run_profile:
        args += ["--profile", found.run_profile]
    done = _jhyap(args, timeout=900)
    if not report.exists():
        return set(), (done.stderr.strip().splitlines() or ["no report"])[-1]
    results = json.loads(report.read_text())["results"]
    failed = {f"{r['id']}@{r['profile']}" for r in results if r["outcome"] in CAUGHT_OUTCOMES}
    return failed, ""


def fuzz_findings(
    engine: str,
    shape: str | None,
    profile: str,
    seconds: float,
    seed: int,
    known: Sequence[str],
    folder: Path,
    games: int | None = None,
) -> list[dict[str, Any]]:
    """The divergences of one seeded ``jhyap fuzz`` run of ``seconds``, or of ``games``
    games when given (``known`` signatures listed as known divergences)."""
    found = ENGINES[engine]
    tag = f"{engine}-{shape or 'none'}-{Path(profile).stem}"
    report = folder / f"fuzz-{tag}.json"
    # A run of so many games finds the same classes whether or not it shrinks them (its games
    # do not depend on the shrinks, as a timed run's number of games does): the table reads
    # only the classes, so nothing is shrunk.
    bound = ["--time", f"{seconds:g}"]
    if games is not None:
        bound = ["--games", str(games), "--shrink-budget", "0"]
    args = ["fuzz", "--engine", shlex.join(found.command(shape)), *bound]
    args += ["--seed", str(seed), "--json", str(report), "--out", str(folder / f"out-{tag}")]
    args += ["--profile", profile]
    if known:
        listed = folder / f"known-{tag}.json"
        entries = [
            {"signature": glob.escape(s), "reason": "met by the unplanted engine"} for s in known
        ]
        listed.write_text(json.dumps(entries))
        args += ["--known-divergences", str(listed)]
    done = _jhyap(args, timeout=seconds * 4 + 300)
    if not report.exists():
        problem = (done.stderr.strip().splitlines() or ["no report"])[-1]
        raise FuzzUnusable(f"jhyap fuzz gave no report: {problem}")
    return list(json.loads(report.read_text()).get("divergences", []))


class FuzzUnusable(Exception):
    """A fuzz run that wrote no report (the engine did not start, a usage error)."""


@dataclass(frozen=True)
class Settings:
    fuzz_seconds: float
    seed: int
    fuzz_all: bool
    folder: Path
    cases: tuple[str, ...] = ()  # id patterns of the corpus cases replayed (none: every case)
    fuzz_games: int | None = None  # each fuzz run bounded by its games, not by fuzz_seconds

    def fuzz_bound(self) -> str:
        if self.fuzz_games is not None:
            return f"{self.fuzz_games} game{'s' if self.fuzz_games != 1 else ''}"
        return f"{self.fuzz_seconds:g} s"


def judge(
    shape: str,
    engine: str,
    settings: Settings,
    baseline: Mapping[str, set[str]],
    known: Callable[[str, str], Sequence[str]],
) -> Row:
    found = ENGINES[engine]
    if not found.planted(shape):
        why = found.not_plantable.get(shape, "no plant written")
        return Row(shape, engine, Verdict.NOT_PLANTABLE, note=why)
    began = time.monotonic()
    failed, problem = corpus_failures(engine, shape, settings.folder, settings.cases)
    cases = tuple(sorted(failed - baseline[engine]))
    row = Row(shape, engine, Verdict.CORPUS if cases else Verdict.NOTHING, cases, note=problem)
    if problem and not failed:
        row = replace(row, verdict=Verdict.BROKEN)
    if settings.fuzz_all or row.verdict is Verdict.NOTHING:
        profile = fuzz_profile(engine, shape)
        try:
            findings = fuzz_findings(
                engine,
                shape,
                profile,
                settings.fuzz_seconds,
                settings.seed,
                known(engine, profile),
                settings.folder,
                settings.fuzz_games,
            )
        except FuzzUnusable as exc:
            return replace(row, note=str(exc), seconds=time.monotonic() - began)
        classes = tuple(sorted({f["class"] for f in findings}))
        signatures = tuple(f["signature"] for f in findings)
        row = replace(row, fuzz_classes=classes, fuzz_signatures=signatures, fuzzed=True)
        if row.verdict is Verdict.NOTHING and findings:
            row = replace(row, verdict=Verdict.FUZZ)
    return replace(row, seconds=time.monotonic() - began)


class _Baselines:
    """The fuzz divergences of each unplanted engine under each profile, found once (the
    same seed and time, or games, as the planted runs): they are not the plants'."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.found: dict[tuple[str, str], list[str]] = {}
        self.lock = threading.Lock()

    def __call__(self, engine: str, profile: str) -> list[str]:
        with self.lock:
            if (engine, profile) not in self.found:
                s = self.settings
                findings = fuzz_findings(
                    engine, None, profile, s.fuzz_seconds, s.seed, (), s.folder, s.fuzz_games
                )
                self.found[(engine, profile)] = [f["signature"] for f in findings]
            return self.found[(engine, profile)]


def measure(
    shapes: Sequence[str], engines: Sequence[str], settings: Settings, jobs: int
) -> list[Row]:
    known = _Baselines(settings)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        baseline = dict(
            zip(
                engines,
                pool.map(
                    lambda e: corpus_failures(e, None, settings.folder, settings.cases)[0],
                    engines,
                ),
                strict=True,
            )
        )
        pairs = [(s, e) for s in shapes for e in engines]
        return list(pool.map(lambda p: judge(p[0], p[1], settings, baseline, known), pairs))


# -- the table --------------------------------------------------------------------------------


def totals(rows: Sequence[Row]) -> dict[str, int]:
    counted = {v.value: sum(r.verdict is v for r in rows) for v in Verdict}
    counted["planted"] = sum(r.verdict is not Verdict.NOT_PLANTABLE for r in rows)
    return counted


def _caught_by(row: Row) -> str:
    if row.verdict is Verdict.CORPUS:
        shown = ", ".join(row.cases[:3])
        more = f" (+{len(row.cases) - 3} more)" if len(row.cases) > 3 else ""
        return f"corpus: {shown}{more}"
    if row.verdict is Verdict.FUZZ:
        return f"fuzz: {', '.join(row.fuzz_classes)} ({row.fuzz_signatures[0]})"
    if row.verdict is Verdict.NOT_PLANTABLE:
        return f"n/a: {row.note}"
    if row.verdict is Verdict.BROKEN:
        return f"broken: {row.note}"
    return "nothing"


def table_text(rows: Sequence[Row], settings: Settings) -> str:
    lines = [
        f"planted bugs: corpus, then one `jhyap fuzz` run of {settings.fuzz_bound()} "
        f"(seed {settings.seed}) where the corpus catches nothing",
        f"{'shape':<34} {'engine':<18} caught by",
    ]
    for row in rows:
        lines.append(f"{row.shape:<34} {row.engine:<18} {_caught_by(row)}")
    count = totals(rows)
    lines.append(
        f"== {count['planted']} planted: {count['corpus']} caught by the corpus, "
        f"{count['fuzz']} only by fuzz, {count['nothing']} by nothing"
        + (f", {count['broken']} did not run" if count["broken"] else "")
        + f"; {count['n/a']} not plantable =="
    )
    return "\n".join(lines)


def report_json(rows: Sequence[Row], settings: Settings) -> dict[str, Any]:
    return {
        "fuzz_seconds": settings.fuzz_seconds,
        "fuzz_games": settings.fuzz_games,
        "seed": settings.seed,
        "fuzz_all": settings.fuzz_all,
        "shapes": {name: {"what": s.what, "source": s.source} for name, s in SHAPES.items()},
        "rows": [row.to_json() for row in rows],
        "totals": totals(rows),
    }


def _names(text: str | None, known: Mapping[str, object], what: str) -> list[str]:
    if not text:
        return list(known)
    chosen = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in chosen if n not in known]
    if unknown:
        raise SystemExit(f"unknown {what}: {', '.join(unknown)}; known: {', '.join(known)}")
    return chosen


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--serve", nargs=2, metavar=("ENGINE", "SHAPE"), help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help=f"fuzz {QUICK_FUZZ_SECONDS:g} s a run")
    bound = parser.add_mutually_exclusive_group()
    bound.add_argument("--fuzz-seconds", type=float, help=f"default {FULL_FUZZ_SECONDS:g}")
    bound.add_argument(
        "--fuzz-games", type=int, metavar="N", help="fuzz N games a run instead of a time"
    )
    parser.add_argument("--seed", type=int, default=0, help="the fuzz seed (default 0)")
    parser.add_argument("--jobs", type=int, default=2, help="plants judged at once (default 2)")
    parser.add_argument("--shapes", help="comma-separated shapes (default: all)")
    parser.add_argument("--engines", help="comma-separated engines (default: all)")
    parser.add_argument(
        "--cases", help="comma-separated id patterns: replay only these corpus cases (jhyap run -k)"
    )
    parser.add_argument(
        "--fuzz-all", action="store_true", help="fuzz plants the corpus catches too"
    )
    parser.add_argument("--json", metavar="FILE", help="write the table as JSON (- for stdout)")
    args = parser.parse_args(argv)
    if args.serve:
        return serve(*args.serve)
    if args.fuzz_games is not None and args.fuzz_games < 1:
        parser.error("--fuzz-games must be 1 or more")
    seconds = args.fuzz_seconds or (QUICK_FUZZ_SECONDS if args.quick else FULL_FUZZ_SECONDS)
    shapes = _names(args.shapes, SHAPES, "shapes")
    engines = _names(args.engines, ENGINES, "engines")
    with tempfile.TemporaryDirectory(prefix="planted-") as folder:
        cases = tuple(c.strip() for c in (args.cases or "").split(",") if c.strip())
        settings = Settings(seconds, args.seed, args.fuzz_all, Path(folder), cases, args.fuzz_games)
        rows = measure(shapes, engines, settings, max(1, args.jobs))
    text = table_text(rows, settings)
    if args.json == "-":
        print(text, file=sys.stderr)
        print(json.dumps(report_json(rows, settings), indent=2))
    else:
        print(text)
        if args.json:
            Path(args.json).write_text(json.dumps(report_json(rows, settings), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
