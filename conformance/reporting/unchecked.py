"""Reporting the checks an engine's ``state_fields`` left unmade (conformance.harness.state_fields).

A case keeps its outcome when some of its checkpoint fields could not be compared, and
lists them (``Outcome.not_checked``); a case none of whose checks could be made is
``not_checked``. The console, the JSON report and JUnit all say so, never a silent pass.
Checkpoint fields the engine's kit keeps (``Outcome.kit_kept``, from
``hello.supports.kit_kept_fields``) are compared but said to be the kit's, not the engine's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..harness.outcome import CaseStatus, Outcome
from ..spec.wording import plural

MAX_CASES = 20  # cases listed in the console; the JSON report lists every one


def unchecked_fields(outcome: Outcome) -> list[str]:
    """The field names of each ``step N (line L): a, b`` entry, in order."""
    return _entry_fields(outcome.not_checked)


def _entry_fields(entries: Sequence[str]) -> list[str]:
    return [name for entry in entries for name in entry.split(": ", 1)[1].split(", ")]


def kit_kept_total(outcomes: Sequence[Outcome]) -> int:
    """How many checkpoint fields compared were kept by the engine's kit, over every case."""
    return sum(len(_entry_fields(o.kit_kept)) for o in outcomes)


def kit_kept_lines(outcomes: Sequence[Outcome]) -> list[str]:
    """The console's block: the checks on kit-kept fields, each field by how often."""
    cases = [o for o in outcomes if o.kit_kept]
    if not cases:
        return []
    fields = Counter(name for o in cases for name in _entry_fields(o.kit_kept))
    ranked = sorted(fields.items(), key=lambda kv: -kv[1])
    return [
        f"kit-kept (state fields the engine's kit keeps, not the engine; not counted as the "
        f"engine's): {plural(sum(fields.values()), 'check')} in {plural(len(cases), 'case')}:",
        "  " + ", ".join(f"{name} {n}" for name, n in ranked),
        "",
    ]


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
    """The text JUnit carries for a case with checks left unmade or made on kit-kept fields."""
    notes = []
    if outcome.not_checked:
        notes.append(
            "not checked (state fields the engine does not report): "
            + "; ".join(outcome.not_checked)
        )
    if outcome.kit_kept:
        notes.append(
            "kit-kept (state fields the engine's kit keeps, not the engine): "
            + "; ".join(outcome.kit_kept)
        )
    return "\n".join(notes) or None


__all__ = [
    "junit_note",
    "kit_kept_lines",
    "kit_kept_total",
    "unchecked_fields",
    "unchecked_lines",
    "unchecked_total",
]
