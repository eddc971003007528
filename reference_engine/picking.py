"""Which cards of the offer may be picked, under the profile's pick rule."""

from __future__ import annotations

from collections.abc import Collection

from .cards import Card
from .rules import PickFromOffer, Rules
from .throws import Throw, ThrowKind, run_positions


def pickable_cards(offer: Throw, rules: Rules) -> tuple[Card, ...]:
    """The cards of ``offer`` that the pick rule lets the next player take."""
    if rules.pick_from_offer is PickFromOffer.LAST_PLACED:
        return offer.cards[-1:]
    if rules.pick_from_offer is PickFromOffer.FIRST_OR_LAST_PLACED:
        return tuple(dict.fromkeys((offer.cards[0], offer.cards[-1])))
    if rules.pick_from_offer is PickFromOffer.RUN_ENDS and offer.kind is ThrowKind.RUN:
        placed = run_positions(offer.cards, rules)
        assert placed is not None
        ends = (placed[0][0], placed[-1][0])
        return tuple(dict.fromkeys(c for c in offer.cards if c in ends))
    return tuple(dict.fromkeys(offer.cards))


def offer_open_to(seat: int, multi_throwers: Collection[int], rules: Rules) -> bool:
    """Whether ``seat`` may pick from the offer at all (the multi-throw house rule)."""
    return not rules.only_after_multi_throw or seat in multi_throwers
