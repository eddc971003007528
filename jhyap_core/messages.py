"""The typed messages of an engine side: actions, a deal's layout, a dealt hand, a round's
scores, a refusal, what ``hello`` answers.

Cards are their protocol names (``"Ah"``, ``"Td"``, ``"X"``), already checked: a binding
maps them onto its engine's own card objects. Seats are protocol seats, ``0`` to
``seats - 1`` in turn order.

The moves (:data:`Action`) a binding's ``refusal`` is asked about and a host's ``act``
plays, as ``jhyap_kit`` exports them:

>>> from jhyap_kit import Call, Pick, Source, Throw, Timeout
>>> Throw(("3c", "4c", "5c")).cards[-1]  # the last card placed lands on top
'5c'
>>> Pick(Source.OFFER, "3h")
Pick(source=<PickSource.OFFER: 'offer'>, card='3h')
>>> Pick(Source.DECK).card is None  # the card drawn is the deck's top, unknown until drawn
True
>>> Call() == Call(), isinstance(Timeout(), Call)
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .vocabulary import ACTIONS, COMMANDS, ErrorCode, JhyapError, PickSource


@dataclass(frozen=True, slots=True)
class Call:
    """Call Jhyap (show) at the start of the turn."""


@dataclass(frozen=True, slots=True)
class Throw:
    """Throw ``cards``, in the order placed (the last lands on top)."""

    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Pick:
    """Take a card: the top of the deck (``card`` is then the card drawn, once the kit
    knows it, else None) or ``card`` from the offer."""

    source: PickSource
    card: str | None = None


@dataclass(frozen=True, slots=True)
class Timeout:
    """The seat's turn timer ran out; the kit plays the rest of the turn through the hooks."""


@dataclass(frozen=True, slots=True)
class Slapdown:
    """Throw ``card``, just drawn from the deck, onto one's own single of its rank, before
    the next seat acts (``throws.slapdown``)."""

    card: str


Action = Call | Throw | Pick | Timeout | Slapdown


@dataclass(frozen=True, slots=True)
class Deal:
    """A hand to start: every card already placed. ``hands[s]`` is seat ``s``'s hand in
    canonical order (``()`` for a seat that is out), ``turned_up`` the first offer (None
    under ``deal.first_offer`` none: no card is turned up) and ``stock`` the rest of the
    deck, top card first."""

    round: int
    starter: int
    dealer: int | None
    turn_order: tuple[int, ...]
    hands: tuple[tuple[str, ...], ...]
    turned_up: str | None
    stock: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RoundScore:
    """What the engine scored for a hand (hook ``score_round``).

    ``winner``: the caller on a won call, the seat that beat it on a beaten call, None when
    the deck ran out. ``deltas`` and ``scores`` have one entry per seat (``scores`` after the
    profile's score cuts). ``eliminated``: the seats this round put out, in seat order.
    """

    winner: int | None
    deltas: tuple[int, ...]
    scores: tuple[int, ...]
    eliminated: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why the engine refuses an action: a protocol error code and a message for people."""

    code: ErrorCode
    message: str


class Refused(JhyapError):
    """Raised by a hook (or the kit) to refuse a request; nothing may have changed.

    The reference engine's JhyapError with the code first: one exception for every
    refusal on the engine side."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message, code)

    @property
    def refusal(self) -> Refusal:
        return Refusal(self.code, self.message)


@dataclass(frozen=True, slots=True)
class DealLayout:
    """The cards of a deal already placed (protocol 1.1): ``hands`` per seat, ``turned_up``,
    ``stock`` top card first, as the ``dealt`` event reports them; ``turned_up`` None (null)
    when no card is turned up (``deal.first_offer`` none)."""

    hands: tuple[tuple[str, ...], ...]
    turned_up: str | None
    stock: tuple[str, ...] = field(default=())


@dataclass(frozen=True, slots=True)
class EngineInfo:
    """What ``hello`` answers: the engine's name, version and language, and what it serves.

    ``state_fields`` (protocol 1.1) lists the state fields the engine reports; None means all.
    ``kit_kept_fields`` (protocol 1.1) lists those of them an adapter kit keeps by its own
    table procedure rather than reading from the engine; None means none.
    ``requests_ahead`` (protocol 1.2): the engine answers each line in order whatever was
    written after it, so the harness may write requests that change the game before it has
    judged the answers before them. The serving loop (:func:`jhyap_core.serving.serve`)
    does; an engine that serves a session otherwise and cannot says False.
    """

    name: str
    version: str
    language: str
    commands: tuple[str, ...] = COMMANDS
    actions: tuple[str, ...] = ACTIONS
    state_fields: tuple[str, ...] | None = None
    kit_kept_fields: tuple[str, ...] | None = None
    requests_ahead: bool = True

    def supports(self) -> dict[str, Any]:
        body: dict[str, Any] = {"commands": list(self.commands), "actions": list(self.actions)}
        if self.state_fields is not None:
            body["state_fields"] = list(self.state_fields)
        if self.kit_kept_fields is not None:
            body["kit_kept_fields"] = list(self.kit_kept_fields)
        if self.requests_ahead:
            body["requests_ahead"] = True
        return body
