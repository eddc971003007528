"""Random-policy play through the reference engine: turns and rounds per second.

Run: python bench/engine.py [--games N] [--repeats R]

Prints, per profile, the median over R runs of turns/s and rounds/s through the
Python API, then the same through `jhyap engine` over the JSON-lines protocol; and what
opening a table costs (``Game(profile, seats)``), from the profile mapping of the last table
and from an equal copy of it, as a protocol ``start`` brings.
A turn is one call or one throw-and-pick; the policy's own work is included.

Then the echo bound, in the same run: round trips/s over bare pipes to an engine
that answers at once (bench/echo_engine.py), divided by the requests a turn takes
over the protocol (state, legal and act for each action, as counted in the run),
is the most turns/s any engine could reach here; and the share of it the reference
engine reaches.

The echo bound leaves out what the client itself spends on each request (encoding it,
decoding a state of a kilobyte, choosing a move), so no engine could reach it when the
pipes are fast. The same-client bound does not: each protocol run is replayed, same
requests and same answers, against bench/canned_engine.py, which answers from a file of
the reference's answers; the share is the replay's time over the real run's, the part of
the real run the engine did not cost.

Both bounds move with the machine's state. When the CPUs are idle, each round trip waits
for a CPU to wake (about 50 us here: some 20,000 echo round trips/s); when other work
keeps them busy it does not (about 10 us: 60,000 to 100,000/s). The engine's own cost per
request (about 17 us of CPython, a third of it JSON) stays the same, so its share is higher
on an idle machine than on a busy one: compare shares from one run, and say which it was.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness import bare_round_trips  # noqa: E402  (bench/harness.py)

from conformance.spec.profiles import resolved_profile  # noqa: E402
from reference_engine import Game  # noqa: E402
from reference_engine.randomplay import play_random_game  # noqa: E402

PROFILES = ("dashain", "everestbuzz", "dhumbal")


def api_run(profile: dict[str, Any], games: int, seed: int) -> tuple[float, int, int]:
    rng = random.Random(seed)
    turns = rounds = 0
    start = time.perf_counter()
    for _ in range(games):
        seats = rng.randint(profile["rules"]["seats"]["min"], profile["rules"]["seats"]["max"])
        game, played = play_random_game(profile, seats, rng, max_rounds=10)
        turns += played
        rounds += game.round
    return time.perf_counter() - start, turns, rounds


class Pipe:
    """A client as lean as the echo bound's (bytes written straight to the pipe, answers
    read from a buffered pipe), so that the time it adds is not counted against the engine."""

    def __init__(self, command: list[str] | None = None, record: bool = False) -> None:
        self.proc = subprocess.Popen(
            command or [sys.executable, "-m", "reference_engine.server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=ROOT,
        )
        assert self.proc.stdin and self.proc.stdout
        self._stdin = self.proc.stdin.fileno()
        self._readline = self.proc.stdout.readline
        self.seq = 0
        self.answers: list[bytes] | None = [] if record else None

    def ask(self, cmd: str, **args: Any) -> dict[str, Any]:
        self.seq += 1
        os.write(self._stdin, _encode({"seq": self.seq, "cmd": cmd, **args}) + b"\n")
        line = self._readline()
        if self.answers is not None:
            self.answers.append(line)
        reply: dict[str, Any] = json.loads(line)
        assert reply["ok"], reply
        return reply

    def close(self) -> None:
        self.ask("stop")
        self.proc.wait(5)


def open_cost(profile: dict[str, Any], opens: int, fresh: bool) -> float:
    """Microseconds a table takes to open, the mean of ``opens``; ``fresh``: each from its
    own copy of ``profile`` (made outside the timing), as a start read from a pipe is."""
    seats = profile["rules"]["seats"]["min"]
    copies = [json.loads(json.dumps(profile)) for _ in range(opens)] if fresh else []
    began = time.perf_counter()
    for n in range(opens):
        Game(copies[n] if fresh else profile, seats)
    return (time.perf_counter() - began) / opens * 1e6


def _encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode()


def played_and_canned(
    profile: dict[str, Any], games: int, seed: int
) -> tuple[tuple[float, int, int, int], float]:
    """The games played with the reference engine (as protocol_play gives them), and the
    seconds of the same games answered from a file of its answers: what the client and
    the pipes cost with no engine work at all."""
    real = Pipe(record=True)
    played = protocol_play(profile, games, seed, real)
    assert real.answers is not None
    with tempfile.NamedTemporaryFile("wb", suffix=".jsonl", delete=False) as handle:
        handle.write(b"".join(real.answers))
    try:
        canned = Pipe([sys.executable, str(ROOT / "bench" / "canned_engine.py"), handle.name])
        replayed = protocol_play(profile, games, seed, canned)[0]
    finally:
        os.unlink(handle.name)
    return played, replayed


def echo_round_trips(count: int) -> float:
    """Round trips per second to bench/echo_engine.py over bare pipes."""
    return 1 / bare_round_trips(count)


def protocol_play(
    profile: dict[str, Any], games: int, seed: int, pipe: Pipe | None = None
) -> tuple[float, int, int, int]:
    """(seconds, turns, rounds, requests) of random games over the protocol, played with
    the reference engine unless ``pipe`` is given."""
    rng = random.Random(seed)
    pipe = pipe or Pipe()
    pipe.ask("hello", protocol="1.0")
    turns = rounds = 0
    first_seq = pipe.seq
    start = time.perf_counter()
    for _ in range(games):
        seats = rng.randint(profile["rules"]["seats"]["min"], profile["rules"]["seats"]["max"])
        pipe.ask("start", profile=profile, options=profile["option_values"], seats=seats)
        while True:
            state = pipe.ask("state")["state"]
            phase = state["phase"]
            if phase == "game_over":
                break
            if phase in ("awaiting_deal", "round_over"):
                if state["round"] >= 10 and profile["rules"]["game_end"]["kind"] == "host_ends":
                    pipe.ask("end_game")
                    break
                deck = [f"{r}{s}" for r in "A23456789TJQK" for s in "cdhs"]
                rng.shuffle(deck)
                pipe.ask("deal", deck=deck)
                rounds += 1
                continue
            if phase == "awaiting_reshuffle":
                pile = list(state["out_of_play"])
                rng.shuffle(pile)
                pipe.ask("reshuffle", order=pile)
                continue
            legal = pipe.ask("legal")["legal"]
            seat = legal["seat"]
            if legal["call"] and rng.random() < 0.5:
                pipe.ask("act", seat=seat, action={"type": "call"})
                turns += 1
            elif legal["throws"]:
                cards = max(rng.sample(legal["throws"], min(3, len(legal["throws"]))), key=len)
                pipe.ask("act", seat=seat, action={"type": "throw", "cards": cards})
            else:
                pipe.ask("act", seat=seat, action=rng.choice(legal["picks"]) | {"type": "pick"})
                turns += 1
    elapsed = time.perf_counter() - start
    requests = pipe.seq - first_seq
    pipe.close()
    return elapsed, turns, rounds, requests


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per run (API)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--round-trips", type=int, default=5000, help="echo round trips a run")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}; median of {args.repeats} runs")
    print(f"{'profile':<12} {'path':<9} {'games':>6} {'turns':>8} {'turns/s':>10} {'rounds/s':>9}")
    protocol: dict[str, tuple[float, float]] = {}  # turns/s, requests a turn
    # echo round trips/s, share of the echo bound, share of the same-client bound
    echo_rates: dict[str, tuple[float, float, float]] = {}
    for name in PROFILES:
        profile = resolved_profile(name, {})
        for path, games in (("api", args.games), ("protocol", max(1, args.games // 10))):
            if path == "protocol":
                # Each protocol run is paired with an echo run just before it, so that
                # both see the same load on a shared machine.
                echoes, played, canned = [], [], []
                for seed in range(args.repeats):
                    echoes.append(echo_round_trips(args.round_trips))
                    game, replayed = played_and_canned(profile, games, seed)
                    played.append(game)
                    canned.append(replayed)
                samples = [(e, t, r) for e, t, r, _ in played]
                per_turn = sum(q for *_, q in played) / sum(t for _, t, _, _ in played)
                shares = [
                    (t / e) / (echo / per_turn)
                    for (e, t, _), echo in zip(samples, echoes, strict=True)
                ]
                replays = [c / e for (e, _, _), c in zip(samples, canned, strict=True)]
                echo_rates[name] = (
                    statistics.median(echoes),
                    statistics.median(shares),
                    statistics.median(replays),
                )
            else:
                samples = [api_run(profile, games, seed) for seed in range(args.repeats)]
            tps = statistics.median(t / e for e, t, _ in samples)
            rps = statistics.median(r / e for e, _, r in samples)
            turns = samples[0][1]
            print(f"{name:<12} {path:<9} {games:>6} {turns:>8} {tps:>10,.0f} {rps:>9,.0f}")
            if path == "protocol":
                protocol[name] = (tps, per_turn)
    print("echo bound: echo round trips/s over bare pipes / requests a turn takes (medians)")
    print("same-client bound: the same games, the same client, answers replayed from a file")
    print(
        f"{'profile':<12} {'echo rt/s':>10} {'req/turn':>9} {'bound':>7} {'protocol':>9} "
        f"{'share':>6} {'same-client share':>18}"
    )
    for name, (tps, per_turn) in protocol.items():
        echo, share, same_client = echo_rates[name]
        print(
            f"{name:<12} {echo:>10,.0f} {per_turn:>9.2f} {echo / per_turn:>7,.0f} {tps:>9,.0f} "
            f"{share:>6.0%} {same_client:>18.0%}"
        )
    print("opening a table: Game(profile, seats), microseconds (median of the runs' means)")
    print(f"{'profile':<12} {'same mapping':>13} {'equal copy':>11}")
    for name in PROFILES:
        profile = resolved_profile(name, {})
        same = statistics.median(open_cost(profile, 500, False) for _ in range(args.repeats))
        copy = statistics.median(open_cost(profile, 500, True) for _ in range(args.repeats))
        print(f"{name:<12} {same:>13,.0f} {copy:>11,.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
