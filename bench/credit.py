"""Does a failure point at the broken rule? The rank of its clause, over planted bugs.

Run: python bench/credit.py [--only TEXT ...] [--mutants | --planted] [--misses]

Each mutant of tests/mutants/rules.py mishandles one rule parameter under every profile;
each planted bug of tests/mutants/planted.py is a port of one profile breaking one of its
rules, labelled with that rule's clauses. The corpus (a planted bug: its profile's cases)
is replayed against the reference engine with the bug in (in this process), and for every
failure the position of the broken rule's clause among the clauses the failure credits is
taken, 1 being first: for a mutant the first clause citing the mutated parameter (its
``params``), for a planted bug the first of its labelled clauses. The table gives, per
bug, the failures, how many rank the clause first, the ranks seen (rank: count, "-" when
not credited at all), and the clause's rank in "top failing clauses" of the console
report. Bugs the corpus does not catch (no failure) are listed apart: gaps of the corpus,
not of the credit. ``--misses`` prints each failure whose first clause is another.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance.harness.cases import Case, load_selection  # noqa: E402
from conformance.harness.credit import clause_parameters  # noqa: E402
from conformance.harness.inprocess import ReferenceClient  # noqa: E402
from conformance.harness.outcome import Outcome  # noqa: E402
from conformance.harness.replay import replay  # noqa: E402
from tests.mutants.planted import PLANTED, planted  # noqa: E402
from tests.mutants.rules import MUTANTS, applied  # noqa: E402


@dataclass(frozen=True)
class Bug:
    name: str
    label: str  # the parameter a mutant misreads, the clause a planted bug breaks
    profile: str | None  # a planted bug's profile: only its cases are replayed
    apply: Callable[[], AbstractContextManager[None]]
    broken: Callable[[Case], frozenset[str]]  # the broken rule's clauses under a case


@dataclass(frozen=True)
class Row:
    bug: Bug
    failures: int
    firsts: int
    ranks: Counter[int | None]
    top: int | None
    misses: tuple[str, ...]


def _cites(params: frozenset[str], parameter: str) -> bool:
    return any(
        p == parameter or parameter.startswith(p + ".") or p.startswith(parameter + ".")
        for p in params
    )


def _citing(parameter: str) -> Callable[[Case], frozenset[str]]:
    def broken(case: Case) -> frozenset[str]:
        assert case.resolved is not None
        cited = clause_parameters(case.resolved)
        return frozenset(c for c, params in cited.items() if _cites(params, parameter))

    return broken


def bugs() -> Iterator[Bug]:
    for name, mutant in MUTANTS.items():
        yield Bug(
            name, mutant.parameter, None, lambda n=name: applied(n), _citing(mutant.parameter)
        )
    for name, bug in PLANTED.items():
        yield Bug(
            name,
            bug.clauses[0],
            bug.profile,
            lambda n=name: planted(n),
            lambda _, c=frozenset(bug.clauses): c,
        )


def _outcome(case: Case) -> Outcome | None:
    assert case.resolved is not None
    client = ReferenceClient()
    try:
        info = client.handshake()
        return replay(client, info, case.transcript, case.profile, case.resolved, owned=case.owned)
    except Exception:  # a bug that breaks the session: not a failure to rank
        return None


def measure(bug: Bug, cases: Sequence[Case]) -> Row:
    """Replay ``cases`` with ``bug`` in; rank the broken rule's clause in each failure."""
    failures = firsts = 0
    ranks: Counter[int | None] = Counter()
    counted: Counter[str] = Counter()
    leading: Counter[str] = Counter()
    broken_any: set[str] = set()
    misses: list[str] = []
    with bug.apply():
        for case in cases:
            if bug.profile is not None and case.profile != bug.profile:
                continue
            outcome = _outcome(case)
            if outcome is None or outcome.ok:
                continue
            failures += 1
            broken = bug.broken(case)
            rank = next((i + 1 for i, c in enumerate(outcome.clauses) if c in broken), None)
            ranks[rank] += 1
            broken_any |= broken & set(outcome.clauses)
            if rank == 1:
                firsts += 1
            else:
                misses.append(
                    f"{case.transcript.id} ({case.profile}) step {outcome.step}: "
                    f"{', '.join(outcome.clauses[:3])}; {outcome.reason}"
                )
            counted.update(outcome.clauses[: outcome.focus] if outcome.focus else outcome.clauses)
            if outcome.clauses:
                leading[outcome.clauses[0]] += 1
    ranked = sorted(counted, key=lambda c: (-leading[c], -counted[c], c))  # as the console
    top = next((i + 1 for i, c in enumerate(ranked) if c in broken_any), None)
    return Row(bug, failures, firsts, ranks, top, tuple(misses))


def _ranks(ranks: Counter[int | None]) -> str:
    order = sorted(ranks, key=lambda r: (r is None, r or 0))
    return " ".join(f"{'-' if r is None else r}:{ranks[r]}" for r in order)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=[], help="bugs whose name has TEXT")
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--mutants", action="store_true", help="the mutants of rules.py only")
    kind.add_argument("--planted", action="store_true", help="the planted bugs only")
    parser.add_argument("--misses", action="store_true", help="print the failures missed")
    args = parser.parse_args()
    cases = [c for c in load_selection().cases if c.resolved is not None]
    rows: list[Row] = []
    missed: list[Bug] = []
    for bug in bugs():
        if args.only and not any(text in bug.name for text in args.only):
            continue
        if (args.mutants and bug.profile) or (args.planted and not bug.profile):
            continue
        row = measure(bug, cases)
        (rows.append(row) if row.failures else missed.append(bug))
        if args.misses:
            for miss in row.misses:
                print(f"  miss {bug.name}: {miss}"[:300])
    width = max([len(r.bug.name) for r in rows] + [6])
    lwidth = max([len(r.bug.label) for r in rows] + [13])
    print(f"{'bug':<{width}}  {'broken clause':<{lwidth}}  failures  first  top  ranks")
    for row in rows:
        top = "-" if row.top is None else str(row.top)
        print(
            f"{row.bug.name:<{width}}  {row.bug.label:<{lwidth}}  {row.failures:>8}"
            f"  {row.firsts:>5}  {top:>3}  {_ranks(row.ranks)}"
        )
    print()
    for title, part in (
        ("mutants", [r for r in rows if r.bug.profile is None]),
        ("planted bugs", [r for r in rows if r.bug.profile is not None]),
        ("all", rows),
    ):
        total, first = sum(r.failures for r in part), sum(r.firsts for r in part)
        tops = sum(1 for r in part if r.top == 1)
        print(
            f"{title}: {first} of {total} failures ({100 * first / max(total, 1):.0f} %) name the"
            f" broken rule's clause first; it tops 'top failing clauses' for {tops} of {len(part)}"
        )
    if missed:
        names = ", ".join(f"{b.name} ({b.label})" for b in missed)
        print(f"not caught by the corpus ({len(missed)}): {names}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
