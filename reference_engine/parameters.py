"""The rule-parameter registry: every leaf under ``rules`` in schema/profile.schema.json.

Built once from the schema: a leaf's dotted path, its kind, bounds, default and enum
values as the schema gives them; its ``title`` is its label on the site; its rule family
is the ``x-family`` annotation of the leaf or of the section above it (draft 2020-12
takes an unknown keyword as an annotation, so the schema still validates the same). The
events and state fields a parameter drives are those the harness knows today
(:data:`EVENT_PARAMETERS`, :data:`STATE_PARAMETERS`). The engine's :class:`Rules`, jhyap
validate, the site, clause credit, derive and the fuzzer read it rather than lists of
their own: adding a parameter starts with its schema entry (docs/contributing.md).

The cross-parameter constraints (:data:`CONSTRAINTS`) live here too, each with its
message, for the engine and for jhyap validate (conformance/spec/combinations.py).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from typing import Final

from jhyap_core.json_types import Json

from .shipped import schema_dir

SCHEMA_FILE: Final = "profile.schema.json"


class Family(StrEnum):
    """A rule family: the part of the rules a parameter belongs to. Clause ids and their
    ``family`` fields spell it :attr:`clause_family` (``game-end``)."""

    PLAYERS = "players"
    CARDS = "cards"
    DEAL = "deal"
    TURN = "turn"
    THROWS = "throws"
    PICKING = "picking"
    RESHUFFLE = "reshuffle"
    CALLING = "calling"
    SHOWDOWN = "showdown"
    SCORING = "scoring"
    GAME_END = "game_end"
    MONEY = "money"
    TIMER = "timer"
    OPTIONS = "options"  # the host's options: a step's family, no rule parameter's

    @property
    def clause_family(self) -> str:
        """The family as clause ids and their ``family`` fields spell it."""
        return self.value.replace("_", "-")


class Kind(StrEnum):
    """What values a parameter takes."""

    INTEGER = "integer"
    BOOLEAN = "boolean"
    CHOICE = "choice"  # one of ``values``
    DECIMAL = "decimal"  # an amount written as a string, "0.05"
    LIST = "list"  # an array (steps, cuts, ranks)


# The rule parameters behind an event field, by ``type.field``, else by ``type``, as dotted
# prefixes of ``rules`` (a section stands for every leaf under it); the first is the
# likeliest. Clause credit (conformance/harness/credit.py) reads them in this order.
EVENT_PARAMETERS: Final[Mapping[str, tuple[str, ...]]] = {
    "round_started.dealer": ("deal.dealer",),
    "round_started.starter": ("next_starter", "deal.dealer", "direction"),
    "round_started.turn_order": ("direction", "game_end"),
    "round_started": ("next_starter", "deal"),
    "dealt.hands": ("deal.order", "deal", "hand_size"),
    "dealt.turned_up": ("deal.first_offer", "deal"),
    "dealt.deck_size": ("hand_size", "deck"),
    "dealt": ("deal", "hand_size", "deck"),
    "called": ("call", "card_values"),
    "thrown": ("throws",),
    "picked": ("pick", "reshuffle", "deal"),
    "out_of_play": ("pick", "reshuffle"),
    "under_deck": ("deck_runs_out", "pick"),
    "reshuffle_needed": ("reshuffle", "deck_runs_out"),
    "reshuffled": ("reshuffle",),
    "timed_out": ("turn_timer",),
    "round_ended.outcome": ("showdown", "deck_runs_out", "call"),
    "round_ended.winner": ("showdown",),
    "round_ended.caller": ("call",),
    "round_ended.hand_values": ("card_values", "deck.jokers"),
    "round_ended.deltas": ("scoring", "showdown"),
    "round_ended.scores": ("scoring", "game_end"),
    "round_ended.eliminated": ("game_end",),
    "round_ended": ("showdown", "scoring"),
    "game_ended.settlement": ("money",),
    "game_ended": ("game_end", "scoring", "money"),
    "option_changed": ("options",),
}

# The state fields, and the rule parameters behind each (as above).
STATE_PARAMETERS: Final[Mapping[str, tuple[str, ...]]] = {
    "phase": ("call", "reshuffle", "game_end"),
    "dealer": ("deal.dealer",),
    "starter": ("next_starter", "deal.dealer"),
    "to_act": ("next_starter", "direction"),
    "hands": ("deal", "pick"),
    "hand_values": ("card_values", "deck.jokers"),
    "offer": ("throws.order_matters", "throws.laid", "throws", "pick"),
    "offer_kind": ("throws",),
    "pickable": ("pick",),
    "thrown": ("throws",),
    "multi_throwers": ("pick",),
    "deck": ("reshuffle", "deal", "deck_runs_out"),
    "deck_size": ("reshuffle", "deal", "deck_runs_out"),
    "out_of_play": ("pick", "reshuffle"),
    "scores": ("scoring", "game_end"),
    "active": ("game_end",),
    "eliminated": ("game_end",),
    "options": ("options",),
    "result": ("game_end", "money"),
    "settlement": ("money",),
    "last_round": ("showdown", "scoring"),
}


# The rule family a request is of, by its action type or else its command: the clause
# credit's hint (conformance/harness/credit.py), a replayed step's clauses and a fuzz
# finding's (conformance/harness/replay.py, conformance/fuzz/writer.py).
STEP_FAMILY: Final[Mapping[str, Family]] = {
    "deal": Family.DEAL,
    "reshuffle": Family.RESHUFFLE,
    "set_option": Family.OPTIONS,
    "call": Family.CALLING,
    "throw": Family.THROWS,
    "pick_deck": Family.PICKING,
    "pick_offer": Family.PICKING,
    "pick": Family.PICKING,
    "timeout": Family.TIMER,
}


@dataclass(frozen=True, slots=True)
class Parameter:
    """One rule parameter: a leaf under the schema's ``rules``."""

    path: str  # dotted, relative to rules: "throws.run.wrap"
    kind: Kind
    label: str  # the schema's title: the site's words for it
    family: Family
    required: bool  # a profile must give it (where its section is given)
    nullable: bool  # null is a value of it (no limit, no such rule)
    has_default: bool
    default: Json  # the value a profile that leaves it out plays (when has_default)
    minimum: int | None
    maximum: int | None
    values: tuple[str, ...]  # a choice's values, in the schema's order
    value_descriptions: tuple[str, ...]  # a sentence for each value (enumDescriptions)
    events: tuple[str, ...]  # the event fields it drives (EVENT_PARAMETERS' keys)
    state_fields: tuple[str, ...]  # the state fields it drives

    @property
    def clause_family(self) -> str:
        return self.family.clause_family

    @property
    def section(self) -> str:
        """The top-level part of its path (``throws`` for throws.run.wrap)."""
        return self.path.split(".")[0]


