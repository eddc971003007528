"""Which transcripts test each clause and each reading value: the figures of
``jhyap coverage`` and of the corpus export."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ..harness.cases import Case
from ..harness.derive import Mode
from ..spec import readings
from ..spec.protocol import OWNER as PROTOCOL
from ..spec.protocol import protocol_clause_ids
from ..spec.steps import Transcript
from ..spec.transcript_profiles import profiles_for

MODE_ORDER = (Mode.WRITTEN, Mode.DERIVED)


def ruleset_coverage(cases: Sequence[Case], document: Mapping[str, Any]) -> dict[str, Any]:
    """Each clause of the ruleset (then the protocol's) with the transcripts citing it, by
    the way each ran under the ruleset; a clause cited only by cases not applicable is
    tested by none."""
    listing: dict[str, dict[str, list[str]]] = {}
    # (id, mode, clauses) of each case, not the cases: they may be read one at a time.
    cited = sorted(
        # A re-seated case is derived (docs/readings.md): the seats moved round first.
        (
            (c.transcript.id, Mode.DERIVED if c.mode.derived else c.mode, c.transcript.clauses)
            for c in cases
        ),
        key=lambda item: item[0],
    )
    for transcript_id, mode, cites in cited:
        if mode not in MODE_ORDER:
            continue
        for clause in cites:
            ways = listing.setdefault(clause, {m: [] for m in MODE_ORDER})
            ways[mode].append(transcript_id)
    ids = [str(c["id"]) for c in document.get("clauses") or []] + list(protocol_clause_ids())
    clauses = {cid: listing.get(cid, {m: [] for m in MODE_ORDER}) for cid in ids}
    counts = {
        "as_written": sum(1 for w in clauses.values() if w["as_written"]),
        "derived_only": sum(1 for w in clauses.values() if w["derived"] and not w["as_written"]),
        "untested": sum(1 for w in clauses.values() if not w["as_written"] and not w["derived"]),
    }
    return {"profile": document["id"], "counts": counts, "clauses": clauses}


class Cited(Protocol):
    """What the clause map needs of a transcript: its id and the clauses it cites."""

    @property
    def id(self) -> str: ...

    @property
    def clauses(self) -> tuple[str, ...]: ...


def coverage(
    documents: Mapping[str, Mapping[str, Any]], transcripts: Sequence[Cited]
) -> dict[str, dict[str, Any]]:
    """Each clause id (profile order, then file order; the protocol clauses last, with the
    profile ``protocol``) with its profile and transcript ids."""
    listing: dict[str, list[str]] = {}
    # Ids and clauses, not the transcripts: they may be read one at a time.
    for transcript_id, clauses in sorted((t.id, t.clauses) for t in transcripts):
        for clause in clauses:
            listing.setdefault(clause, []).append(transcript_id)
    table: dict[str, dict[str, Any]] = {}
    for pid in sorted(documents):
        for clause in documents[pid].get("clauses") or []:
            cid = clause["id"]
            table[cid] = {"profile": pid, "transcripts": listing.get(cid, [])}
    for cid in protocol_clause_ids():
        table[cid] = {"profile": PROTOCOL, "transcripts": listing.get(cid, [])}
    return table


def reading_coverage(
    documents: Mapping[str, Mapping[str, Any]], transcripts: Sequence[Transcript]
) -> list[dict[str, Any]]:
    """Each reading value of each profile with the transcripts that test it: those that run
    under a profile playing that value, cite one of the reading's clauses and select on one
    of its parameters with ``where:``."""
    every = readings.with_alternatives(documents)
    # What the rows need of each transcript with a where: condition, read in one pass
    # (the transcripts may be read one at a time): id, parameters, clauses, profiles.
    conditioned = sorted(
        (t.id, set(t.where), set(t.clauses), set(profiles_for(t, every)))
        for t in transcripts
        if t.where
    )
    rows = []
    for pid in sorted(documents):
        document = documents[pid]
        if document.get("derived_from"):
            continue
        own = readings.readings_in_force(document)
        for entry in readings.readings_of(document):
            name = entry["name"]
            for choice, params in entry["choices"].items():
                played = (
                    pid if own[name] == choice else readings.declared(document, name, choice)["id"]
                )
                ids = [
                    tid
                    for tid, where, clauses, runs_under in conditioned
                    if any(p in where for p in params)
                    and clauses & set(entry["clauses"])
                    and played in runs_under
                ]
                rows.append(
                    {
                        "profile": pid,
                        "reading": name,
                        "choice": choice,
                        "own": own[name] == choice,
                        "clauses": list(entry["clauses"]),
                        "transcripts": ids,
                    }
                )
    return rows


__all__ = ["MODE_ORDER", "Cited", "coverage", "reading_coverage", "ruleset_coverage"]
