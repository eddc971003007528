"""Which coverage counters the fuzz steering reaches, per profile, without any engine.

Plays the plans a campaign would make (seed, steering with the campaign's lag) on the model
alone, and prints per profile the game at which each applicable counter was first reached
and the generation time. ``python bench/fuzz_coverage.py [--games N] [PROFILE ...]``.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from conformance.fuzz.campaign import LAG, plan_for
from conformance.fuzz.config import FuzzConfig
from conformance.fuzz.counters import applicable_counters
from conformance.spec.transcript_profiles import shipped_documents


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("profiles", nargs="*")
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    documents = shipped_documents()
    for profile in args.profiles or sorted(documents):
        config = FuzzConfig("", "", documents, (profile,), seed=args.seed)
        applicable = applicable_counters(documents[profile])
        coverage: Counter[str] = Counter()
        history: list[Counter[str]] = []
        first: dict[str, int] = {}
        began = time.perf_counter()
        for game in range(args.games):
            seen: Counter[str] = Counter()
            for counted in history[: max(0, game - LAG + 1)]:
                seen.update(counted)
            missing = tuple(c for c in applicable if not seen[c])
            plan = plan_for(config, game, missing)
            history.append(plan.coverage)
            coverage.update(plan.coverage)
            for name in plan.coverage:
                first.setdefault(name, game)
        seconds = time.perf_counter() - began
        print(f"{profile}: {args.games} games in {seconds:.1f} s")
        for name in applicable:
            at = first.get(name)
            print(f"  {name:40} {coverage[name]:6}  first at game {at if at is not None else '-'}")


if __name__ == "__main__":
    main()
