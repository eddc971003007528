"""The actions a seat can take on its turn."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from jhyap_core.cards import Card, names, parse_card, parse_cards
from jhyap_core.messages import Call as Call  # the protocol's own: a call carries nothing
from jhyap_core.vocabulary import ErrorCode, JhyapError


@dataclass(frozen=True, slots=True)
class ThrowCards:
    """Throw these cards, in the order placed (the last lands on top)."""

    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class PickDeck:
    """Take the top card of the deck."""


@dataclass(frozen=True, slots=True)
class PickOffer:
    """Take this card from the previous throw."""

    card: Card


@dataclass(frozen=True, slots=True)
class Timeout:
    """The seat's turn timer ran out: the engine plays the turn for it."""


@dataclass(frozen=True, slots=True)
class SlapDown:
    """Throw this card, just drawn from the deck, onto one's own single of its rank, before
    the next seat acts (throws.slapdown)."""

    card: Card


Action = Call | ThrowCards | PickDeck | PickOffer | Timeout | SlapDown


def action_from_json(data: object) -> Action:
    """Parse a protocol action object; JhyapError(bad_request/invalid_card) if malformed."""
    if not isinstance(data, Mapping):
        raise JhyapError("action must be an object with a 'type'", ErrorCode.BAD_REQUEST)
    kind = data.get("type")
    if kind == "call":
        return Call()
    if kind == "throw":
        if "cards" not in data:
            raise JhyapError("throw action needs 'cards'", ErrorCode.BAD_REQUEST)
        return ThrowCards(tuple(parse_cards(data["cards"])))
    if kind == "pick":
        source = data.get("from")
        if source == "deck":
            return PickDeck()
        if source == "offer":
            if not isinstance(data.get("card"), str):
                raise JhyapError("pick from the offer needs 'card'", ErrorCode.BAD_REQUEST)
            return PickOffer(parse_card(data["card"]))
        raise JhyapError("pick action needs 'from': 'deck' or 'offer'", ErrorCode.BAD_REQUEST)
    if kind == "timeout":
        return Timeout()
    if kind == "slapdown":
        if not isinstance(data.get("card"), str):
            raise JhyapError("slapdown action needs 'card'", ErrorCode.BAD_REQUEST)
        return SlapDown(parse_card(data["card"]))
    raise JhyapError(
        f"unknown action type {kind!r}; expected call, throw, pick, timeout or slapdown",
        ErrorCode.BAD_REQUEST,
    )


def action_to_json(action: Action) -> dict[str, Any]:
    match action:
        case Call():
            return {"type": "call"}
        case ThrowCards(cards):
            return {"type": "throw", "cards": names(cards)}
        case PickDeck():
            return {"type": "pick", "from": "deck"}
        case PickOffer(card):
            return {"type": "pick", "from": "offer", "card": str(card)}
        case Timeout():
            return {"type": "timeout"}
        case SlapDown(card):
            return {"type": "slapdown", "card": str(card)}
    raise AssertionError(action)
