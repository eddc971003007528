"""A rules server for ``jhyap_kit.hooks`` in Python: the reference engine's rule functions
answering hook lines (docs/hook-protocol.md), every optional hook included.

Like any rules server it keeps its own game: the hands, the turns taken, the seats in play,
the scores. Run as a program it serves standard input and output; the fast tests call
:meth:`HookServer.answer` in process. For the tests of the kit's child handling,
``--die-on HOOK`` exits with status 3 when asked ``HOOK``, ``--garbage-on HOOK`` answers it
with a line that is not JSON, ``--stubborn`` ignores SIGTERM and the end of its input (only
SIGKILL ends it), and ``$FAKE_ENGINE_PIDS`` (a folder) gets the server's pid.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from jhyap_core.cards import parse_cards
from jhyap_core.table import Throw as PlacedThrow
from jhyap_core.vocabulary import ErrorCode, ThrowKind
from jhyap_kit import canonical
from reference_engine import calling, game_end, picking, scoring, throws
from reference_engine.rules import Rules
from tests.kit_engines.object_api import ObjectApiEngine

DESCRIPTION: dict[str, Any] = {
    "name": "hook-object-api",
    "version": "1.0",
    "language": "python",
    "rules": dict.fromkeys(ObjectApiEngine.RULES, "any"),
    "hooks": ["laid", "pickable_positions", "legal_throws", "settlement"],
}


class HookServer:
    """The reference rules behind the hook protocol, one request at a time."""

    def __init__(self) -> None:
        self.model: Rules | None = None
        self.seats = 0
        self.hands: list[list[str]] = []
        self.active: list[int] = []
        self.scores: list[int] = []
        self.turns_taken = 0

    def answer(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """The answer line's object to the request line's object."""
        hook = request["hook"]
        result = getattr(self, f"_{hook}")(**{k: v for k, v in request.items() if k != "hook"})
        return {"result": result}

    @property
    def rules(self) -> Rules:
        assert self.model is not None
        return self.model

    def _describe(self, version: int) -> dict[str, Any]:
        return DESCRIPTION

    def _begin_game(self, rules: Mapping[str, Any], seats: int) -> None:
        self.model = Rules.from_profile({"rules": rules})
        self.seats, self.scores = seats, [0] * seats

    def _begin_hand(self, deal: Mapping[str, Any], rules: Mapping[str, Any]) -> None:
        self.model = Rules.from_profile({"rules": rules})  # set_option applies now
        self.hands = [list(hand) for hand in deal["hands"]]
        self.active = sorted(deal["turn_order"])
        self.turns_taken = 0

    def _hand_value(self, cards: Sequence[str]) -> int:
        return self.rules.cards.hand_value(parse_cards(list(cards)))

    def _refusal(self, seat: int, action: Mapping[str, Any]) -> dict[str, str] | None:
        if action["type"] == "call":
            value = self._hand_value(self.hands[seat])
            code = calling.call_refusal(value, self.turns_taken, len(self.active), self.rules)
            return None if code is None else {"code": code.value, "message": "no call"}
        if (
            action["type"] == "throw"
            and throws.classify(parse_cards(action["cards"]), self.rules) is None
        ):
            return {"code": ErrorCode.ILLEGAL_THROW.value, "message": "not a single, set or run"}
        return None

    def _on_call(self, seat: int) -> None:
        return None

    def _on_throw(self, seat: int, cards: Sequence[str]) -> str:
        for card in cards:
            self.hands[seat].remove(card)
        kind = throws.classify(parse_cards(list(cards)), self.rules)
        return (kind or ThrowKind.SINGLE).value

    def _laid(self, cards: Sequence[str], kind: str) -> list[str]:
        return [c.name for c in throws.laid(parse_cards(list(cards)), ThrowKind(kind), self.rules)]

    def _on_pick(self, seat: int, card: str, source: str) -> None:
        self.hands[seat].append(card)
        self.turns_taken += 1

    def _on_reshuffle(self, stock: Sequence[str]) -> None:
        return None

    def _pickable_positions(self, offer: Sequence[str], kind: str) -> list[int]:
        placed = PlacedThrow(tuple(parse_cards(list(offer))), ThrowKind(kind))
        return list(picking.pickable_positions(placed, self.rules))

    def _legal_throws(self, seat: int, hand: Sequence[str]) -> list[list[str]]:
        ordered = canonical(hand)
        found = {
            combo: None
            for size in range(1, len(ordered) + 1)
            for combo in itertools.combinations(ordered, size)
            if throws.classify(parse_cards(list(combo)), self.rules) is not None
        }
        return [list(throw) for throw in found]

    def _score_round(self, caller: int | None, hand_values: Sequence[int | None]) -> dict[str, Any]:
        values = {s: v for s, v in enumerate(hand_values) if v is not None}
        winner: int | None = None
        if caller is not None:
            after = sorted(self.active, key=lambda s: (s - caller - 1) % self.seats)
            shown = scoring.showdown(values, after, caller, self.rules)
            winner, deltas = shown.winner, dict(shown.deltas)
        else:
            deltas = scoring.deck_ran_out(values, self.rules)
        for seat, delta in deltas.items():
            self.scores[seat] += delta
            if delta:
                added = scoring.hand_added(seat, values, caller, winner, self.rules)
                cut = scoring.cut_rules(added, self.rules)
                self.scores[seat] = scoring.cut_score(self.scores[seat], cut)
        out = game_end.eliminated_after(self.scores, self.active, self.rules)
        per_seat = [deltas.get(s, 0) for s in range(self.seats)]
        return {
            "winner": winner,
            "deltas": per_seat,
            "scores": list(self.scores),
            "eliminated": out,
        }

    def _settlement(self, scores: Sequence[int]) -> list[dict[str, object]] | None:
        rate = self.rules.money.dollars_per_point
        if rate is None:
            return None
        return [p.to_json() for p in game_end.settlement(scores, rate, self.rules.money.settlement)]


def main(argv: Sequence[str]) -> int:
    die_on = argv[argv.index("--die-on") + 1] if "--die-on" in argv else None
    garbage_on = argv[argv.index("--garbage-on") + 1] if "--garbage-on" in argv else None
    if folder := os.environ.get("FAKE_ENGINE_PIDS"):
        (Path(folder) / f"hook-server-{os.getpid()}").write_text(str(os.getpid()))
    stubborn = "--stubborn" in argv
    if stubborn:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    server = HookServer()
    for line in sys.stdin:
        request = json.loads(line)
        if request["hook"] == die_on:
            return 3
        if request["hook"] == garbage_on:
            print("this is no answer", flush=True)
            continue
        print(json.dumps(server.answer(request)), flush=True)
    while stubborn:
        time.sleep(60)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
