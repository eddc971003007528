"""Which cards of the offer may be picked, under the profile's pick rule."""

from __future__ import annotations

from collections.abc import Collection

from .cards import Card
from .rules import PickFromOffer, Rules
from .throws import Throw, ThrowKind


def pickable_cards(offer: Throw, rules: Rules) -> tuple[Card, ...]:
    """The cards of ``offer`` that the pick rule lets the next player take."""
    if rules.pick_from_offer is PickFromOffer.LAST_PLACED:
        return offer.cards[-1:]
    if rules.pick_from_offer is PickFromOffer.RUN_ENDS and offer.kind is ThrowKind.RUN:
        low = min(offer.cards, key=lambda c: c.rank)
        high = max(offer.cards, key=lambda c: c.rank)
        return tuple(c for c in offer.cards if c in (low, high))
    return offer.cards


def offer_open_to(seat: int, multi_throwers: Collection[int], rules: Rules) -> bool:
    """Whether ``seat`` may pick from the offer at all (the multi-throw house rule)."""
    return not rules.only_after_multi_throw or seat in multi_throwers
