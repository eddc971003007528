"""Hypothesis strategies over the whole rule space of schema/profile.schema.json.

``profiles()`` draws whole profile documents: every rule parameter and every value the
schema allows (within bounds that keep a game short), in combination, with seat ranges,
packs and jokers, and a few host options that set rule parameters. Only combinations that
``jhyap validate`` accepts are drawn; tests/engine/test_rule_model.py checks that it accepts them.
``tables()`` adds a seat count, option values and a seed for a game under the profile.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from hypothesis import strategies as st

from jhyap_core.json_types import Json
from reference_engine.parameters import registry

RANKS = "A23456789TJQK"


def values(path: str) -> list[str]:
    """The values of a choice rule parameter, in the schema's order (the registry's)."""
    return list(registry()[path].values)


def _card_values() -> st.SearchStrategy[dict[str, Json]]:
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
    return st.builds(
        lambda values, each: values if each is None else {**values, "only_jokers": each},
        chosen,
        only,
    )


@st.composite
def rules(draw: st.DrawFn) -> dict[str, Json]:
    """A rules mapping that jhyap validate accepts."""
    seats_min = draw(st.integers(2, 5))
    seats_max = draw(st.integers(seats_min, min(seats_min + 3, 7)))
    jokers = draw(st.integers(0, 4))
    wild = draw(st.sampled_from(values("deck.jokers_wild")))
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
    left_out = draw(st.sampled_from([[], [], [], ["K"], ["Q", "K"], ["7"]]))
    cards = 52 - 4 * len(left_out)
    # Every seat count must leave a card to turn up and one to draw.
    room = min((packs(s) * (cards + jokers) - 2) // s for s in range(seats_min, seats_max + 1))
    hand_size = draw(st.integers(1, min(room, 8)))
    most_packs = max([1, *(s["packs"] for s in steps)])
    largest_set = most_packs * (4 + (jokers if wild in ("sets", "sets_and_runs") else 0))
    set_min = draw(st.integers(2, min(4, largest_set)))
    set_max = draw(st.integers(set_min, min(largest_set, set_min + 4)))
    scoring_kind = draw(st.sampled_from(["transfer", "penalty"]))
    end_kind = draw(
        st.sampled_from(
            # host_ends needs money, and money needs transfer scoring.
            ["fixed_rounds", "elimination", "first_past_target"]
            if scoring_kind == "penalty"
            else ["host_ends", "fixed_rounds"]
        )
    )
    past_target = ("elimination", "first_past_target")
    moment = draw(st.sampled_from(values("reshuffle.moment")))
    kept = draw(
        st.sampled_from(
            ["current_offer", "pickable_and_throw", "offer_and_card_under"]
            if moment == "when_deck_emptied"
            else ["offer_and_throw", "pickable_and_throw"]
        )
    )
    inclusive = draw(st.booleans())
    run_min = draw(st.integers(2, 5))
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
        beaten_call = draw(
            st.sampled_from(["caller_hand_plus_penalty", "caller_hand_times", "penalty_only"])
        )
        scoring: dict[str, Json] = {
            "kind": "penalty",
            "won_call": "each_other_hand",
            "beaten_call": beaten_call,
            "beaten_penalty": 0 if beaten_call == "caller_hand_times" else draw(st.integers(0, 40)),
            "beaten_factor": draw(st.integers(2, 4)) if beaten_call == "caller_hand_times" else 2,
            "beaten_others": draw(st.sampled_from(values("scoring.beaten_others"))),
            "cuts": draw(
                st.lists(
                    st.fixed_dictionaries({"at": st.integers(1, 120), "to": st.integers(0, 120)}),
                    max_size=2,
                    unique_by=lambda c: c["at"],
                )
            ),
            "halve_at_multiples_of": draw(st.one_of(st.none(), st.integers(1, 60))),
            "drop_at_multiples_of": draw(st.one_of(st.none(), st.integers(1, 60))),
            "points_multiplier": draw(st.integers(1, 3)),
            "multiples_for": draw(st.sampled_from(values("scoring.multiples_for"))),
        }
    else:
        scoring = {
            "kind": "transfer",
            "won_call": "each_other_hand",
            "beaten_call": draw(st.sampled_from(["hands_except_winner", "all_hands"])),
            "beaten_penalty": 0,
            "points_multiplier": draw(st.integers(1, 3)),
        }
    timer = draw(
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
    money_needed = end_kind == "host_ends"
    money = None
    if scoring_kind == "transfer" and (money_needed or draw(st.booleans())):
        money = {
            "dollars_per_point": draw(st.sampled_from(["0.05", "1", "0.10", "2.25", "0"])),
            "settlement": draw(st.sampled_from(values("money.settlement"))),
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
        "card_values": draw(_card_values()),
        "direction": draw(st.sampled_from(values("direction"))),
        "deal": {
            "dealer": draw(st.sampled_from(values("deal.dealer"))),
            "first_starter": draw(st.integers(0, seats_min - 1)),
            "order": "one_at_a_time_from_starter",
            "first_offer": draw(st.sampled_from(values("deal.first_offer"))),
        },
        "next_starter": draw(st.sampled_from(values("next_starter"))),
        "deck_runs_out": draw(
            st.sampled_from(
                values("deck_runs_out")
                if scoring_kind == "penalty"
                else ["reshuffle", "round_ends_no_score", "offer_under_deck"]
            )
        ),
        "deck_runs_out_when": draw(st.sampled_from(values("deck_runs_out_when"))),
        "throws": {
            "set": {"min": set_min, "max": set_max, "jokers_alone": draw(st.booleans())},
            "run": {
                "min": run_min,
                "max": draw(st.one_of(st.none(), st.integers(run_min, run_min + 2))),
                "min_naturals": draw(st.integers(1, 3)),
                "wrap": draw(st.booleans()),
                "ace": draw(st.sampled_from(values("throws.run.ace"))),
                "order": draw(st.sampled_from(values("throws.run.order"))),
                "jokers_extend": draw(st.sampled_from(values("throws.run.jokers_extend"))),
            },
            "order_matters": draw(st.booleans()),
            "single": draw(st.sampled_from(values("throws.single"))),
            "single_joker": draw(st.booleans()),
            "laid": draw(st.sampled_from(values("throws.laid"))),
            "slapdown": draw(st.sampled_from(values("throws.slapdown"))),
        },
        "pick": {
            "from_offer": draw(st.sampled_from(values("pick.from_offer"))),
            "only_after_multi_throw": draw(st.booleans()),
            "multi_throw_scope": draw(st.sampled_from(values("pick.multi_throw_scope"))),
        },
        "reshuffle": {"moment": moment, "new_deck": "out_of_play", "kept_aside": kept},
        "call": {
            # An exclusive limit of 0 refuses every call (conformance/spec/combinations.py).
            "limit": draw(st.integers(0 if inclusive else 1, 40)),
            "limit_by_seats": limit_steps,
            "inclusive": inclusive,
            "timing": "start_of_turn",
            "first_round": draw(st.sampled_from(values("call.first_round"))),
            "min_own_turns": draw(st.integers(0, 2)),
        },
        "showdown": {
            "tie": draw(st.sampled_from(values("showdown.tie"))),
            "winner_among_lowest": draw(st.sampled_from(values("showdown.winner_among_lowest"))),
        },
        "scoring": scoring,
        "game_end": {
            "kind": end_kind,
            "rounds": draw(st.integers(1, 4)) if end_kind == "fixed_rounds" else None,
            "out_above": draw(st.integers(0, 120)) if end_kind in past_target else None,
            "reaching_is_out": draw(st.booleans()) if end_kind in past_target else False,
        },
        "money": money,
        "turn_timer": timer,
    }


def _option(draw: st.DrawFn, r: dict[str, Json], index: int) -> dict[str, Json] | None:
    """One host option over a parameter of ``r``, its default the rule's own value."""
    changes = draw(st.sampled_from([None, "between_hands", "before_first_deal", "at_start_only"]))
    kind = draw(st.sampled_from(["call_limit", "inclusive", "multi", "tie", "pick", "faces"]))
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
def profiles(draw: st.DrawFn) -> dict[str, Json]:
    """A whole profile document: rules, a few options over them, no clauses."""
    r = draw(rules())
    options: list[dict[str, Json]] = []
    used: set[str] = set()
    for i in range(draw(st.integers(0, 3))):
        option = _option(draw, r, i)
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
def tables(draw: st.DrawFn, profile: st.SearchStrategy[dict[str, Json]] | None = None) -> Table:
    doc = draw(profile if profile is not None else profiles())
    r = doc["rules"]
    seats = draw(st.integers(r["seats"]["min"], r["seats"]["max"]))
    chosen = {o["name"]: draw(_option_value(o)) for o in doc["options"] if draw(st.booleans())}
    return Table(doc, seats, chosen, draw(st.integers(0, 2**32 - 1)))
