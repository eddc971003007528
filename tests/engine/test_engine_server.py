"""`jhyap engine` answers every bad request with an error and keeps serving."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from conformance.spec.profiles import resolved_profile
from tests.conftest import ROOT, deck_from_hands

pytestmark = pytest.mark.e2e

BAD_LINES: list[tuple[bytes, str]] = [
    (b"this is not json", "bad_request"),
    (b"[1, 2, 3]", "bad_request"),
    (b'"a string"', "bad_request"),
    (b'{"cmd": "hello", "protocol": "1.0"}', "bad_request"),  # no seq
    (b'{"seq": "7", "cmd": "state"}', "bad_request"),
    (b'{"seq": 1, "cmd": "shuffle"}', "unknown_command"),
    (b'{"seq": 2}', "bad_request"),  # no cmd: a missing field, not an unknown command
    (b'{"seq": 3, "cmd": "state"}', "wrong_phase"),  # no game yet
    (b'{"seq": 4, "cmd": "hello"}', "bad_request"),
    (b'{"seq": 5, "cmd": "hello", "protocol": "2.0"}', "unsupported_protocol"),
    (b'{"seq": 6, "cmd": "start", "seats": 3}', "bad_request"),
    (b'{"seq": 7, "cmd": "start", "profile": {}, "seats": "three"}', "bad_request"),
    (b'{"seq": 8, "cmd": "start", "profile": {"rules": {}}, "seats": 3}', "invalid_profile"),
    (b"{" + b'"seq": 9, "pad": "' + b"x" * (10 * 1024 * 1024) + b'"}', "bad_request"),
    (b'{"seq": 10, "cmd": "deal", "deck": []}', "wrong_phase"),
    (b"\xff\xfe not utf-8", "bad_request"),
]


class Server:
    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "conformance", "engine"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=ROOT,
        )
        self.seq = 100

    def line(self, raw: bytes) -> dict[str, Any]:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(raw + b"\n")
        self.proc.stdin.flush()
        reply: dict[str, Any] = json.loads(self.proc.stdout.readline())
        return reply

    def ask(self, cmd: str, **args: Any) -> dict[str, Any]:
        self.seq += 1
        reply = self.line(json.dumps({"seq": self.seq, "cmd": cmd, **args}).encode())
        assert reply["seq"] == self.seq
        return reply


def test_bad_requests_then_a_whole_game_on_the_same_process() -> None:
    server = Server()
    try:
        for raw, code in BAD_LINES:
            reply = server.line(raw)
            assert reply["ok"] is False, raw[:60]
            assert reply["error"]["code"] == code, (raw[:60], reply)
        profile = resolved_profile("dhumbal", {})
        assert server.ask("hello", protocol="1.0")["protocol"] == "1.2"
        assert server.ask("start", profile=profile, options=profile["option_values"], seats=2)["ok"]
        deck = deck_from_hands(["Ac As 2c 2d 3c", "Qc Kc Kd Kh Ks"], "9h")
        dealt = server.ask("deal", deck=deck)["events"]
        assert dealt[1]["hands"] == [["Ac", "As", "2c", "2d", "3c"], ["Qc", "Kc", "Kd", "Kh", "Ks"]]
        # Bad requests in mid-game are refused and change nothing.
        before = server.ask("state")["state"]
        cases: list[tuple[dict[str, Any], str | None]] = [
            ({"type": "call"}, None),
            ({"type": "fly"}, "bad_request"),
            ({"type": "pick", "from": "deck"}, "wrong_phase"),
            ({"type": "throw", "cards": ["Zz"]}, "invalid_card"),
            ({"type": "throw", "cards": ["Kc"]}, "card_not_in_hand"),
        ]
        for action, wanted in cases:
            if wanted is None:
                continue
            reply = server.ask("act", seat=0, action=action)
            assert reply["error"]["code"] == wanted
        assert (
            server.ask("act", seat=1, action={"type": "call"})["error"]["code"] == "not_your_turn"
        )
        assert server.ask("state")["state"] == before
        ended = server.ask("act", seat=0, action={"type": "call"})["events"]
        assert ended[1] == {
            "type": "round_ended",
            "round": 1,
            "outcome": "won_call",
            "caller": 0,
            "winner": 0,
            "hand_values": [9, 64],
            "deltas": [0, 64],
            "scores": [0, 64],
            "eliminated": [],
        }
        assert server.ask("stop") == {"seq": server.seq, "ok": True}
        assert server.proc.wait(10) == 0
        assert server.proc.stdout is not None and server.proc.stdout.read() == b""
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
