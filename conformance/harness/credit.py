"""Which clauses a failure points at first: those behind the expectation that differed.

A failing step may list many clauses (a whole game lists dozens). What differed says which
rule broke: a wrong ``round_ended.deltas`` is scoring, a wrong ``pickable`` is the pick
rule, ``call_over_limit`` where a call was expected accepted is the call limit. Each
difference is mapped to the rule parameters behind it (:func:`rule_paths`); the clauses
citing those parameters (their ``params``), else of their rule family, come first, the
most specific first (:func:`focused`). The failing step's context weighs too: the cards
it throws, how far into the hand it is, whether a new deck was made. Where nothing maps (a
crash, a timeout), the request's rules (a deal's), else the order of the transcript stand.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any, Final

from reference_engine.parameters import (
    EVENT_PARAMETERS,
    STATE_PARAMETERS,
    STEP_FAMILY,
    Family,
    registry,
)

from ..spec import memo

# Rule parameters (dotted prefixes of the profile's ``rules``) behind an event field, by
# ``type.field``, else by ``type``, and behind a state field; the first is the likeliest.
# The registry's (reference_engine/parameters.py), which gives each parameter its events.
EVENT_RULES: Final = EVENT_PARAMETERS
STATE_RULES: Final = STATE_PARAMETERS

# The refusal codes that are a rule's, and the parameters behind them.
ERROR_RULES: Final[Mapping[str, tuple[str, ...]]] = {
    "call_over_limit": ("call.limit", "call.inclusive", "card_values"),
    "call_too_early": ("call.first_round", "call.min_own_turns"),
    "illegal_throw": ("throws",),
    "pick_not_allowed": ("pick",),
    "invalid_seats": ("seats",),
    "timer_off": ("turn_timer",),
    "game_not_endable": ("game_end",),
    "option_locked": ("options",),
    "invalid_option_value": ("options",),
    "invalid_deck": ("deck.cards", "deck.jokers", "deck.packs_by_seats", "deck"),
    "invalid_reshuffle": ("reshuffle",),
    # A move the transcript expects accepted, refused for cards or a turn it does not see:
    # the hands, the offer or the turn order are not what the rules made them.
    "card_not_in_hand": ("deal", "hand_size", "pick"),
    "card_not_on_offer": ("deal.first_offer", "throws", "pick"),
    "not_your_turn": ("next_starter", "direction", "deal.dealer"),
}

# Who acts next mid-hand: the direction of play, or, once a seat is out, the skipping of it.
_NEXT_SEAT: Final = {False: ("direction", "game_end"), True: ("game_end", "direction")}

# The score cuts: what makes a total other than the sum of the rounds' points.
_CUTS: Final = (
    "scoring.cuts",
    "scoring.drop_at_multiples_of",
    "scoring.halve_at_multiples_of",
    "scoring.multiples_for",
)

# The rules a request stands for when nothing that differed names one (a crash, a hang).
_COMMAND_RULES: Final[Mapping[str, tuple[str, ...]]] = {
    "deal": ("deal", "deck"),
    "reshuffle": ("reshuffle",),
    "set_option": ("options",),
    "end_game": ("game_end",),
}

# The rules an action of its own stands for, whatever differed after it.
_ACTION_RULES: Final[Mapping[str, tuple[str, ...]]] = {
    "timeout": ("turn_timer.on_expiry", "turn_timer"),
    "slapdown": ("throws.slapdown",),
}

# What a round's points are, by its outcome: the parameters that score it.
_OUTCOME_SCORING: Final[Mapping[str, tuple[str, ...]]] = {
    "beaten_call": (
        "scoring.beaten_penalty",
        "scoring.beaten_call",
        "scoring.beaten_factor",
        "scoring.beaten_others",
    ),
    "won_call": ("scoring.won_call",),
    "deck_ran_out": ("deck_runs_out",),
}

_EVENT_PATH = re.compile(r"^events\[(\d+)\](?:\.(\w+))?")
# A deal sent with its layout whose ``dealt`` event reports another (replay.py).
_LAYOUT = re.compile(r"^dealt\.(hands|turned_up)\b")
_DEALT_HANDS = re.compile(r"^(dealt|events\[\d+\])\.hands\b")
_EVENT_COUNT = re.compile(r"^events: expected \d+ events \[(.*?)\], got \d+ \[(.*?)\]")


def _event_rules(kind: Any, field: str | None) -> tuple[str, ...]:
    if field is not None and f"{kind}.{field}" in EVENT_RULES:
        return EVENT_RULES[f"{kind}.{field}"]
    return EVENT_RULES.get(str(kind), ())


def _error_code(value: Any) -> str | None:
    if isinstance(value, Mapping):
        error = value.get("error")
        if isinstance(error, Mapping):
            error = error.get("code")
        return error if isinstance(error, str) else None
    return None


def _hand_sizes_differ(want: Any, actual: Any, index: int) -> bool:
    """Whether the engine dealt hands of other sizes than the expected ``dealt`` event's."""
    got = actual[index] if isinstance(actual, list) and index < len(actual) else None
    if not isinstance(want, Mapping) or not isinstance(got, Mapping):
        return False
    wanted, dealt = want.get("hands"), got.get("hands")
    if not isinstance(wanted, list) or not isinstance(dealt, list):
        return False
    return [len(h) for h in wanted if isinstance(h, list)] != [
        len(h) for h in dealt if isinstance(h, list)
    ]


