"""The JSON-lines protocol server: the kit's protocol core over :class:`Game` (docs/protocol.md).

Engine-side protocol code lives in one place, :mod:`jhyap_kit.protocol` (lines, bounded
JSON, ``seq``, the first steps of the order of checks, ``hello``, ``stop``, error
responses); this module only adapts the reference :class:`Game`, which tracks the whole
table itself, to the kit's :class:`~jhyap_kit.protocol.Backend`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import IO, Any

from jhyap_kit import moves
from jhyap_kit.protocol import (
    COMMANDS,
    MAX_LINE_BYTES,
    MAX_SEQ,
    PROTOCOL_VERSION,
    DealLayout,
    EngineInfo,
    Event,
    decode_request,
    kind_name,
    request_seq,
)
from jhyap_kit.protocol import Session as KitSession
from jhyap_kit.protocol import serve as kit_serve

from . import bounded_json
from .actions import Action, Call, PickDeck, PickOffer, ThrowCards, Timeout
from .cards import parse_card, parse_cards
from .errors import ErrorCode, JhyapError
from .game import Game

ENGINE_VERSION = "0.1.0"
ENGINE = EngineInfo("jhyap-reference", ENGINE_VERSION, "python")

__all__ = [
    "COMMANDS",
    "ENGINE",
    "ENGINE_VERSION",
    "MAX_LINE_BYTES",
    "MAX_SEQ",
    "PROTOCOL_VERSION",
    "GameBackend",
    "Session",
    "bounded_json",
    "decode_request",
    "kind_name",
    "main",
    "request_seq",
    "serve",
]


def _action(action: moves.Action) -> Action:
    """The reference engine's action for the kit's (card names already checked)."""
    match action:
        case moves.Call():
            return Call()
        case moves.Throw(cards):
            return ThrowCards(tuple(parse_cards(list(cards))))
        case moves.Pick(moves.Source.OFFER, card):
            return PickOffer(parse_card(card))
        case moves.Pick():
            return PickDeck()
        case moves.Timeout():
            return Timeout()
    raise JhyapError(f"unknown action {action!r}", ErrorCode.BAD_REQUEST)


class GameBackend:
    """The kit's Backend over one reference :class:`Game` at a time."""

    def __init__(self) -> None:
        self.game: Game | None = None

    def _game(self) -> Game:
        assert self.game is not None  # the session asks only once a start succeeded
        return self.game

    def start(self, profile: Mapping[str, Any], options: Mapping[str, Any], seats: int) -> None:
        self.game = Game(profile, seats, options)

    def deal(self, deck: Sequence[str], layout: DealLayout | None) -> list[Event]:
        # The reference engine deals ``deck`` by the profile's procedure, which is the
        # layout a harness sends (protocol 1.1) along with it.
        return self._game().deal(parse_cards(list(deck)))

    def act(self, seat: int, action: moves.Action) -> list[Event]:
        return self._game().act(seat, _action(action))

    def reshuffle(self, order: Sequence[str]) -> list[Event]:
        return self._game().reshuffle(parse_cards(list(order)))

    def set_option(self, name: str, value: Any) -> list[Event]:
        return self._game().set_option(name, value)

    def end_game(self) -> list[Event]:
        return self._game().end_game()

    def state(self) -> dict[str, Any]:
        return self._game().state()

    def legal(self) -> dict[str, Any] | None:
        legal = self._game().legal_actions()
        return legal.to_json() if legal else None


class Session(KitSession):
    """One reference engine process: the handshake and at most one game at a time."""

    def __init__(self) -> None:
        self.games = GameBackend()
        super().__init__(self.games, ENGINE)

    @property
    def game(self) -> Game | None:
        return self.games.game


def serve(stdin: IO[bytes] | None = None, stdout: IO[str] | None = None) -> int:
    """Answer requests until 'stop' or end of input; stdout carries responses only."""
    # Looked up on each line, so that a test may replace this module's decode_request.
    return kit_serve(
        Session(), stdin, stdout, quiet_prints=False, decode=lambda line: decode_request(line)
    )


def main() -> int:
    try:
        return serve()
    except (BrokenPipeError, KeyboardInterrupt):
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
