"""The short hand ``jhyap smoke`` plays: a fixed one, or one planned for a declared ruleset.

The fixed hand suits every shipped profile (see :data:`DEAL`). An engine that plays only its
own rules (``jhyap smoke --profile P``) gets a hand planned by asking the reference engine,
in this process, what ruleset P allows: the deal laid out for its deck and hand size, each
turn the first single card it may throw and a pick from the deck, then a call where the
ruleset allows one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from jhyap_core.profile import resolve
from jhyap_core.vocabulary import ActionType, Command, PickSource

from ..spec.deal_layout import deal_layout
from ..spec.decks import expand_deal, table_deck
from ..spec.json_types import Json
from ..spec.profile_schema import sent_profile
from .derive import NotApplicable, laid_out
from .inprocess import ReferenceClient

SEATS: Final = 2
MAX_TURNS: Final = 12  # turns played, lowest cards kept, before a call is given up

# The fixed hand: seat 0 throws its king and draws 3c (9 points), seat 1 throws a king and
# draws, and seat 0 calls. Every shipped profile allows that call (every seat has had a
# turn, 9 is within the call limit of 10), and every pick is from the deck.
DEAL: Final[dict[str, Any]] = {
    "starter": 0,
    "hands": {"0": ["Ac", "As", "2c", "2d", "Kh"], "1": ["Js", "Qc", "Qs", "Kc", "Kd"]},
    "turned_up": "9h",
    "deck": ["3c", "4c"],
}


@dataclass(frozen=True)
class Turn:
    seat: int
    cards: tuple[str, ...]  # the cards thrown; the pick is from the deck

    def words(self) -> str:
        return " ".join(self.cards)


@dataclass(frozen=True)
class HandPlan:
    """What smoke sends: the table, the deal, two turns and, where allowed, a call."""

    seats: int
    deck: list[str]
    turns: tuple[Turn, ...]  # two at least: the first checks throw and pick, the rest "turn"
    call: int | None  # the seat that calls, or None where the ruleset allows no call then
    wrong_seat: int  # a seat whose call is out of turn right after the deal
    layout: Mapping[str, Json] | None = None  # what the deal gives (protocol 1.1), if known

    def deal_request(self) -> dict[str, Json]:
        return {"cmd": Command.DEAL, "deck": list(self.deck), **(self.layout or {})}


_FIXED_DECK: Final = expand_deal(DEAL)
FIXED: Final = HandPlan(
    SEATS,
    _FIXED_DECK,
    (Turn(0, ("Kh",)), Turn(1, ("Kc",))),
    0,
    1,
    deal_layout(DEAL, _FIXED_DECK, SEATS, None),
)


class CannotPlan(Exception):
    """The ruleset cannot play a smoke hand (the reason is the message)."""


_RANKS: Final = "A23456789TJQK"


def _without_ranks(deal: Mapping[str, Any], left_out: str) -> dict[str, Any]:
    """``deal`` with each card of a rank the pack leaves out replaced by the highest card of
    its suit the pack holds and the deal does not name yet (the hand keeps its shape)."""
    if not left_out:
        return dict(deal)
    named = {c for cards in deal["hands"].values() for c in cards}
    named |= {deal["turned_up"], *deal["deck"]}

    def kept(card: str) -> str:
        if card[0] not in left_out:
            return card
        for rank in reversed(_RANKS):
            substitute = rank + card[1]
            if rank not in left_out and substitute not in named:
                named.add(substitute)
                return substitute
        raise CannotPlan(f"the pack holds no card to stand for {card}")

    hands = {seat: [kept(c) for c in cards] for seat, cards in deal["hands"].items()}
    deck = [kept(c) for c in deal["deck"]]
    return {**deal, "hands": hands, "turned_up": kept(deal["turned_up"]), "deck": deck}


def _act(client: ReferenceClient, seat: int, action: Mapping[str, Json]) -> None:
    answer = client.send({"cmd": Command.ACT, "seat": seat, "action": dict(action)})
    if not answer["ok"]:
        raise CannotPlan(f"the reference engine refused {action}: {answer['error']['message']}")


def plan_for(document: Mapping[str, Json]) -> HandPlan:
    """The smoke hand for ruleset ``document``, as its reference engine plays it."""
    resolved = resolve(document)
    rules = resolved["rules"]
    seats = max(SEATS, int(rules["seats"]["min"]))
    left_out = "".join(str(r) for r in rules["deck"].get("ranks_left_out") or [])
    deal = _without_ranks(DEAL, left_out)
    try:
        spec = laid_out(
            {**deal, "hands": {str(s): deal["hands"].get(str(s), []) for s in range(seats)}},
            table_deck(rules, seats),
            int(rules["hand_size"]),
            rules["deal"]["first_offer"] != "none",
        )
    except NotApplicable as exc:
        raise CannotPlan(str(exc)) from None
    deck = expand_deal(spec, table_deck(rules, seats))
    client = ReferenceClient()
    client.handshake()
    start = {
        "cmd": Command.START,
        "profile": sent_profile(resolved),
        "options": resolved["option_values"],
    }
    if not client.send({**start, "seats": seats})["ok"]:
        raise CannotPlan(f"the reference engine refuses a {seats}-seat table")
    dealt = client.send({"cmd": Command.DEAL, "deck": deck})
    if not dealt["ok"]:
        raise CannotPlan(f"the reference engine refuses the deal: {dealt['error']['message']}")
    values = rules["card_values"]

    def points(cards: list[str]) -> int:
        return sum(int(values.get("X" if c == "X" else c[0], 0)) for c in cards)

    turns: list[Turn] = []
    caller = None
    while caller is None and len(turns) < MAX_TURNS:
        legal = client.send({"cmd": Command.LEGAL})["legal"]
        if legal is None:
            break  # the hand ended (the deck ran out under a rule that ends it)
        seat = int(legal["seat"])
        if len(turns) >= 2 and legal.get("call"):
            caller = seat
            break
        if not legal["throws"]:
            raise CannotPlan("the reference engine allows no throw")
        # What a player aiming to call would throw: the most points, then the fewest cards.
        cards = [str(c) for c in max(legal["throws"], key=lambda t: (points(t), -len(t)))]
        _act(client, seat, {"type": ActionType.THROW, "cards": cards})
        _act(client, seat, {"type": ActionType.PICK, "from": PickSource.DECK})
        turns.append(Turn(seat, tuple(cards)))
    if len(turns) < 2:
        raise CannotPlan("the hand ends before two turns are played")
    layout = deal_layout(None, deck, seats, dealt["events"])
    return HandPlan(seats, deck, tuple(turns), caller, (turns[0].seat + 1) % seats, layout)


__all__ = ["DEAL", "FIXED", "SEATS", "CannotPlan", "HandPlan", "Turn", "plan_for"]