def covers(prefix: str, path: str) -> bool:
    """Whether the dotted ``prefix`` (a section or a parameter) stands for ``path``."""
    return path == prefix or path.startswith(prefix + ".")


@dataclass(frozen=True, slots=True)
class Registry:
    """Every rule parameter, in the schema's order, and its sections."""

    parameters: tuple[Parameter, ...]
    sections: frozenset[str]  # dotted paths of the objects holding parameters
    nullable_sections: frozenset[str]  # sections a profile may set to null (money)
    _by_path: Mapping[str, Parameter] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_path", {p.path: p for p in self.parameters})

    def __iter__(self) -> Iterator[Parameter]:
        return iter(self.parameters)

    def __getitem__(self, path: str) -> Parameter:
        return self.by_path()[path]

    def __contains__(self, path: object) -> bool:
        return path in self.by_path()

    def by_path(self) -> Mapping[str, Parameter]:
        return self._by_path

    def paths(self) -> tuple[str, ...]:
        return tuple(p.path for p in self.parameters)

    def known(self, path: str) -> bool:
        """Whether ``path`` is a parameter or a section of them."""
        return path in self.by_path() or path in self.sections

    def under(self, prefix: str) -> tuple[Parameter, ...]:
        """The parameters ``prefix`` stands for (itself, or every one of its section)."""
        return tuple(p for p in self.parameters if covers(prefix, p.path))

    def family_of(self, prefix: str) -> Family | None:
        """The rule family of a parameter or section (that of its parameters), else None."""
        first = prefix.split(".")[0]
        found = {p.family for p in self.parameters if p.section == first}
        return found.pop() if len(found) == 1 else None

    def sections_of(self, family: Family) -> tuple[str, ...]:
        """The top-level parts of the paths of ``family``'s parameters (``pick``,
        ``turn_timer``): how parameter paths spell the family."""
        return tuple(dict.fromkeys(p.section for p in self.parameters if p.family is family))

    def spellings(self, family: Family) -> frozenset[str]:
        """Every spelling of ``family``: its name, its clause family, and its sections as
        paths and clause ids write them (``turn_timer``, ``turn-timer``)."""
        sections = self.sections_of(family)
        return frozenset(
            {
                family.value,
                family.clause_family,
                *sections,
                *(s.replace("_", "-") for s in sections),
            }
        )

    def defaults(self) -> dict[str, Json]:
        """The value of every parameter with a default, by path (copies: a caller may
        change them)."""
        return {p.path: copy.deepcopy(p.default) for p in self.parameters if p.has_default}


