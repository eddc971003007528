"""Reporting the checks an engine's ``state_fields`` left unmade (conformance.harness.state_fields).

A case keeps its outcome when some of its checkpoint fields could not be compared, and
lists them (``Outcome.not_checked``); a case none of whose checks could be made is
``not_checked``. The console, the JSON report and JUnit all say so, never a silent pass.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..harness.outcome import CaseStatus, Outcome
from ..spec.wording import plural

MAX_CASES = 20  # cases listed in the console; the JSON report lists every one


def unchecked_fields(outcome: Outcome) -> list[str]:
    """The field names of each ``step N (line L): a, b`` entry, in order."""
    return [name for entry in outcome.not_checked for name in entry.split(": ", 1)[1].split(", ")]


def unchecked_total(outcomes: Sequence[Outcome]) -> int:
    """How many checkpoint fields went unchecked, over every case."""
    return sum(len(unchecked_fields(o)) for o in outcomes)


def unchecked_lines(outcomes: Sequence[Outcome]) -> list[str]:
    """The console's block: the count, each field by how often, each case (some)."""
    cases = [o for o in outcomes if o.not_checked]
    if not cases:
        return []
    fields = Counter(name for o in cases for name in unchecked_fields(o))
    ranked = sorted(fields.items(), key=lambda kv: -kv[1])
    whole = sum(o.status == CaseStatus.NOT_CHECKED for o in cases)
    lines = [
        f"not checked (state fields the engine does not report): "
        f"{plural(sum(fields.values()), 'check')} in {plural(len(cases), 'case')}"
        + (f", {whole} of them with no check made" if whole else "")
        + ":",
        "  " + ", ".join(f"{name} {n}" for name, n in ranked),
    ]
    for o in cases[:MAX_CASES]:
        lines.append(f"  {o.transcript_id} [{o.profile}]: {'; '.join(o.not_checked)}")
    if len(cases) > MAX_CASES:
        lines.append(f"  ... and {len(cases) - MAX_CASES} more (the JSON report lists each)")
    lines.append("")
    return lines


def junit_note(outcome: Outcome) -> str | None:
    """The text JUnit carries for a case with checks left unmade."""
    if not outcome.not_checked:
        return None
    return "not checked (state fields the engine does not report): " + "; ".join(
        outcome.not_checked
    )


__all__ = ["junit_note", "unchecked_fields", "unchecked_lines", "unchecked_total"]
