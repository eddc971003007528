"""What the kit reads of a profile for its engines' card play, and the table as hooks see it.

The table procedure itself (the deal, turns, the offer, picks, reshuffles, the end of a
hand, the phases, ``state`` and ``legal``) is :class:`jhyap_core.table.Table`, the same one
the reference engine runs; :class:`KitRules` adds to its parameters (``TableRules``) the few
the kit plays on a binding's behalf where the hooks leave them open: the pick rule's default,
the order a throw is laid in, when the game ends and who wins. :class:`Table` is the
procedure's table in card names, for hooks to read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from jhyap_core import table as core
from jhyap_core.cards import names
from jhyap_core.messages import Refused
from jhyap_core.vocabulary import ErrorCode, JhyapError, Phase, ThrowKind


@dataclass(frozen=True, slots=True)
class KitRules:
    """The parameters of a resolved profile's ``rules`` that the kit reads: the table
    procedure's (game end included), and those it plays for a binding's default hooks
    (pick rule, laying)."""

    table: core.TableRules
    pick_from_offer: str
    run_ace: str
    laid: str  # throws.laid: as_placed, by_rank, runs_by_rank

    @property
    def seats_min(self) -> int:
        return self.table.seats_min

    @property
    def seats_max(self) -> int:
        return self.table.seats_max

    @classmethod
    def read(cls, rules: Any) -> KitRules:
        """The kit's parameters of ``rules``; Refused(invalid_profile) when one is missing
        or of the wrong type."""
        try:
            table = core.TableRules.read(rules)
            return cls._read(rules, table)
        except JhyapError as exc:
            raise Refused(ErrorCode.INVALID_PROFILE, exc.message) from None
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise Refused(
                ErrorCode.INVALID_PROFILE, f"profile rules are incomplete or malformed: {exc!r}"
            ) from None

    @classmethod
    def _read(cls, r: Mapping[str, Any], table: core.TableRules) -> KitRules:
        return cls(
            table=table,
            pick_from_offer=str(r["pick"]["from_offer"]),
            run_ace=str(r["throws"]["run"]["ace"]),
            laid=str(r["throws"].get("laid", "as_placed")),
        )


@dataclass(slots=True)
class Table:
    """The kit's table in card names, for hooks to read (the kit writes the table)."""

    seats: int
    starter: int
    phase: Phase = Phase.AWAITING_DEAL
    round: int = 0
    scores: list[int] = field(default_factory=list)
    active: list[int] = field(default_factory=list)
    out_in_round: dict[int, int] = field(default_factory=dict)  # seat -> round, in order out
    to_act: int | None = None
    hands: list[list[str]] = field(default_factory=list)  # as held; reported sorted
    deck: list[str] = field(default_factory=list)  # top card first
    offer: tuple[str, ...] = ()
    offer_kind: ThrowKind | None = None
    thrown: tuple[str, ...] = ()
    thrown_kind: ThrowKind | None = None
    out_of_play: list[str] = field(default_factory=list)
    draw_waiting: int | None = None  # the seat whose draw waits for a new deck
    turns_taken: int = 0
    multi_throwers: set[int] = field(default_factory=set)
    last_round: dict[str, Any] | None = None
    result: dict[str, Any] | None = None

    @classmethod
    def of(cls, table: core.Table) -> Table:
        """``table`` in card names, as it is now."""
        offer, thrown = table.offer, table.thrown
        return cls(
            seats=table.seats,
            starter=table.starter,
            phase=table.phase,
            round=table.round,
            scores=list(table.scores),
            active=list(table.active),
            out_in_round=dict(table.out_in_round),
            to_act=table.to_act,
            hands=[names(h) for h in table.hands],
            deck=names(reversed(table.deck)),
            offer=tuple(names(offer.cards)) if offer else (),
            offer_kind=offer.kind if offer else None,
            thrown=tuple(names(thrown.cards)) if thrown else (),
            thrown_kind=thrown.kind if thrown else None,
            out_of_play=names(table.out_of_play),
            draw_waiting=table.draw_waiting,
            turns_taken=table.turns_taken,
            multi_throwers=set(table.multi_throwers),
            last_round=table.last_round,
            result=table.result,
        )

    @property
    def eliminated(self) -> list[int]:
        return list(self.out_in_round)

    def next_active(self, seat: int) -> int:
        """The first seat in play after ``seat`` (:func:`jhyap_core.table.next_active`)."""
        return core.next_active(self.seats, self.active, seat)

    def turn_order_from(self, first: int) -> list[int]:
        """The seats in play in turn order from ``first``
        (:func:`jhyap_core.table.turn_order_from`)."""
        return core.turn_order_from(self.seats, self.active, first)
