"""Differential fuzzing's speed, and how fast it catches each broken engine.

Run: python bench/fuzz.py [--games N] [--jobs J] [--mutants NAME,...] [--limit S]

1. The reference engine fuzzed against itself (both over the protocol, pipelined): games
   per second and requests per second, per profile and over all profiles, with --jobs 1
   and --jobs J, in the same run.
2. Every broken engine in tests/mutants/: the seconds until the first divergence, the
   seconds to shrink it, the steps of the written transcript, and whether that transcript
   fails against the mutant and passes against the reference (replayed like `jhyap run`).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance.commands.run import default_engine, default_engine_env  # noqa: E402
from conformance.fuzz.campaign import fuzz  # noqa: E402
from conformance.fuzz.config import FuzzConfig  # noqa: E402
from conformance.spec.transcript import shipped_documents  # noqa: E402
from tests.mutants.engine import MUTANTS  # noqa: E402

MUTANT_ENGINE = ROOT / "tests" / "mutants" / "engine.py"


def config(engine: str, profiles: tuple[str, ...], **changes: object) -> FuzzConfig:
    env = default_engine_env()
    base = FuzzConfig(
        engine=engine,
        reference=default_engine(),
        documents=shipped_documents(),
        profiles=profiles,
        engine_env=env,
        reference_env=env,
    )
    from dataclasses import replace

    return replace(base, **changes)  # type: ignore[arg-type]


def self_fuzz(games: int, jobs: int) -> None:
    profiles = tuple(sorted(shipped_documents()))
    print(f"reference against itself, {games} games per row, seed 0")
    print(
        f"{'profiles':<28} {'jobs':>4} {'games':>6} {'requests':>9} {'s':>7} "
        f"{'games/s':>8} {'requests/s':>11}"
    )
    rows = [(p,) for p in profiles] + [profiles]
    for chosen in rows:
        for j in sorted({1, jobs}):
            result = fuzz(config(default_engine(), chosen, games=games, jobs=j))
            assert result.finding is None, result.finding.found.signature
            print(
                f"{','.join(chosen):<28} {j:>4} {result.games:>6} {result.requests:>9,} "
                f"{result.seconds:>7.1f} {result.games_per_second:>8.1f} "
                f"{result.requests_per_second:>11,.0f}"
            )


def mutants(names: list[str], limit: float) -> None:
    profiles = tuple(sorted(shipped_documents()))
    print(f"broken engines: time to find (limit {limit:g} s) and to shrink, seed 0")
    print(
        f"{'mutant':<40} {'find s':>7} {'shrink s':>8} {'games':>6} {'steps':>5} "
        f"{'verified':>8}  signature"
    )
    with tempfile.TemporaryDirectory() as out:
        for name in names:
            engine = f"{shlex.quote(sys.executable)} {shlex.quote(str(MUTANT_ENGINE))} {name}"
            result = fuzz(config(engine, profiles, seconds=limit, out=Path(out) / name))
            finding = result.finding
            if finding is None:
                print(
                    f"{name:<40} {'-':>7} {'-':>8} {result.games:>6} {'-':>5} {'-':>8}  NOT FOUND"
                )
                continue
            steps = len(finding.data.get("steps") or [])
            print(
                f"{name:<40} {finding.find_seconds:>7.1f} {finding.shrink_seconds:>8.1f} "
                f"{finding.game + 1:>6} {steps:>5} {finding.verified_ok!s:>8}  "
                f"{finding.found.signature}"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=150, help="games per self-fuzz row")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--mutants", default="", help="comma-separated (default: all)")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per mutant")
    parser.add_argument("--skip-self", action="store_true")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}")
    if not args.skip_self:
        self_fuzz(args.games, args.jobs)
    names = [n for n in args.mutants.split(",") if n] or sorted(MUTANTS)
    mutants(names, args.limit)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