def _sizes_differ(difference: str) -> bool:
    """Whether a ``dealt.hands[s]: expected [...], got [...]`` difference is of hand sizes."""
    want, _, got = difference.partition(": expected ")[2].partition(", got ")
    return want.count('"') != got.count('"')


# A legal difference in the throws (replay's _legal_differences): those missing, then those
# extra, each by its cards, "[9c X X]"; or the same throws in another order.
_LEGAL_THROWS = re.compile(r"^throws: (?:missing (.*?))?(?:; )?(?:extra (.*))?$")
_LISTED_THROW = re.compile(r"\[([^\]]*)\]")


def _legal_throw_rules(*shown: str) -> tuple[str, ...]:
    """The throw rules behind the listed throws that differ: of the first throw missing and
    the first extra, those of the one (the missing, else the extra) that is not a single."""
    found: list[str] = []
    for text in shown:
        first = _LISTED_THROW.search(text or "")
        if first:
            found += throw_rules(first.group(1).split())
    multi = [p for p in found if p not in ("throws.single", "throws")]
    return tuple(dict.fromkeys(multi or found))


def throw_rules(cards: Sequence[str]) -> tuple[str, ...]:
    """The throw parameters behind a throw of ``cards`` (names, ``X`` a joker) accepted or
    refused wrongly: a pair is the set rule, three of a suit the run rule, an ace in a run
    also its ace rule, a joker the joker rules."""
    if len(cards) < 2:
        return ("throws.single", "throws")
    naturals = [c for c in cards if c != "X"]
    ranks, suits = {c[:1] for c in naturals}, {c[1:] for c in naturals}
    jokers = ("deck.jokers_wild", "throws.set.jokers_alone") if len(naturals) < len(cards) else ()
    # A joker's throw judged wrongly is likeliest the joker rule; a short run, the run's
    # length; a longer one with an ace, the ace's place in runs.
    if len(ranks) <= 1:
        return (*jokers, "throws.set", "throws")
    if len(suits) == 1:
        ace = ("throws.run.ace", "throws.run.wrap") if "A" in ranks else ()
        naturals_rule = ("throws.run.min_naturals",) if jokers else ()
        if len(cards) < 3:
            return (*jokers, "throws.run.min", *ace, "throws.run", *naturals_rule, "throws")
        return (*jokers, *naturals_rule, *ace, "throws.run", "throws")
    return ("throws",)


