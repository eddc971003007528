"""How often fuzz plays a beaten call, and a showdown among several lower hands, by seats.

Plays the plans a campaign would make (seed, steering with the campaign's lag, every
table at ``--seats``) on the model alone, and prints per profile and seat count the beaten
calls, the beaten calls where two or more other hands were lower than (or level with) the
caller's, and the tie-breaks among several lowest, each per 100 games; then the same
games unsteered, played as drawn ("plain") and with late and risky calls (call_aim
"beaten", see conformance/fuzz/steer.py).
``python bench/fuzz_reach.py [--games N] [--seats 3,4,6] [PROFILE ...]`` (default: dhumbal
and bga-yaniv, 200 games at 3, 4 and 6 seats).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from conformance.fuzz.campaign import LAG, plan_for  # noqa: E402
from conformance.fuzz.config import FuzzConfig  # noqa: E402
from conformance.fuzz.counters import (  # noqa: E402
    BEATEN_CALLS,
    SEVERAL_LOWEST,
    applicable_counters,
)
from conformance.fuzz.generate import generate, random_spec  # noqa: E402
from conformance.fuzz.plan import Plan  # noqa: E402
from conformance.spec.transcript_profiles import shipped_documents  # noqa: E402
from reference_engine.server import Session  # noqa: E402

SEVERAL_LOWER = "beaten by several lower hands"


def several_lower(plan: Plan) -> int:
    """The beaten calls of the plan where two or more other hands were at or below the
    caller's (the plan replayed on the model: no counter counts them)."""
    session, found = Session(), 0
    for item in plan.requests:
        if item.raw is not None:
            continue
        answer = session.handle({"seq": 0, **item.message})
        for event in answer.get("events") or () if answer.get("ok") else ():
            if event.get("type") != "round_ended" or event.get("caller") is None:
                continue
            if event["outcome"] == "won_call":
                continue
            values, caller = event["hand_values"], event["caller"]
            lower = [v for s, v in enumerate(values) if s != caller and v is not None]
            found += sum(v <= values[caller] for v in lower) >= 2
    return found


def reach(profile: str, seats: int, games: int, seed: int) -> tuple[Counter[str], float]:
    """The counters ``games`` steered games of ``profile`` at ``seats`` reach, and the time."""
    documents = shipped_documents()
    config = FuzzConfig("", "", documents, (profile,), seed=seed, seats=seats)
    applicable = applicable_counters(documents[profile])
    history: list[Counter[str]] = []
    total: Counter[str] = Counter()
    began = time.perf_counter()
    for game in range(games):
        seen: Counter[str] = Counter()
        for counted in history[: max(0, game - LAG + 1)]:
            seen.update(counted)
        plan = plan_for(config, game, tuple(c for c in applicable if not seen[c]))
        history.append(plan.coverage)
        total.update(plan.coverage)
        total[SEVERAL_LOWER] += several_lower(plan)
    return total, time.perf_counter() - began


def by_policy(profile: str, seats: int, games: int, seed: int, aim: str) -> Counter[str]:
    """The counters of ``games`` unsteered games at ``seats``, each with ``call_aim`` aim."""
    documents = shipped_documents()
    total: Counter[str] = Counter()
    for game in range(games):
        spec = replace(random_spec(documents, profile, seed * 100_000 + game, seats), call_aim=aim)
        plan = generate(documents[profile], spec)
        total.update(plan.coverage)
        total[SEVERAL_LOWER] += several_lower(plan)
    return total


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("profiles", nargs="*")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seats", default="3,4,6")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"per 100 games ({args.games} games each, seed {args.seed})")
    print(f"{'profile':<10} {'seats':>5} {'beaten':>8} {'several lower':>14} {'tie-breaks':>11}")
    for profile in args.profiles or ("dhumbal", "bga-yaniv"):
        for seats in (int(s) for s in args.seats.split(",")):
            total, seconds = reach(profile, seats, args.games, args.seed)
            rate = [
                100 * total[c] / args.games for c in (BEATEN_CALLS, SEVERAL_LOWER, SEVERAL_LOWEST)
            ]
            print(
                f"{profile:<10} {seats:>5} {rate[0]:>8.1f} {rate[1]:>14.1f} {rate[2]:>11.1f}"
                f"   ({seconds:.1f} s)"
            )
    print("unsteered, per 100 games: plain -> late and risky calls")
    for profile in args.profiles or ("dhumbal", "bga-yaniv"):
        for seats in (int(s) for s in args.seats.split(",")):
            plain = by_policy(profile, seats, args.games, args.seed, "")
            risky = by_policy(profile, seats, args.games, args.seed, "beaten")
            shown = [
                f"{100 * plain[c] / args.games:.1f} -> {100 * risky[c] / args.games:.1f}"
                for c in (BEATEN_CALLS, SEVERAL_LOWER)
            ]
            print(f"{profile:<10} {seats:>5} beaten {shown[0]:<14} several lower {shown[1]}")


if __name__ == "__main__":
    main()
