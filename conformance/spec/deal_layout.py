"""The layout a deal produces, sent with the deal's ``deck`` when the harness knows it
(protocol 1.1, docs/protocol.md "The deal").

The layout is what the ``dealt`` event reports, plus the stock: ``hands`` (per seat, in
canonical order, ``[]`` for a seat out), ``turned_up`` (the first offer; null under
``deal.first_offer`` none, where the card order gives one card fewer before the stock) and
``stock`` (the cards left, top first). The harness knows it when the transcript states it:

* a deal given by hands (``deal: {starter, hands, turned_up, deck}``) names each hand and
  the turned-up card; the stock is the rest of the card order;
* a deal given as a whole order whose expected ``dealt`` event lists every hand and the
  turned-up card (a derived case's deals are such: their expectations are the reference
  engine's whole answer).

A deal the transcript expects refused carries ``deck`` only, and so does a deal whose
stated layout the card order cannot produce (the transcript is then wrong, and its own
expectations say so).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace

from jhyap_core.vocabulary import EventType

from .decks import canonical
from .json_types import Json

LAYOUT_FIELDS = ("hands", "turned_up", "stock")


def layout_of(
    order: Sequence[str], hands: Sequence[Sequence[str]], turned_up: str | None
) -> dict[str, Json] | None:
    """The layout of a deal of ``order`` giving these hands and this turned-up card (None:
    no card turned up, the stock follows the hands), or None when dealing ``order`` one card
    at a time cannot give them (the hands are not its first cards, or the next card is
    another)."""
    dealt = sum(len(hand) for hand in hands)
    if dealt >= len(order) or (turned_up is not None and order[dealt] != turned_up):
        return None
    if Counter(order[:dealt]) != Counter(card for hand in hands for card in hand):
        return None
    return {
        "hands": [canonical(hand) for hand in hands],
        "turned_up": turned_up,
        "stock": list(order[dealt + (turned_up is not None) :]),
    }


def _from_hands(
    spec: Mapping[str, Json], order: Sequence[str], seats: int
) -> dict[str, Json] | None:
    named = {int(seat): list(cards) for seat, cards in spec["hands"].items()}
    if any(not 0 <= seat < seats for seat in named):
        return None
    return layout_of(order, [named.get(seat, []) for seat in range(seats)], spec["turned_up"])


def _from_events(
    events: Sequence[Json], order: Sequence[str], seats: int
) -> dict[str, Json] | None:
    for event in events:
        if not isinstance(event, Mapping) or event.get("type") != EventType.DEALT:
            continue
        hands, turned_up = event.get("hands"), event.get("turned_up")
        if (
            isinstance(hands, list)
            and len(hands) == seats
            and all(isinstance(h, list) and all(isinstance(c, str) for c in h) for h in hands)
            and (isinstance(turned_up, str) or (turned_up is None and "turned_up" in event))
        ):
            return layout_of(order, hands, turned_up)
    return None


def deal_layout(
    spec: Mapping[str, Json] | None,
    order: Sequence[str],
    seats: int,
    events: Sequence[Json] | None,
    refused: bool = False,
) -> dict[str, Json] | None:
    """The layout of a transcript's deal step (``spec`` as written, ``order`` the card order
    sent, ``events`` the events it expects), or None when the harness does not know it."""
    if refused:
        return None
    if spec is not None and "hands" in spec:
        return _from_hands(spec, order, seats)
    return _from_events(events or (), order, seats)


def with_deal_layouts(steps: Sequence[Json], seats: int) -> tuple[Json, ...]:
    """Transcript steps (:class:`.transcript.Step`) with each deal's layout in its request,
    where known; ``seats`` is the transcript's, which a ``start`` step may replace."""
    found = []
    for step in steps:
        if step.kind == "start" and step.start_seats is not None and step.expect.error is None:
            seats = step.start_seats
        if step.kind == "deal" and step.request is not None:
            layout = deal_layout(
                step.deal,
                step.request["deck"],
                seats,
                step.expect.events,
                step.expect.error is not None,
            )
            if layout is not None:
                step = replace(step, request={**step.request, **layout})
        found.append(step)
    return tuple(found)


def layout_from_state(state: Mapping[str, Json], order: Sequence[str]) -> dict[str, Json] | None:
    """The layout of a deal just made, read from the dealing engine's state (the fuzzer's
    model of the reference engine). No offer after a deal: no card was turned up."""
    offer = state.get("offer") or []
    hands = state.get("hands")
    if not isinstance(hands, list) or len(offer) > 1:
        return None
    return layout_of(order, hands, offer[0] if offer else None)


__all__ = [
    "LAYOUT_FIELDS",
    "deal_layout",
    "layout_from_state",
    "layout_of",
    "with_deal_layouts",
]