def rule_paths(
    differences: Sequence[str],
    expected: Any,
    actual: Any,
    step_kind: str | None = None,
    *,
    action: str | None = None,
    moves: int | None = None,
    command: str | None = None,
    thrown: Sequence[str] | None = None,
    reshuffled: bool = False,
    seats_out: bool = False,
) -> tuple[str, ...]:
    """The rule parameters a failure's differences point at, likeliest first.

    The step's context weighs too (replay.py's ``_step_context``): ``command`` is its
    request's command, ``action`` its action type (``timeout``...), ``thrown`` the cards
    it throws, ``reshuffled`` whether a new deck was made since the deal, ``seats_out``
    whether a seat is out of the game, ``moves`` the accepted actions of the hand before
    it (None: no deal before it): the same difference means another rule on a hand's
    first moves (who starts, the turned-up card) than later on."""
    found: list[str] = []
    sizes = False  # a deal's hands are of other sizes
    if action is not None and action in _ACTION_RULES:
        found += _ACTION_RULES[action]
    # The code the engine answered says which rule it applied, wrongly: it comes first.
    codes = (_error_code(actual), _error_code(expected))
    if codes[1] == "wrong_phase" and action is not None:
        found.append("call.timing")  # the turn's phases: call, then throw, then pick
    if thrown is not None and "illegal_throw" in codes:
        found += throw_rules(thrown)  # which kind of throw was judged wrongly
    for code in codes:
        if code == "not_your_turn" and moves:
            found += _NEXT_SEAT[seats_out]  # mid-hand: the seat after, skipping seats out
        if code is not None:
            found += ERROR_RULES.get(code, ())
    events = expected if isinstance(expected, list) else []
    deltas_differ = any(".deltas" in d for d in differences)
    for difference in differences:
        match = _EVENT_PATH.match(difference)
        if match:
            index, field = int(match.group(1)), match.group(2)
            kind = events[index].get("type") if index < len(events) else None
            if field == "type":
                kinds = re.findall(r'"(\w+)"', difference)
                found += [p for k in kinds for p in _event_rules(k, None)]
            elif isinstance(kind, str):
                if kind == "picked" and field == "card":
                    # the deck's order: the reshuffle's since one was made, else the deal's
                    found += ("reshuffle.new_deck",) if reshuffled else ("deal.order",)
                if kind == "out_of_play" and moves is not None and moves < 2:
                    found.append("deal.first_offer")  # the hand's first pick: the turned-up card
                if kind == "round_ended" and field == "scores" and not deltas_differ:
                    found += _CUTS  # the round scored right, the totals not: a cut
                if kind == "round_ended" and field in ("deltas", "scores"):
                    found += _OUTCOME_SCORING.get(str(events[index].get("outcome")), ())
                if kind == "dealt" and _hand_sizes_differ(events[index], actual, index):
                    found.append("hand_size")
                    sizes = True
                found += _event_rules(kind, field)
            continue
        counted = _EVENT_COUNT.match(difference)
        if counted:
            want = Counter(w.strip() for w in counted.group(1).split(","))
            got = Counter(w.strip() for w in counted.group(2).split(","))
            kinds = list((want - got) + (got - want))
            if "out_of_play" in kinds and moves is not None and moves < 2:
                found.append("deal.first_offer")
            found += [p for k in kinds for p in _event_rules(k, None)]
            continue
        layout = _LAYOUT.match(difference)
        if layout:
            if layout.group(1) == "hands" and _sizes_differ(difference):
                found.append("hand_size")
                sizes = True
            found += EVENT_RULES[f"dealt.{layout.group(1)}"]
            continue
        if difference.startswith("round_started.starter"):
            found += EVENT_RULES["round_started.starter"]
            continue
        name = re.split(r"[.\[:\s]", difference, maxsplit=1)[0]
        if step_kind == "legal":
            listed = _LEGAL_THROWS.match(difference)
            if listed and not difference.startswith("throws: the same "):
                found += _legal_throw_rules(listed.group(1), listed.group(2))
            found += ("throws", "pick", "call")
        elif name in STATE_RULES:
            if name == "to_act" and moves:
                found += _NEXT_SEAT[seats_out]  # mid-hand: the seat after, seats out skipped
            found += STATE_RULES[name]
    if moves is not None and moves < 2 and any("out_of_play" in d for d in differences):
        # The hand's first pick leaves the turned-up card out of play, or takes it.
        found = ["deal.first_offer", *(p for p in found if p != "deal.first_offer")]
    # A deal's hands explain the rest of it: hands of another size, the turned-up card and
    # the deck's size follow; hands of other cards, the turned-up card may follow.
    if any(_DEALT_HANDS.match(d) for d in differences):
        lead = "hand_size" if sizes else "deal.order"
        found = [lead, *(p for p in found if p != lead)]
    if not found and command is not None and command in _COMMAND_RULES:
        found += _COMMAND_RULES[command]  # nothing differed to say more (a crash): the request
    return tuple(dict.fromkeys(found))


