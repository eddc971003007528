"""The JSON-lines protocol server: jhyap_core's serving over :class:`Game` (docs/protocol.md).

Engine-side protocol code lives in one place, :mod:`jhyap_core.serving` (lines, bounded
JSON, ``seq``, the first steps of the order of checks, ``hello``, ``stop``, error
responses); this module only adapts the reference :class:`Game`, which tracks the whole
table itself, to its :class:`~jhyap_core.serving.Backend`.
"""

from __future__ import annotations

import marshal
import re
from collections.abc import Mapping, Sequence
from typing import IO, Any

from jhyap_core import bounded_json, messages
from jhyap_core.cards import parse_card, parse_cards
from jhyap_core.messages import DealLayout, EngineInfo
from jhyap_core.serving import (
    MAX_LINE_BYTES,
    MAX_SEQ,
    Event,
    decode_request,
    kind_name,
    request_seq,
)
from jhyap_core.serving import Session as CoreSession
from jhyap_core.serving import serve as core_serve
from jhyap_core.vocabulary import COMMANDS, PROTOCOL_VERSION, ErrorCode, JhyapError, PickSource

from .actions import Action, Call, PickDeck, PickOffer, SlapDown, ThrowCards, Timeout
from .game import Game
from .kept import Kept

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
    "decode_kept",
    "decode_request",
    "kind_name",
    "main",
    "request_seq",
    "serve",
]


def _action(action: messages.Action) -> Action:
    """The reference engine's action for a served one (card names already checked)."""
    match action:
        case messages.Call():
            return Call()
        case messages.Throw(cards):
            return ThrowCards(tuple(parse_cards(list(cards))))
        case messages.Pick(PickSource.OFFER, card):
            return PickOffer(parse_card(card))
        case messages.Pick():
            return PickDeck()
        case messages.Timeout():
            return Timeout()
        case messages.Slapdown(card):
            return SlapDown(parse_card(card))
    raise JhyapError(f"unknown action {action!r}", ErrorCode.BAD_REQUEST)


class GameBackend:
    """A serving Backend over one reference :class:`Game` at a time."""

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

    def act(self, seat: int, action: messages.Action) -> list[Event]:
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


class Session(CoreSession):
    """One reference engine process: the handshake and at most one game at a time."""

    def __init__(self) -> None:
        self.games = GameBackend()
        super().__init__(self.games, ENGINE)

    @property
    def game(self) -> Game | None:
        return self.games.game


# Long request lines decoded before, by the line after its seq: a harness sends the same
# start (its profile, tens of kilobytes) for every case of a ruleset. Kept as marshal's
# bytes, which read back faster than the JSON and give each request a value of its own: no
# game can change what another game is given.
_KEPT_LINES: Kept[bytes] = Kept(16)
_LONG_LINE = 2048
_SEQ_FIRST = re.compile(rb'\{"seq":(0|[1-9][0-9]{0,15}),')


def decode_kept(line: bytes) -> Any:
    """:func:`decode_request` of ``line``; a long line whose rest after ``{"seq":N,`` was
    decoded before is read back from that decoding, with seq N (equal to what decoding it
    gives, and independent of any value given before)."""
    if len(line) < _LONG_LINE or (first := _SEQ_FIRST.match(line)) is None:
        return decode_request(line)
    rest = line[first.end() :]
    if b'"seq"' in rest or b"\\u" in rest:
        # A second seq (written plainly or with escapes) would win over the first: not kept.
        return decode_request(line)
    kept = _KEPT_LINES.get(rest)
    if kept is not None:
        request = marshal.loads(kept)
        request["seq"] = int(first.group(1))
        return request
    request = decode_request(line)
    if request.__class__ is dict:  # refusals raise; a decoded line is JSON's plain data
        _KEPT_LINES.put(rest, marshal.dumps(request))
    return request


def serve(stdin: IO[bytes] | None = None, stdout: IO[str] | None = None) -> int:
    """Answer requests until 'stop' or end of input; stdout carries responses only."""
    # Looked up on each line, so that a test may replace this module's decode_request.
    return core_serve(
        Session(), stdin, stdout, quiet_prints=False, decode=lambda line: decode_kept(line)
    )


def main() -> int:
    try:
        return serve()
    except (BrokenPipeError, KeyboardInterrupt):
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
