"""Find and shrink times of `jhyap fuzz` campaigns against planted bugs, as a table.

Runs one timed campaign (``--jobs 2`` by default) per engine: each mutant of
tests/mutants/engine.py named (default: a representative set, ``--all`` for every one)
and tests/fake_engines/two_bugs.py, and prints per divergence class found the find time,
the shrink time (writing and checking included), the shrunk length, whether the written
transcript was verified, and whether shrinking took no more than the find time plus 30 s.

    python bench/fuzz_campaign.py [--time 60] [--jobs 2] [--all | MUTANT ...]
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from conformance.commands.run import default_engine, default_engine_env  # noqa: E402
from conformance.fuzz.campaign import Finding, fuzz  # noqa: E402
from conformance.fuzz.config import FuzzConfig  # noqa: E402
from conformance.spec.transcript import shipped_documents  # noqa: E402
from tests.mutants.engine import MUTANTS  # noqa: E402

# One mutant per kind of rule, each with the profiles where it diverges (None: all).
REPRESENTATIVE: dict[str, tuple[str, ...] | None] = {
    "tie_to_caller": ("dhumbal",),
    "tie_break_by_seat_number": ("dhumbal",),
    "out_at_100": ("dhumbal",),
    "penalty_30": ("dhumbal",),
    "everestbuzz_any_card": ("everestbuzz",),
    "deal_in_blocks": ("yaniv-israel",),
    "reshuffle_keeps_nothing_aside": ("bga-yaniv",),
}
TWO_BUGS = ("dhumbal",)


def engine_command(script: Path, *args: str) -> str:
    return shlex.join([sys.executable, str(script), *args])


def campaign(engine: str, profiles: tuple[str, ...], seconds: float, jobs: int) -> list[str]:
    env = default_engine_env()
    documents = shipped_documents()
    with tempfile.TemporaryDirectory() as out:
        config = FuzzConfig(
            engine=engine,
            reference=default_engine(),
            documents=documents,
            profiles=profiles or tuple(sorted(documents)),
            engine_env=env,
            reference_env=env,
            seconds=seconds,
            jobs=jobs,
            out=Path(out),
        )
        began = time.monotonic()
        result = fuzz(config)
        wall = time.monotonic() - began
    rows = []
    for f in result.findings:
        within = f.shrink_seconds <= f.find_seconds + config.shrink_grace
        rows.append(
            f"| {f.found.signature} | {f.find_seconds:.1f} | {f.shrink_seconds:.1f} | "
            f"{f.found_requests} -> {len(f.shrunk.plan.requests)} | "
            f"{verdict(f)} | {'yes' if within else 'NO'} |"
        )
    rows.append(
        f"| ({result.games} games, {len(result.findings)} classes in {wall:.0f} s) | | | | | |"
    )
    return rows


def verdict(finding: Finding) -> str:
    if finding.transcript is None and finding.shrink_seconds == 0.0:
        return "found as --time ran out: listed, not written"
    return "yes" if finding.verified_ok else "NO"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mutants", nargs="*")
    parser.add_argument("--all", action="store_true", help="every mutant, every profile")
    parser.add_argument("--time", type=float, default=60.0)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    chosen: dict[str, tuple[str, ...] | None]
    if args.all:
        chosen = dict.fromkeys(MUTANTS)
    elif args.mutants:
        chosen = {m: REPRESENTATIVE.get(m) for m in args.mutants}
    else:
        chosen = dict(REPRESENTATIVE)
    print(f"--time {args.time:g} --jobs {args.jobs}")
    print("| engine | class | find s | shrink s | requests | verified | shrink <= find + 30 s |")
    print("|---|---|---|---|---|---|---|")
    mutant_engine = ROOT / "tests" / "mutants" / "engine.py"
    engines = [(m, engine_command(mutant_engine, m), p or ()) for m, p in chosen.items()]
    engines.append(
        ("two_bugs", engine_command(ROOT / "tests" / "fake_engines" / "two_bugs.py"), TWO_BUGS)
    )
    for name, command, profiles in engines:
        for row in campaign(command, profiles, args.time, args.jobs):
            print(f"| {name} {row}", flush=True)


if __name__ == "__main__":
    main()