def step_family(command: str | None, action: str | None) -> Family | None:
    """The rule family a step of this command or action is of (the registry's)."""
    return STEP_FAMILY.get(action or "") or STEP_FAMILY.get(command or "")


@memo.by_identity()
def clause_parameters(resolved: Mapping[str, Any]) -> dict[str, frozenset[str]]:
    """Clause id → the rule paths it cites, an option standing for the rule it sets: worked
    out once per resolved profile (a run's cases share theirs, never changed; each failure
    asks it), the result shared, not to be changed."""
    sets: dict[str, list[str]] = {}
    for option in resolved.get("options") or []:
        if isinstance(option, Mapping):
            target = option.get("sets")
            sets[str(option.get("name"))] = (
                [str(t) for t in target] if isinstance(target, list) else [str(target)]
            )
    found: dict[str, frozenset[str]] = {}
    for clause in resolved.get("clauses") or []:
        if not isinstance(clause, Mapping):
            continue
        paths: set[str] = set()
        for raw in clause.get("params") or []:
            param = str(raw).removeprefix("rules.")
            name = param.removeprefix("options.")
            paths.update(sets.get(name, [param]))
        found[str(clause.get("id"))] = frozenset(paths)
    return found


def _cites(param: str, prefix: str) -> bool:
    return param == prefix or param.startswith(prefix + ".") or prefix.startswith(param + ".")


@cache
def _families(prefix: str) -> frozenset[str]:
    """The spellings of a parameter's rule family in clause ids (``dhumbal.pick.x``) and in
    their ``family`` fields (``picking``): the registry's family of it, else its first part.
    Worked out once a prefix (the registry is read once): a failure's credit asks it of
    every clause it ranks."""
    family = registry().family_of(prefix)
    if family is not None:
        return _spellings(family)
    first = prefix.split(".")[0]
    return frozenset({first, first.replace("_", "-")})


@cache
def _spellings(family: Family) -> frozenset[str]:
    return registry().spellings(family)


def focused(
    clauses: Sequence[str],
    paths: Sequence[str],
    cited: Mapping[str, frozenset[str]],
    owned: Iterable[str] = (),
    hint: Family | None = None,
) -> tuple[tuple[str, ...], int]:
    """``clauses`` with those behind ``paths`` first, and how many lead. A clause citing
    one of the paths leads (the likelier path, then the fewer parameters it cites, first);
    then one of a path's rule family. The profile's own clauses (``owned``) citing the
    likeliest path more closely than any clause of the step are credited too, at most three.
    ``hint`` is the rule family of the failing step (:func:`step_family`): among clauses
    citing the same path, one of that family comes first."""
    if not paths:
        return tuple(clauses), 0

    hinted = _spellings(hint) if hint else frozenset()

    def rank(clause: str) -> tuple[int, int, int, int]:
        params = cited.get(clause, frozenset())
        family = clause.split(".")[1] if clause.count(".") >= 2 else ""
        for n, prefix in enumerate(paths):
            if any(_cites(p, prefix) for p in params):
                # The rule's own clause is of its family, or of the step's (the turned-up
                # card leaving play on a pick is a picking clause); an option's, an
                # example's or a glossary entry citing it comes after.
                kin = 0 if family in hinted else 1 if family in _families(prefix) else 2
                return (0, n, kin, len(params))
        for n, prefix in enumerate(paths):
            if family in _families(prefix):
                return (1, n, 0, 0)
        return (2, 0, 0, 0)

    pool = list(dict.fromkeys(clauses))
    # The clause of the expectation that differed may not be the step's: a deal step
    # lists the deal clauses, not always the one on its order. The profile's clauses
    # citing the likeliest path, more closely than any of the step's, are credited too,
    # at most three.
    best = min((rank(c) for c in pool if rank(c)[0] == 0), default=(1, 0, 0, 0))
    extra = sorted(
        (c for c in owned if c not in pool and rank(c)[:2] == (0, 0) and rank(c) < best),
        key=rank,
    )
    pool += extra[:3]
    order = {c: i for i, c in enumerate(pool)}
    ordered = sorted(pool, key=lambda c: (rank(c), order[c]))
    return tuple(ordered), sum(1 for c in ordered if rank(c)[0] < 2)
