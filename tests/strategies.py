"""Hypothesis strategies over the whole rule space of schema/profile.schema.json.

``profiles()`` draws whole profile documents: every rule parameter and every value the
schema allows (within bounds that keep a game short), in combination, with seat ranges,
packs and jokers, and a few host options that set rule parameters. Only combinations that
``jhyap validate`` accepts are drawn; tests/engine/test_rule_model.py checks that it accepts them.
``tables()`` adds a seat count, option values and a seed for a game under the profile.
A ``Focus`` holds some parameters to given values (those under which a rule mutant of
tests/mutants/rules.py misplays), so that a check meets them in every example; without one
the strategies draw as they always did.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from jhyap_core.json_types import Json
from reference_engine.parameters import registry

RANKS = "A23456789TJQK"


@dataclass(frozen=True)
class Focus:
    """Rule parameters (paths in the profile's rules, as the schema names them) each held to
    some of its values: the strategies draw a held parameter from those values only, and
    whatever a held value needs to be drawn at all (penalty scoring for
    scoring.beaten_others, a timer for its on_expiry, ...), the rest as usual."""

    held: tuple[tuple[str, tuple[Json, ...]], ...]

    @classmethod
    def on(cls, path: str, *values: Json) -> Focus:
        return cls(((path, values),))

    def also(self, path: str, *values: Json) -> Focus:
        return Focus((*self.held, (path, values)))

    def reach(self) -> dict[str, tuple[Json, ...]]:
        """Each held path's values, with what they need to be reachable held too."""
        need = dict(self.held)

        def hold(path: str, *values: Json) -> None:
            kept = tuple(v for v in need.get(path, values) if v in values)
            if not kept:
                raise ValueError(f"{self}: {path} cannot be held to {values}")
            need[path] = kept

        def within(path: str, *values: Json) -> bool:
            return path in need and all(v in values for v in need[path])

        # Needs are held in order, a need's own needs after it.
        if any(path in need for path in _PENALTY_ONLY):
            hold("scoring.kind", "penalty")
        if "scoring.beaten_factor" in need:
            hold("scoring.beaten_call", "caller_hand_times")
        if within("scoring.beaten_call", *_PENALTY_CALLS) or within(
            "deck_runs_out", "round_ends_hands_score"
        ):
            hold("scoring.kind", "penalty")
        if within("scoring.beaten_call", "hands_except_winner", "all_hands"):
            hold("scoring.kind", "transfer")
        if "game_end.out_above" in need or "game_end.reaching_is_out" in need:
            hold("game_end.kind", *_PAST_TARGET)
        if "game_end.rounds" in need:
            hold("game_end.kind", "fixed_rounds")
        if within("game_end.kind", *_PAST_TARGET):
            hold("scoring.kind", "penalty")
        if any(path.startswith("money.") for path in need) or within("game_end.kind", "host_ends"):
            hold("scoring.kind", "transfer")
        if within("reshuffle.kept_aside", "current_offer", "offer_and_card_under"):
            hold("reshuffle.moment", "when_deck_emptied")
        if within("reshuffle.kept_aside", "offer_and_throw"):
            hold("reshuffle.moment", "when_draw_finds_deck_empty", "at_throw_after_deck_emptied")
        if "reshuffle.kept_aside" in need or "reshuffle.moment" in need:
            hold("deck_runs_out", "reshuffle")  # no reshuffle otherwise
        if "deck_runs_out_when" in need:
            hold("deck_runs_out", "round_ends_no_score", "round_ends_hands_score")
        if "throws.run.jokers_extend" in need:
            hold("deck.jokers_wild", "runs", "sets_and_runs")
        if any(path in need for path in _JOKERS_NEEDED):
            hold("deck.jokers", 1, 2, 3, 4)
        if "turn_timer.on_expiry" in need:
            hold("turn_timer.seconds", *range(1, 31))
        if "pick.multi_throw_scope" in need:
            hold("pick.only_after_multi_throw", True)
        return need


# Parameters drawn under penalty scoring only, and those that matter only with jokers.
_PENALTY_ONLY = (
    "scoring.beaten_factor",
    "scoring.beaten_others",
    "scoring.cuts",
    "scoring.halve_at_multiples_of",
    "scoring.drop_at_multiples_of",
    "scoring.multiples_for",
)
_PENALTY_CALLS = ("caller_hand_plus_penalty", "caller_hand_times", "penalty_only")
_PAST_TARGET = ("elimination", "first_past_target")
_JOKERS_NEEDED = (
    "deck.jokers_wild",
    "throws.set.jokers_alone",
    "throws.single_joker",
    "card_values.only_jokers",
)


def _picker(
    draw: st.DrawFn, focus: Focus | None
) -> tuple[dict[str, tuple[Json, ...]], Callable[..., Any]]:
    """The held values of ``focus`` and ``pick(path, strategy, ok=...)``: the parameter at
    ``path`` drawn from ``strategy``, or from its held values where ``ok`` (its bounds here)."""
    held = focus.reach() if focus is not None else {}

    def pick(
        path: str, strategy: st.SearchStrategy[Any], ok: Callable[[Any], bool] | None = None
    ) -> Any:
        if path not in held:
            return draw(strategy)
        return draw(st.sampled_from([v for v in held[path] if ok is None or ok(v)]))

    return held, pick


def values(path: str) -> list[str]:
    """The values of a choice rule parameter, in the schema's order (the registry's)."""
    return list(registry()[path].values)


def _card_values(held: dict[str, tuple[Json, ...]]) -> st.SearchStrategy[dict[str, Json]]:
    usual = {r: min(i + 1, 10) for i, r in enumerate(RANKS)}
    drawn = st.fixed_dictionaries({r: st.integers(0, 13) for r in [*RANKS, "X"]})
    # A few single cards worth their own value (card_values.cards: the king of hearts 0).
    names = st.sampled_from([r + s for r in RANKS for s in "cdhs"])
    own = st.lists(names, max_size=3, unique=True).flatmap(
        lambda cards: st.tuples(*[st.integers(0, 20) for _ in cards]).map(
            lambda values: [{"card": c, "value": v} for c, v in zip(cards, values, strict=True)]
        )
    )
    chosen = st.one_of(
        st.just({**usual, "X": 0}),
        drawn,
        st.builds(lambda values, cards: {**values, "cards": cards}, drawn, own),
    )
    # A hand of jokers only worth its own value for each joker, below 0 too
    # (card_values.only_jokers: -5 at some tables), or left out.
    only = st.one_of(st.none(), st.integers(-10, 5))
    if "card_values.only_jokers" in held:
        only = st.sampled_from(held["card_values.only_jokers"])
    return st.builds(
        lambda values, each: values if each is None else {**values, "only_jokers": each},
        chosen,
        only,
    )


@st.composite
def rules(draw: st.DrawFn, focus: Focus | None = None) -> dict[str, Json]:
    """A rules mapping that jhyap validate accepts, holding ``focus``'s parameters."""
    held, pick = _picker(draw, focus)
    seats_min = draw(st.integers(2, 5))
    top = min(seats_min + 3, 7)
    seats_max = pick("seats.max", st.integers(seats_min, top), lambda v: seats_min <= v <= top)
    jokers = pick("deck.jokers", st.integers(0, 4))
    wild = pick("deck.jokers_wild", st.sampled_from(values("deck.jokers_wild")))
    steps: list[dict[str, int]] = []
    if draw(st.booleans()):
        first = draw(st.integers(2, seats_max))
        steps.append({"from_seats": first, "packs": draw(st.integers(1, 3))})
        if first < seats_max and draw(st.booleans()):
            steps.append(
                {
                    "from_seats": draw(st.integers(first + 1, seats_max)),
                    "packs": draw(st.integers(1, 3)),
                }
            )

    def packs(seats: int) -> int:
        n = 1
        for step in steps:
            if seats >= step["from_seats"]:
                n = step["packs"]
        return n

    # A pack without some ranks, now and then (e.g. 48 cards without kings).
    left_out = pick("deck.ranks_left_out", st.sampled_from([[], [], [], ["K"], ["Q", "K"], ["7"]]))
    cards = 52 - 4 * len(left_out)
    # Every seat count must leave a card to turn up and one to draw.
    room = min((packs(s) * (cards + jokers) - 2) // s for s in range(seats_min, seats_max + 1))
    hand_size = pick("hand_size", st.integers(1, min(room, 8)), lambda v: v <= min(room, 8))
    most_packs = max([1, *(s["packs"] for s in steps)])
    largest_set = most_packs * (4 + (jokers if wild in ("sets", "sets_and_runs") else 0))
    set_min = draw(st.integers(2, min(4, largest_set)))
    set_max = draw(st.integers(set_min, min(largest_set, set_min + 4)))
    scoring_kind = pick("scoring.kind", st.sampled_from(["transfer", "penalty"]))
    ends = (
        # host_ends needs money, and money needs transfer scoring.
        ["fixed_rounds", "elimination", "first_past_target"]
        if scoring_kind == "penalty"
        else ["host_ends", "fixed_rounds"]
    )
    end_kind = pick("game_end.kind", st.sampled_from(ends), lambda v: v in ends)
    past_target = ("elimination", "first_past_target")
    moment = pick("reshuffle.moment", st.sampled_from(values("reshuffle.moment")))
    asides = (
        ["current_offer", "pickable_and_throw", "offer_and_card_under"]
        if moment == "when_deck_emptied"
        else ["offer_and_throw", "pickable_and_throw"]
    )
    kept = pick("reshuffle.kept_aside", st.sampled_from(asides), lambda v: v in asides)
    inclusive = pick("call.inclusive", st.booleans())
    run_min = pick("throws.run.min", st.integers(2, 5))
    limit_steps = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    "from_seats": st.integers(seats_min, seats_max),
                    "limit": st.integers(0 if inclusive else 1, 40),
                }
            ),
            max_size=2,
            unique_by=lambda step: step["from_seats"],
        )
    )
    if scoring_kind == "penalty":
        # The caller scores: hand plus penalty, hand times a factor, or the penalty alone.
        calls = ["caller_hand_plus_penalty", "caller_hand_times", "penalty_only"]
        beaten_call = pick("scoring.beaten_call", st.sampled_from(calls), lambda v: v in calls)
        times = beaten_call == "caller_hand_times"
        scoring: dict[str, Json] = {
            "kind": "penalty",
            "won_call": "each_other_hand",
            "beaten_call": beaten_call,
            "beaten_penalty": 0 if times else pick("scoring.beaten_penalty", st.integers(0, 40)),
            "beaten_factor": pick("scoring.beaten_factor", st.integers(2, 4)) if times else 2,
            "beaten_others": pick(
                "scoring.beaten_others", st.sampled_from(values("scoring.beaten_others"))
            ),
            "cuts": pick(
                "scoring.cuts",
                st.lists(
                    st.fixed_dictionaries({"at": st.integers(1, 120), "to": st.integers(0, 120)}),
                    max_size=2,
                    unique_by=lambda c: c["at"],
                ),
            ),
            "halve_at_multiples_of": pick(
                "scoring.halve_at_multiples_of", st.one_of(st.none(), st.integers(1, 60))
            ),
            "drop_at_multiples_of": pick(
                "scoring.drop_at_multiples_of", st.one_of(st.none(), st.integers(1, 60))
            ),
            "points_multiplier": pick("scoring.points_multiplier", st.integers(1, 3)),
            "multiples_for": pick(
                "scoring.multiples_for", st.sampled_from(values("scoring.multiples_for"))
            ),
        }
    else:
        calls = ["hands_except_winner", "all_hands"]
        scoring = {
            "kind": "transfer",
            "won_call": "each_other_hand",
            "beaten_call": pick(
                "scoring.beaten_call", st.sampled_from(calls), lambda v: v in calls
            ),
            "beaten_penalty": 0,
            "points_multiplier": pick("scoring.points_multiplier", st.integers(1, 3)),
        }
    timer = (
        {
            "seconds": pick("turn_timer.seconds", st.integers(0, 30)),
            "on_expiry": pick(
                "turn_timer.on_expiry", st.sampled_from(values("turn_timer.on_expiry"))
            ),
        }
        if "turn_timer.seconds" in held
        else draw(
            st.one_of(
                st.none(),
                st.fixed_dictionaries(
                    {
                        "seconds": st.integers(0, 30),
                        "on_expiry": st.sampled_from(values("turn_timer.on_expiry")),
                    }
                ),
            )
        )
    )
    runs_out = (
        values("deck_runs_out")
        if scoring_kind == "penalty"
        else ["reshuffle", "round_ends_no_score", "offer_under_deck"]
    )
    money_needed = end_kind == "host_ends" or any(path.startswith("money.") for path in held)
    money = None
    if scoring_kind == "transfer" and (money_needed or draw(st.booleans())):
        money = {
            "dollars_per_point": pick(
                "money.dollars_per_point", st.sampled_from(["0.05", "1", "0.10", "2.25", "0"])
            ),
            "settlement": pick("money.settlement", st.sampled_from(values("money.settlement"))),
        }
    return {
        "seats": {"min": seats_min, "max": seats_max},
        "deck": {
            "cards": cards,
            "ranks_left_out": left_out,
            "jokers": jokers,
            "jokers_wild": wild,
            "packs_by_seats": steps,
        },
        "hand_size": hand_size,
        "card_values": draw(_card_values(held)),
        "direction": pick("direction", st.sampled_from(values("direction"))),
        "deal": {
            "dealer": pick("deal.dealer", st.sampled_from(values("deal.dealer"))),
            "first_starter": pick(
                "deal.first_starter", st.integers(0, seats_min - 1), lambda v: v < seats_min
            ),
            "order": "one_at_a_time_from_starter",
            "first_offer": pick("deal.first_offer", st.sampled_from(values("deal.first_offer"))),
        },
        "next_starter": pick("next_starter", st.sampled_from(values("next_starter"))),
        "deck_runs_out": pick(
            "deck_runs_out",
            st.sampled_from(runs_out),
            lambda v: v in runs_out,
        ),
        "deck_runs_out_when": pick(
            "deck_runs_out_when", st.sampled_from(values("deck_runs_out_when"))
        ),
        "throws": {
            "set": {
                "min": set_min,
                "max": set_max,
                "jokers_alone": pick("throws.set.jokers_alone", st.booleans()),
            },
            "run": {
                "min": run_min,
                "max": pick(
                    "throws.run.max",
                    st.one_of(st.none(), st.integers(run_min, run_min + 2)),
                    lambda v: v is None or run_min <= v <= run_min + 2,
                ),
                "min_naturals": pick("throws.run.min_naturals", st.integers(1, 3)),
                "wrap": pick("throws.run.wrap", st.booleans()),
                "ace": pick("throws.run.ace", st.sampled_from(values("throws.run.ace"))),
                "order": pick("throws.run.order", st.sampled_from(values("throws.run.order"))),
                "jokers_extend": pick(
                    "throws.run.jokers_extend",
                    st.sampled_from(values("throws.run.jokers_extend")),
                ),
            },
            "order_matters": pick("throws.order_matters", st.booleans()),
            "single": pick("throws.single", st.sampled_from(values("throws.single"))),
            "single_joker": pick("throws.single_joker", st.booleans()),
            "laid": pick("throws.laid", st.sampled_from(values("throws.laid"))),
            "slapdown": pick("throws.slapdown", st.sampled_from(values("throws.slapdown"))),
        },
        "pick": {
            "from_offer": pick("pick.from_offer", st.sampled_from(values("pick.from_offer"))),
            "only_after_multi_throw": pick("pick.only_after_multi_throw", st.booleans()),
            "multi_throw_scope": pick(
                "pick.multi_throw_scope", st.sampled_from(values("pick.multi_throw_scope"))
            ),
        },
        "reshuffle": {"moment": moment, "new_deck": "out_of_play", "kept_aside": kept},
        "call": {
            # An exclusive limit of 0 refuses every call (conformance/spec/combinations.py).
            "limit": pick(
                "call.limit",
                st.integers(0 if inclusive else 1, 40),
                lambda v: (0 if inclusive else 1) <= v <= 40,
            ),
            "limit_by_seats": limit_steps,
            "inclusive": inclusive,
            "timing": "start_of_turn",
            "first_round": pick("call.first_round", st.sampled_from(values("call.first_round"))),
            "min_own_turns": pick("call.min_own_turns", st.integers(0, 2)),
        },
        "showdown": {
            "tie": pick("showdown.tie", st.sampled_from(values("showdown.tie"))),
            "winner_among_lowest": pick(
                "showdown.winner_among_lowest",
                st.sampled_from(values("showdown.winner_among_lowest")),
            ),
        },
        "scoring": scoring,
        "game_end": {
            "kind": end_kind,
            "rounds": pick("game_end.rounds", st.integers(1, 4))
            if end_kind == "fixed_rounds"
            else None,
            "out_above": pick("game_end.out_above", st.integers(0, 120))
            if end_kind in past_target
            else None,
            "reaching_is_out": pick("game_end.reaching_is_out", st.booleans())
            if end_kind in past_target
            else False,
        },
        "money": money,
        "turn_timer": timer,
    }


