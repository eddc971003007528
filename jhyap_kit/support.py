"""What an engine declares it implements, and the check that refuses everything else.

An engine declares every rule parameter it reads, by dotted path under ``rules`` (a path
may name a whole subtree, such as ``card_values``), with the values it implements or
:data:`ANY`. A profile holding a parameter the engine does not declare, or a value it does
not list, is answered ``unsupported_profile`` naming the parameter: never silently ignored.

:data:`KIT_RULES` declares the parameters the kit itself plays for a
:class:`~jhyap_kit.engine.TrackedEngine` (the deal, turn passing, the offer, reshuffles,
the starter and dealer, game end): a binding spreads it into its own declaration and may
narrow any entry to what its engine's loop can follow.

Some values of those parameters the kit plays through a hook's default, and the default
plays only part of them: :func:`default_misplay` names a parameter whose value the
defaults would play otherwise than the reference engine, unless the binding overrides
the hook that decides it (the table is then refused ``unsupported_profile``).

Which state fields come from the engine and which the kit keeps by its own procedure,
by the hooks a binding implements (:data:`OBSERVATIONS`, :func:`kit_kept_fields`), is what
``hello`` says in ``supports.kit_kept_fields``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from jhyap_core.messages import Refused
from jhyap_core.vocabulary import STATE_FIELDS, ErrorCode, StateField


class _Any:
    """Every value of a parameter."""

    def __repr__(self) -> str:
        return "ANY"


ANY: Final = _Any()

RuleSupport = Mapping[str, Collection[Any] | _Any]

KIT_RULES: Final[Mapping[str, Collection[Any] | _Any]] = {
    "seats": ANY,
    "deck.cards": ANY,
    "deck.ranks_left_out": ANY,
    "deck.jokers": ANY,
    "deck.packs_by_seats": ANY,
    "hand_size": ANY,
    "direction": ANY,
    "deal.dealer": ("none", "seat_before_starter"),
    "deal.first_starter": ANY,
    "deal.order": ("one_at_a_time_from_starter",),
    "deal.first_offer": ("turned_up_card", "none"),
    "next_starter": (
        "next_seat",
        "round_winner",
        "seat_after_round_winner",
        "caller",
        "first_starter",
    ),
    "pick.from_offer": ("any", "last_placed", "first_or_last_placed", "run_ends"),
    "pick.only_after_multi_throw": ANY,
    "pick.multi_throw_scope": ANY,
    "reshuffle.moment": ANY,
    "reshuffle.new_deck": ("out_of_play",),
    "reshuffle.kept_aside": (
        "current_offer",
        "offer_and_throw",
        "pickable_and_throw",
        "offer_and_card_under",
    ),
    "deck_runs_out_when": ("last_card_taken", "draw_finds_deck_empty"),
    "deck_runs_out": (
        "reshuffle",
        "round_ends_no_score",
        "round_ends_hands_score",
        "offer_under_deck",
    ),
    "call.timing": ("start_of_turn",),
    "game_end.kind": ANY,
    "game_end.rounds": ANY,
    "game_end.out_above": ANY,
    "game_end.reaching_is_out": ANY,
    "throws.laid": ANY,
    "turn_timer": ANY,
}


def leaves(rules: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Every (dotted path, value) of ``rules``, descending into objects only."""
    for key, value in rules.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            yield from leaves(value, path + ".")
        else:
            yield path, value


def _at(rules: Mapping[str, Any], path: str) -> Any:
    node: Any = rules
    for key in path.split("."):
        node = node[key]
    return node


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + ".")


def unsupported(
    rules: Mapping[str, Any], support: RuleSupport, skip: Collection[str] = ()
) -> str | None:
    """The message naming the first parameter of ``rules`` that ``support`` does not
    cover, or None when the engine implements them all. Parameters at or under a path of
    ``skip`` are not looked at (those an option sets are judged with the option)."""
    declared = sorted(support, key=len, reverse=True)
    for path, _value in leaves(rules):
        if any(_under(path, s) or _under(s, path) for s in skip):
            continue
        owner = next((d for d in declared if _under(path, d)), None)
        if owner is None:
            return f"rules.{path}: this engine does not implement this rule parameter"
        allowed = support[owner]
        if isinstance(allowed, _Any):
            continue
        held = _at(rules, owner)
        if held not in allowed:
            shown = ", ".join(repr(v) for v in allowed)
            return f"rules.{owner}: {held!r} is not implemented by this engine (it plays {shown})"
    return None


@dataclass(frozen=True, slots=True)
class Misplay:
    """A parameter value a hook's default would play otherwise than the reference."""

    parameters: tuple[str, ...]  # the first is named; the rest make the value a misplay
    message: str