def _kind(node: Mapping[str, Json]) -> Kind:
    if "enum" in node:
        return Kind.CHOICE
    if "$ref" in node:
        return Kind.DECIMAL  # #/$defs/decimal, the one reference a rule leaf makes
    types = node.get("type")
    types = [types] if isinstance(types, str) else list(types or [])
    for name, kind in (("integer", Kind.INTEGER), ("boolean", Kind.BOOLEAN), ("array", Kind.LIST)):
        if name in types:
            return kind
    raise ValueError(f"a rule parameter of no kind this registry knows: {node!r}")


def _drives(path: str, table: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    return tuple(key for key, prefixes in table.items() if any(covers(p, path) for p in prefixes))


def build(schema: Mapping[str, Json]) -> Registry:
    """The registry of a profile schema's ``$defs.rules``."""
    parameters: list[Parameter] = []
    sections: set[str] = set()
    nullable_sections: set[str] = set()

    def walk(node: Mapping[str, Json], prefix: str, family: str | None) -> None:
        required = set(node.get("required") or ())
        for key, sub in (node.get("properties") or {}).items():
            path = f"{prefix}{key}"
            own = sub.get("x-family", family)
            if own is None:
                raise ValueError(f"rules.{path}: no x-family on it or on a section above it")
            types = sub.get("type")
            nullable = isinstance(types, list) and "null" in types
            if "properties" in sub:
                sections.add(path)
                if nullable:
                    nullable_sections.add(path)
                walk(sub, path + ".", own)
                continue
            if "title" not in sub:
                raise ValueError(f"rules.{path}: no title (its label on the site)")
            parameters.append(
                Parameter(
                    path=path,
                    kind=_kind(sub),
                    label=str(sub["title"]),
                    family=Family(own),
                    required=key in required,
                    nullable=nullable,
                    has_default="default" in sub,
                    default=sub.get("default"),
                    minimum=sub.get("minimum"),
                    maximum=sub.get("maximum"),
                    values=tuple(str(v) for v in sub.get("enum") or ()),
                    value_descriptions=tuple(str(d) for d in sub.get("enumDescriptions") or ()),
                    events=_drives(path, EVENT_PARAMETERS),
                    state_fields=_drives(path, STATE_PARAMETERS),
                )
            )

    walk(schema["$defs"]["rules"], "", None)
    return Registry(tuple(parameters), frozenset(sections), frozenset(nullable_sections))


@cache
def registry() -> Registry:
    """The registry of the shipped profile schema, read once."""
    text = (schema_dir() / SCHEMA_FILE).read_text(encoding="utf-8")
    return build(json.loads(text))


# -- constraints between parameters ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Constraint:
    """Rule parameters that are each valid but make no sense together.

    ``at`` is the path (under rules) a problem is reported at, ``message`` names both
    parameters. ``broken`` asks schema-valid rules (a parameter left out plays its
    default). ``engine``: the engine refuses such rules too (it cannot play them);
    otherwise only jhyap validate does, and the engine plays them as written."""

    at: str
    message: str
    broken: Callable[[Mapping[str, Json]], bool]
    engine: bool


def _scoring(rules: Mapping[str, Json]) -> Mapping[str, Json]:
    scoring: Mapping[str, Json] = rules["scoring"]
    return scoring


def _kind_is(kind: str) -> Callable[[Mapping[str, Json]], bool]:
    return lambda rules: bool(_scoring(rules)["kind"] == kind)


def _kept_aside(rules: Mapping[str, Json]) -> tuple[bool, str]:
    reshuffle = rules["reshuffle"]
    return reshuffle["moment"] == "when_deck_emptied", str(reshuffle["kept_aside"])


_MONEY_NEEDS_TRANSFER: Final = (
    "money needs scoring.kind transfer: penalty points are owed to nobody, "
    "so there is nothing to settle"
)


def _without_totals(key: str) -> Constraint:
    """A cut, halving or drop of totals under scoring.kind none, which keeps none."""
    return Constraint(
        f"scoring.{key}",
        f"scoring.{key} needs scoring.kind penalty, not none",
        lambda rules: _kind_is("none")(rules) and bool(_scoring(rules).get(key)),
        engine=True,
    )


def _under_transfer(key: str, participle: str) -> Constraint:
    """A cut, halving or drop of totals under transfer scoring, whose tallies sum to zero."""
    return Constraint(
        f"scoring.{key}",
        f"scoring.{key} needs scoring.kind penalty: a transfer tally sums to zero, "
        f"and a {participle} total would not",
        lambda rules: _kind_is("transfer")(rules) and _scoring(rules).get(key) is not None,
        engine=False,
    )


# In the order jhyap validate reports them.
CONSTRAINTS: Final[tuple[Constraint, ...]] = (
    # The throw on offer went out of play with the pick that emptied the deck.
    Constraint(
        "reshuffle",
        "reshuffle.kept_aside offer_and_throw needs a reshuffle.moment after the "
        "emptying pick, not when_deck_emptied",
        lambda rules: _kept_aside(rules) == (True, "offer_and_throw"),
        engine=True,
    ),
    Constraint(
        "reshuffle",
        "reshuffle.kept_aside current_offer goes with reshuffle.moment when_deck_emptied, "
        "and only with it",
        lambda rules: _kept_aside(rules) == (False, "current_offer"),
        engine=True,
    ),
    Constraint(
        "reshuffle",
        "reshuffle.kept_aside offer_and_card_under goes with reshuffle.moment "
        "when_deck_emptied, and only with it",
        lambda rules: _kept_aside(rules) == (False, "offer_and_card_under"),
        engine=True,
    ),
    # A transfer tally sums to zero; cutting or halving one seat's total breaks that.
    Constraint(
        "scoring.cuts",
        "scoring.cuts needs scoring.kind penalty: a transfer tally sums to zero, "
        "and a cut total would not",
        lambda rules: _kind_is("transfer")(rules) and bool(_scoring(rules).get("cuts")),
        engine=False,
    ),
    _under_transfer("drop_at_multiples_of", "dropped"),
    _under_transfer("halve_at_multiples_of", "halved"),
    # The engine settles penalty points as it is told; with no totals (none) it cannot.
    Constraint(
        "money",
        _MONEY_NEEDS_TRANSFER,
        lambda rules: _kind_is("penalty")(rules) and rules.get("money") is not None,
        engine=False,
    ),
    Constraint(
        "money",
        _MONEY_NEEDS_TRANSFER,
        lambda rules: _kind_is("none")(rules) and rules.get("money") is not None,
        engine=True,
    ),
    # No totals are kept: only a one-hand game has a result without them.
    Constraint(
        "game_end.kind",
        "scoring.kind none goes with game_end.kind one_hand only: with no totals "
        "kept, nothing decides a game of several hands",
        lambda rules: _kind_is("none")(rules) and rules["game_end"]["kind"] != "one_hand",
        engine=True,
    ),
    # The factor multiplies a beaten caller's hand under caller_hand_times only.
    Constraint(
        "scoring.beaten_factor",
        "scoring.beaten_factor is read only with scoring.beaten_call caller_hand_times: "
        "leave it out (2) under any other beaten_call",
        lambda rules: (
            _scoring(rules).get("beaten_call") != "caller_hand_times"
            and _scoring(rules).get("beaten_factor", 2) != 2
        ),
        engine=False,
    ),
    _without_totals("cuts"),
    _without_totals("drop_at_multiples_of"),
    _without_totals("halve_at_multiples_of"),
    Constraint(
        "call.inclusive",
        "call.inclusive false with call.limit 0 refuses every call (no hand is worth less than 0)",
        lambda rules: rules["call"]["limit"] == 0 and not rules["call"]["inclusive"],
        engine=False,
    ),
    Constraint(
        "call.limit_by_seats",
        "call.inclusive false with a call.limit_by_seats limit of 0 refuses every call "
        "at those seats",
        lambda rules: (
            not rules["call"]["inclusive"]
            and any(step["limit"] == 0 for step in rules["call"].get("limit_by_seats") or ())
        ),
        engine=False,
    ),
    Constraint(
        "throws.run.max",
        "throws.run.max below throws.run.min leaves no run legal",
        lambda rules: (
            rules["throws"]["run"].get("max") is not None
            and rules["throws"]["run"]["max"] < rules["throws"]["run"]["min"]
        ),
        engine=True,
    ),
)


def broken_constraints(rules: Mapping[str, Json]) -> list[Constraint]:
    """The constraints ``rules`` (schema-valid) break, in :data:`CONSTRAINTS`' order."""
    return [constraint for constraint in CONSTRAINTS if constraint.broken(rules)]
