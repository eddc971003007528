"""Which cards of the offer may be picked, under the profile's pick rule.

With several packs (or several jokers) a name can occur more than once in an offer; each
occurrence is one card (docs/protocol.md, "Cards and seats"), so the rule picks out
*occurrences*: positions in the offer as placed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection

from jhyap_core.cards import Card
from jhyap_core.table import Throw
from jhyap_core.vocabulary import ThrowKind

from .rules import PickFromOffer, Rules
from .throws import run_positions


def pickable_positions(offer: Throw, rules: Rules) -> tuple[int, ...]:
    """The positions in ``offer`` (as placed) of the cards the pick rule lets be taken."""
    count = len(offer.cards)
    if count == 0:
        return ()
    if rules.picking.from_offer is PickFromOffer.LAST_PLACED:
        return (count - 1,)
    if rules.picking.from_offer is PickFromOffer.FIRST_OR_LAST_PLACED:
        return (0, count - 1) if count > 1 else (0,)
    if rules.picking.from_offer is PickFromOffer.RUN_ENDS and offer.kind is ThrowKind.RUN:
        placed = run_positions(offer.cards, rules)
        if placed is None:
            # What stays on offer of a run once its middle went into a new deck (reshuffle
            # kept_aside pickable_and_throw): only its ends are left, and they may be taken.
            return tuple(range(count))
        # The end cards, each once, matched to the offer's first occurrences of their names.
        wanted = Counter((placed[0][0], placed[-1][0]) if len(placed) > 1 else (placed[0][0],))
        positions = []
        for i, card in enumerate(offer.cards):
            if wanted[card] > 0:
                wanted[card] -= 1
                positions.append(i)
        return tuple(positions)
    return tuple(range(count))


def pickable_cards(offer: Throw, rules: Rules) -> tuple[Card, ...]:
    """The cards of ``offer`` that the pick rule lets the next player take, as placed, each
    occurrence once (two jokers on offer that may both be taken are listed twice)."""
    return tuple(offer.cards[i] for i in pickable_positions(offer, rules))


def offer_open_to(seat: int, multi_throwers: Collection[int], rules: Rules) -> bool:
    """Whether ``seat`` may pick from the offer at all (the multi-throw house rule)."""
    return not rules.picking.only_after_multi_throw or seat in multi_throwers
