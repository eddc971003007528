"""Games per second of simulated play, for each shipped profile and policy.

Run: python bench/simulate.py [--games N] [--repeats R]

Plays N seeded games per profile and policy through the Python API (as
`jhyap simulate` does, in one process) and prints the median over R runs of games
per second and turns per second, and the heuristic's cost against random play.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance.simulation.play import SimulationSpec, default_seats, play_games  # noqa: E402
from conformance.spec.data import shipped_profile_ids  # noqa: E402
from conformance.spec.profiles import load_profile  # noqa: E402

POLICIES = ("random", "heuristic")


def measure(spec: SimulationSpec, games: int, seed: int) -> tuple[float, int]:
    start = time.perf_counter()
    records = play_games(spec, games, seed)
    return time.perf_counter() - start, sum(r.turns for r in records)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-rounds", type=int, default=10)
    args = parser.parse_args()
    print(
        f"{args.games} games per run, median of {args.repeats} runs, "
        f"at most {args.max_rounds} hands a game\n"
    )
    print(f"{'profile':<20}{'policy':<11}{'games/s':>10}{'turns/s':>11}")
    for pid in shipped_profile_ids():
        document = load_profile(pid)
        rates: dict[str, float] = {}
        for policy in POLICIES:
            spec = SimulationSpec(document, default_seats(document), (policy,), {}, args.max_rounds)
            runs = [measure(spec, args.games, seed) for seed in range(args.repeats)]
            games_per_s = statistics.median(args.games / t for t, _ in runs)
            turns_per_s = statistics.median(n / t for t, n in runs)
            rates[policy] = turns_per_s
            print(f"{pid:<20}{policy:<11}{games_per_s:>10.1f}{turns_per_s:>11.0f}")
        print(
            f"{'':<20}heuristic turns cost {rates['random'] / rates['heuristic']:.2f}x "
            "a random turn"
        )


if __name__ == "__main__":
    main()