# The parameters each kind of drawn option sets.
_OPTION_SETS = {
    "call_limit": ("call.limit",),
    "inclusive": ("call.inclusive",),
    "multi": ("pick.only_after_multi_throw",),
    "tie": ("showdown.tie",),
    "pick": ("pick.from_offer",),
    "faces": ("card_values.J", "card_values.Q", "card_values.K"),
}


def _option(
    draw: st.DrawFn, r: dict[str, Json], index: int, held: Collection[str] = ()
) -> dict[str, Json] | None:
    """One host option over a parameter of ``r``, its default the rule's own value; none
    over a ``held`` parameter (of a focus), which an option could set otherwise."""
    changes = draw(st.sampled_from([None, "between_hands", "before_first_deal", "at_start_only"]))
    kind = draw(st.sampled_from(["call_limit", "inclusive", "multi", "tie", "pick", "faces"]))
    if any(path in held for path in _OPTION_SETS[kind]):
        return None
    option: dict[str, Json]
    if kind == "call_limit":
        low = 0 if r["call"]["inclusive"] else 1
        top = draw(st.integers(r["call"]["limit"], r["call"]["limit"] + 10))
        option = {
            "type": "integer",
            "range": {"min": low, "max": top, "step": 1},
            "default": r["call"]["limit"],
            "sets": "call.limit",
        }
        if (r["call"]["limit"] - low) % 1:
            return None
    elif kind == "inclusive":
        # A limit of 0 (or a step at 0) refuses every call once the option turns it exclusive.
        steps = r["call"].get("limit_by_seats") or []
        if r["call"]["limit"] == 0 or any(step["limit"] == 0 for step in steps):
            return None
        option = {
            "type": "boolean",
            "values": [True, False],
            "default": r["call"]["inclusive"],
            "sets": "call.inclusive",
        }
    elif kind == "multi":
        option = {
            "type": "boolean",
            "values": [False, True],
            "default": r["pick"]["only_after_multi_throw"],
            "sets": "pick.only_after_multi_throw",
        }
    elif kind == "tie":
        option = {
            "type": "choice",
            "values": values("showdown.tie"),
            "default": r["showdown"]["tie"],
            "sets": "showdown.tie",
        }
    elif kind == "pick":
        option = {
            "type": "choice",
            "values": values("pick.from_offer"),
            "default": r["pick"]["from_offer"],
            "sets": "pick.from_offer",
        }
    else:
        faces = r["card_values"]
        own = [faces["J"], faces["Q"], faces["K"]]
        if own == [10, 10, 10]:
            return None
        option = {
            "type": "choice",
            "values": ["own", "ten"],
            "default": "own",
            "sets": ["card_values.J", "card_values.Q", "card_values.K"],
            "map": {"own": own, "ten": [10, 10, 10]},
        }
    option["name"] = f"{kind}_{index}"
    option["locked_when_open"] = changes in ("at_start_only", "before_first_deal")
    if changes is not None:
        option["changes"] = changes
    return option


