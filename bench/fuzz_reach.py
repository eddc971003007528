"""What fuzz reaches: beaten calls and showdowns among several lower hands by seats, and
games past a known divergence.

Plays the plans a campaign would make (seed, steering with the campaign's lag, every
table at ``--seats``) on the model alone, and prints per profile and seat count the beaten
calls, the beaten calls where two or more other hands were lower than (or level with) the
caller's, and the tie-breaks among several lowest, each per 100 games, with ``LOW`` where
the coverage line would warn (fewer than 10 beaten calls or 1 tie-break per 100 games;
at two seats no showdown has several other hands: ``n/a``). ``--policy`` adds the same
games unsteered, played as drawn ("plain") and with late and risky calls (call_aim
"beaten", see conformance/fuzz/steer.py).

``--carry [BUG ...]`` fuzzes (in process, tests/mutants/planted.py) an engine with each
planted bug (default: every one) under its profile, first with each game ending at its
first divergence, then with the signatures met listed as known divergences and games
carried on past them (conformance/fuzz/carry.py): games that reached their end and games
stopped, before and after, the classes met (one bug should be one class) and the plans
made again to steer away.

``python bench/fuzz_reach.py [--games N] [--seats 2,4,6] [--policy] [PROFILE ...]``
(default: every shipped profile, 60 games at 2, 4 and 6 seats);
``python bench/fuzz_reach.py --carry [BUG ...] [--games N]``.
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
    low_counters,
)
from conformance.fuzz.generate import generate, random_spec  # noqa: E402
from conformance.fuzz.local import LocalRun, fuzz_locally  # noqa: E402
from conformance.fuzz.plan import Plan  # noqa: E402
from conformance.fuzz.writer import KnownDivergence  # noqa: E402
from conformance.spec.transcript_profiles import shipped_documents  # noqa: E402
from reference_engine.server import Session  # noqa: E402
from tests.mutants.planted import PLANTED, planted  # noqa: E402

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


def carried(bug: str, games: int, seed: int) -> tuple[LocalRun, LocalRun]:
    """``games`` games of the bug's profile, each ending at its first divergence, then
    carried on past the divergences met (listed as known)."""
    documents = shipped_documents()
    profile = PLANTED[bug].profile
    config = FuzzConfig("", "", documents, (profile,), games=games, seed=seed)
    first = fuzz_locally(replace(config, carry_on=False), lambda: planted(bug))
    known = tuple(KnownDivergence(s, "listed") for s in sorted(first.signatures))
    return first, fuzz_locally(replace(config, known=known), lambda: planted(bug))


def print_carried(bugs: list[str], games: int, seed: int) -> None:
    print(f"planted bug, its signatures listed as known ({games} games each, seed {seed}):")
    print("  games ended/stopped, before (each ends at its first divergence) -> after")
    for bug in bugs:
        began = time.perf_counter()
        first, then = carried(bug, games, seed)
        stops: Counter[str] = Counter(g.stopped.signature for g in then.games if g.stopped)
        print(
            f"{bug} ({PLANTED[bug].profile}): {first.ended}/{first.stopped} -> "
            f"{then.ended}/{then.stopped}, {len(first.signatures)} class(es) -> "
            f"{len(then.signatures)}, {sum(g.detours for g in then.games)} plans made again "
            f"({time.perf_counter() - began:.1f} s)"
        )
        for signature, count in sorted(then.signatures.items()):
            print(f"    {count:>3} games: {signature}")
        for signature, count in stops.most_common(3):
            print(f"    stopped at ({count}): {signature}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("profiles", nargs="*")
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--seats", default="2,4,6")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--policy", action="store_true", help="also the unsteered policies")
    parser.add_argument("--carry", nargs="*", metavar="BUG", help="planted bugs (default: all)")
    args = parser.parse_args()
    if args.carry is not None:
        print_carried(args.carry or sorted(PLANTED), args.games, args.seed)
        return
    documents = shipped_documents()
    profiles = args.profiles or sorted(documents)
    print(f"per 100 games ({args.games} games each, seed {args.seed}; *: the profile's most seats)")
    print(f"{'profile':<20} {'seats':>5} {'beaten':>8} {'several lower':>14} {'tie-breaks':>11}")
    for profile in profiles:
        for seats in (int(s) for s in args.seats.split(",")):
            # A table of more seats than the profile allows is played at its most.
            most = documents[profile]["rules"]["seats"]["max"]
            shown = f"{min(seats, most)}{'*' if seats > most else ''}"
            seats = min(seats, most)
            total, seconds = reach(profile, seats, args.games, args.seed)
            rate = [
                100 * total[c] / args.games for c in (BEATEN_CALLS, SEVERAL_LOWER, SEVERAL_LOWEST)
            ]
            several = [f"{r:.1f}" if seats > 2 else "n/a" for r in rate[1:]]
            low = low_counters(total, args.games, applicable_counters(documents[profile]))
            low = [w for w in low if seats > 2 or not w.startswith("tie-breaks")]
            print(
                f"{profile:<20} {shown:>5} {rate[0]:>8.1f} {several[0]:>14} {several[1]:>11}"
                f"   ({seconds:.1f} s){'  LOW: ' + '; '.join(low) if low else ''}"
            )
    if not args.policy:
        return
    print("unsteered, per 100 games: plain -> late and risky calls")
    for profile in profiles:
        for seats in (int(s) for s in args.seats.split(",")):
            plain = by_policy(profile, seats, args.games, args.seed, "")
            risky = by_policy(profile, seats, args.games, args.seed, "beaten")
            rates = [
                f"{100 * plain[c] / args.games:.1f} -> {100 * risky[c] / args.games:.1f}"
                for c in (BEATEN_CALLS, SEVERAL_LOWER)
            ]
            print(f"{profile:<10} {seats:>5} beaten {rates[0]:<14} several lower {rates[1]}")


if __name__ == "__main__":
    main()
