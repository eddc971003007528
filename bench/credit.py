"""Does a failure point at the broken rule? The rank of its clause, over planted bugs.

Run: python bench/credit.py [--only TEXT ...]

Each mutant of tests/mutants/rules.py mishandles one rule parameter. The whole corpus is
replayed against the reference engine with that mutant applied (in this process), and
for every failure the position of the first clause citing the mutated parameter (its
``params``) among the clauses the failure credits is taken: 1 is first. The table gives,
per mutant, the failures, how many name such a clause first, and the rank of the first
such clause in "top failing clauses" of the console report. Mutants the corpus does not
catch (no failure) are listed apart: those are gaps of the corpus, not of the credit.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance.harness.credit import clause_parameters  # noqa: E402
from conformance.harness.inprocess import ReferenceClient  # noqa: E402
from conformance.harness.replay import replay  # noqa: E402
from conformance.harness.selection import load_selection  # noqa: E402
from tests.mutants.rules import MUTANTS, applied  # noqa: E402


def _cites(params: frozenset[str], parameter: str) -> bool:
    return any(
        p == parameter or parameter.startswith(p + ".") or p.startswith(parameter + ".")
        for p in params
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=[], help="mutants whose name has TEXT")
    args = parser.parse_args()
    cases = [c for c in load_selection().cases if c.resolved is not None]
    rows = []
    missed = []
    for name, mutant in MUTANTS.items():
        if args.only and not any(text in name for text in args.only):
            continue
        failures = firsts = 0
        counted: Counter[str] = Counter()
        leading: Counter[str] = Counter()
        cited_any: set[str] = set()
        with applied(name):
            for case in cases:
                client = ReferenceClient()
                try:
                    info = client.handshake()
                    outcome = replay(
                        client,
                        info,
                        case.transcript,
                        case.profile,
                        case.resolved,
                        owned=case.owned,
                    )
                except Exception:  # a mutant that breaks the session: not a failure to rank
                    continue
                if outcome.ok:
                    continue
                failures += 1
                assert case.resolved is not None
                cited = clause_parameters(case.resolved)
                hits = {
                    c
                    for c in outcome.clauses
                    if _cites(cited.get(c, frozenset()), mutant.parameter)
                }
                cited_any |= hits
                if outcome.clauses and outcome.clauses[0] in hits:
                    firsts += 1
                counted.update(
                    outcome.clauses[: outcome.focus] if outcome.focus else outcome.clauses
                )
                if outcome.clauses:
                    leading[outcome.clauses[0]] += 1
        if not failures:
            missed.append(f"{name} ({mutant.parameter})")
            continue
        ranked = sorted(counted, key=lambda c: (-leading[c], -counted[c]))
        top = next((i + 1 for i, c in enumerate(ranked) if c in cited_any), None)
        rows.append((name, mutant.parameter, failures, firsts, top))
    width = max([len(r[0]) for r in rows] + [6])
    pwidth = max([len(r[1]) for r in rows] + [9])
    print(f"{'mutant':<{width}}  {'parameter':<{pwidth}}  failures  first  top-rank")
    for name, parameter, failures, firsts, top in rows:
        shown = "-" if top is None else str(top)
        print(f"{name:<{width}}  {parameter:<{pwidth}}  {failures:>8}  {firsts:>5}  {shown:>8}")
    total = sum(r[2] for r in rows)
    first = sum(r[3] for r in rows)
    top_first = sum(1 for r in rows if r[4] == 1)
    print()
    print(
        f"failures naming the broken rule's clause first: {first} of {total}"
        f" ({100 * first / max(total, 1):.0f} %)"
    )
    print(f"mutants whose clause tops 'top failing clauses': {top_first} of {len(rows)}")
    if missed:
        print(f"not caught by the corpus ({len(missed)}): {', '.join(missed)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