@st.composite
def profiles(draw: st.DrawFn, focus: Focus | None = None) -> dict[str, Json]:
    """A whole profile document: rules (holding ``focus``'s parameters), a few options over
    them, no clauses."""
    r = draw(rules(focus))
    held = focus.reach() if focus is not None else {}
    options: list[dict[str, Json]] = []
    used: set[str] = set()
    for i in range(draw(st.integers(0, 3))):
        option = _option(draw, r, i, held)
        if option is None:
            continue
        target = str(option["sets"])
        if target in used:
            continue
        used.add(target)
        options.append(option)
    return {
        "profile_format": 1,
        "id": "drawn",
        "name": "A drawn ruleset",
        "summary": "Drawn by tests/strategies.py.",
        "source": {"document": "tests/strategies.py", "title": "Hypothesis"},
        "rules": r,
        "options": options,
        "clauses": [],
    }


@dataclass(frozen=True)
class Table:
    """A profile, a seat count, option values for start, and the seed of the game's play."""

    profile: dict[str, Json]
    seats: int
    options: dict[str, Json]
    seed: int

    def rng(self) -> random.Random:
        return random.Random(self.seed)


def _option_value(option: dict[str, Json]) -> st.SearchStrategy[Json]:
    if "values" in option:
        return st.sampled_from(option["values"])
    low, high = option["range"]["min"], option["range"]["max"]
    return st.integers(low, high)


@st.composite
def tables(
    draw: st.DrawFn,
    profile: st.SearchStrategy[dict[str, Json]] | None = None,
    focus: Focus | None = None,
) -> Table:
    """A table under a drawn profile (``profile``'s, or one holding ``focus``'s parameters)."""
    doc = draw(profile if profile is not None else profiles(focus))
    r = doc["rules"]
    seats = draw(st.integers(r["seats"]["min"], r["seats"]["max"]))
    chosen = {o["name"]: draw(_option_value(o)) for o in doc["options"] if draw(st.booleans())}
    return Table(doc, seats, chosen, draw(st.integers(0, 2**32 - 1)))
