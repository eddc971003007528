"""How each case ran under its ruleset, in reports (conformance.harness.derive).

A case runs as written (the transcript's own expectations), derived (the reference
engine's answers under the declared ruleset), derived re-seated (the same, the
transcript's seats first moved round to where the ruleset's first hand starts) or not at
all (not applicable). Reports count the first three apart, so that a pass says what it
claims.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from ..harness.derive import Mode
from ..harness.outcome import CaseStatus, Outcome
from ..spec.wording import plural

# The modes a case runs in, in the order reports give them.
RAN_MODES: Final = (Mode.WRITTEN, Mode.DERIVED, Mode.RESEATED)
# The words a count line puts after a status, by mode.
MODE_WORDS: Final = {
    Mode.WRITTEN: "as written",
    Mode.DERIVED: "derived",
    Mode.RESEATED: "derived (re-seated)",
}


def any_derived(outcomes: Iterable[Outcome]) -> bool:
    """Whether the run faced a declared ruleset (some case did not run as written)."""
    return any(o.mode != Mode.WRITTEN for o in outcomes)


def mode_counts(outcomes: Iterable[Outcome]) -> dict[str, int]:
    counts = Counter(o.mode for o in outcomes)
    return {mode: counts[mode] for mode in (*RAN_MODES, CaseStatus.NOT_APPLICABLE)}


def split_counts(outcomes: Sequence[Outcome], status: CaseStatus) -> list[tuple[str, int]]:
    """``[("passed as written", 118), ("passed derived", 21), ("passed derived
    (re-seated)", 9)]`` for a status that ran."""
    counts = Counter(o.mode for o in outcomes if o.status == status)
    return [(f"{status} {MODE_WORDS[m]}", counts[m]) for m in RAN_MODES if counts[m]]


def claim_suffix(profile: str, outcomes: Iterable[Outcome]) -> str:
    """ "; as written in N cases, as the reference engine plays P in M (R of them
    re-seated), not applicable in K"."""
    counts = mode_counts(o for o in outcomes if o.profile == profile)
    text = f"; as written in {plural(counts[Mode.WRITTEN], 'case')}"
    derived = counts[Mode.DERIVED] + counts[Mode.RESEATED]
    text += f", as the reference engine plays {profile} in {derived}"
    if counts[Mode.RESEATED]:
        text += f" ({counts[Mode.RESEATED]} of them re-seated)"
    if counts[CaseStatus.NOT_APPLICABLE]:
        text += f", not applicable in {counts[CaseStatus.NOT_APPLICABLE]}"
    return text


def with_modes(
    claims: Sequence[Mapping[str, Any]], outcomes: Sequence[Outcome]
) -> list[dict[str, Any]]:
    """The claims, each with its profile's case counts by mode and the text saying them."""
    if not any_derived(outcomes):
        return [dict(c) for c in claims]
    return [
        {
            **c,
            "modes": mode_counts(o for o in outcomes if o.profile == c["profile"]),
            "text": str(c["text"]) + claim_suffix(str(c["profile"]), outcomes),
        }
        for c in claims
    ]


def mode_lines(outcome: Outcome) -> list[str]:
    """What a failure block says about a case that did not run as written."""
    if outcome.mode == Mode.WRITTEN:
        return []
    if outcome.mode == CaseStatus.NOT_APPLICABLE:
        return [f"  not applicable under {outcome.profile}: {outcome.mode_note}"]
    reseated = " (re-seated)" if outcome.mode == Mode.RESEATED else ""
    lines = [
        f"  derived{reseated}: the expectations are the reference engine's answers under "
        f"{outcome.profile}, not the transcript's",
        f"  why derived: {outcome.mode_note}",
    ]
    if outcome.changed:
        base = f" from {outcome.base}" if outcome.base else ""
        lines.append(f"  parameters the ruleset changes{base} that this step touches:")
        lines += [f"    {c}" for c in outcome.changed]
    return lines


__all__ = [
    "RAN_MODES",
    "any_derived",
    "claim_suffix",
    "mode_counts",
    "mode_lines",
    "split_counts",
    "with_modes",
]