def _runs_beyond_the_defaults(rules: Mapping[str, Any]) -> str | None:
    """Why the defaults of ``laid`` and ``pickable_positions``, which read a run by the
    ranks of its cards (an ace above the king where both are in it), cannot read the runs
    of ``rules``; None when they read every run as the reference does."""
    deck, run = rules["deck"], rules["throws"]["run"]
    if deck.get("jokers", 0) and deck.get("jokers_wild", "none") in ("runs", "sets_and_runs"):
        return f"jokers stand in runs (deck.jokers_wild {deck['jokers_wild']!r})"
    if run.get("wrap", False):
        return "runs turn the corner (throws.run.wrap)"
    longest = run.get("max")
    if run["ace"] == "low_or_high" and rules["hand_size"] >= 13 and (longest or 13) >= 13:
        # A to K is a run with the ace low; the default would stand the ace above the king.
        return "a run may hold all thirteen ranks with the ace at either end (throws.run.ace)"
    return None


def default_misplay(rules: Mapping[str, Any], overridden: Collection[str]) -> Misplay | None:
    """The first parameter of the resolved ``rules`` that a default hook of
    :class:`~jhyap_kit.engine.TrackedEngine` would misplay, the binding not overriding it
    (``overridden``: the names of the hooks it overrides), or None."""
    slapdown = rules["throws"].get("slapdown", "none")
    if slapdown != "none":
        # The table would play it, but no hook tells the engine of a card slapped down.
        return Misplay(
            ("throws.slapdown",),
            f"rules.throws.slapdown: {slapdown!r} is not played by the kit (it plays 'none'): "
            "no hook tells the engine of a card slapped down",
        )
    why = _runs_beyond_the_defaults(rules)
    involved = ("deck.jokers_wild", "deck.jokers", "throws.run")
    laid = rules["throws"].get("laid", "as_placed")
    if why and laid in ("by_rank", "runs_by_rank") and "laid" not in overridden:
        return Misplay(
            ("throws.laid", *involved),
            f"rules.throws.laid: {laid!r} is played by the kit's default laid() for runs "
            f"read by the ranks of their cards only, and here {why}: the binding overrides "
            "laid() to play it",
        )
    if why and rules["pick"]["from_offer"] == "run_ends" and "pickable_positions" not in overridden:
        return Misplay(
            ("pick.from_offer", *involved),
            "rules.pick.from_offer: 'run_ends' is played by the kit's default "
            f"pickable_positions() for runs read by the ranks of their cards only, and here "
            f"{why}: the binding overrides pickable_positions() to play it",
        )
    if rules.get("money") and "settlement" not in overridden:
        return Misplay(
            ("money",),
            "rules.money: the kit's default settlement() settles no money: the binding "
            "overrides settlement() to play it",
        )
    return None


def check_support(rules: Mapping[str, Any], support: RuleSupport, code: ErrorCode) -> None:
    """Raise Refused(``code``) naming the first parameter ``support`` does not cover."""
    message = unsupported(rules, support)
    if message is not None:
        raise Refused(code, message)


F = StateField
# The optional hooks through which a binding reports what its engine decided, each with
# the state fields it makes the engine's (docs/kit.md, "Observation hooks").
OBSERVATIONS: Final[Mapping[str, tuple[StateField, ...]]] = {
    "observed_hands": (F.HANDS, F.HAND_VALUES),
    "observed_starter": (F.STARTER, F.DEALER),
    "observed_phase": (F.PHASE,),
    "observed_game_over": (),  # the phase and result follow it, with the kit's standings
    "observed_winners": (),
    "observed_scores": (F.SCORES,),
    "observed_throw": (F.OFFER, F.THROWN),
    "observed_deck": (F.DECK, F.DECK_SIZE),
}
# The fields other hooks a binding implements make the engine's: the ones every binding
# implements (the throw's kind, the hand's scores), and those whose default it overrides.
ENGINE_HOOK_FIELDS: Final[Mapping[str, tuple[StateField, ...]]] = {
    "on_throw": (F.OFFER_KIND,),
    "score_round": (F.SCORES,),
    "laid": (F.OFFER, F.THROWN),
    "pickable_positions": (F.PICKABLE,),
}
_REQUIRED_HOOKS: Final = ("on_throw", "score_round")


def kit_kept_fields(hooks: Collection[str]) -> tuple[str, ...]:
    """The state fields the kit keeps itself, in the protocol's order, for a binding that
    implements the optional ``hooks`` (observation hooks and overridden defaults).

    >>> len(kit_kept_fields(()))
    21
    >>> kept = kit_kept_fields(("observed_hands", "observed_starter"))
    >>> [f for f in ("hands", "hand_values", "starter", "dealer", "phase") if f in kept]
    ['phase']
    """
    engine: set[str] = set()
    for hook in (*_REQUIRED_HOOKS, *hooks):
        engine.update(OBSERVATIONS.get(hook, ()))
        engine.update(ENGINE_HOOK_FIELDS.get(hook, ()))
    if {"observed_game_over", "observed_winners"} <= set(hooks):
        engine.add(F.RESULT)  # its standings and scores are from the engine's scores
    return tuple(name for name in STATE_FIELDS if name not in engine)
