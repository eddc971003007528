"""The shipped corpus: valid, oracle-labelled, and covering every clause of every profile."""

from __future__ import annotations

import copy

from conformance.reporting.coverage import coverage
from conformance.spec import readings
from conformance.spec.protocol import protocol_clause_ids
from conformance.spec.transcript import load_corpus
from conformance.spec.transcript_profiles import profiles_for, shipped_documents


def test_every_transcript_is_valid_and_an_oracle() -> None:
    transcripts, problems = load_corpus()
    assert [str(p) for p in problems] == []
    assert len(transcripts) >= 40
    # Recordings of the reference engine are labelled and kept apart from the oracles.
    for transcript in transcripts:
        recorded = transcript.file.parent.name == "regression"
        assert transcript.kind == ("regression" if recorded else "oracle"), transcript.file
    every_reading = readings.with_alternatives(shipped_documents())
    for transcript in transcripts:
        # A transcript of an alternative reading runs only under a profile declaring it.
        assert profiles_for(transcript, every_reading), transcript.id


def test_every_clause_of_every_profile_is_covered() -> None:
    transcripts, _ = load_corpus()
    table = coverage(shipped_documents(), transcripts)
    uncovered = sorted(cid for cid, entry in table.items() if not entry["transcripts"])
    assert uncovered == []
    profile_clauses = sum(len(d["clauses"]) for d in shipped_documents().values())
    assert len(table) == profile_clauses + len(protocol_clause_ids())


def test_a_new_clause_without_a_transcript_is_reported_uncovered() -> None:
    transcripts, _ = load_corpus()
    documents = copy.deepcopy(dict(shipped_documents()))
    documents["dhumbal"]["clauses"].append({"id": "dhumbal.calling.brand-new"})
    table = coverage(documents, transcripts)
    assert table["dhumbal.calling.brand-new"] == {"profile": "dhumbal", "transcripts": []}


def test_each_profile_difference_is_tested_both_ways() -> None:
    """A run's middle card: refused at the Dashain table, accepted at the Dhumbal table."""
    transcripts, _ = load_corpus()
    by_clause: dict[str, list[str]] = {}
    for transcript in transcripts:
        for clause in transcript.clauses:
            by_clause.setdefault(clause, []).append(transcript.id)
    assert by_clause["dashain.pick.run-ends"]
    assert by_clause["dhumbal.pick.any-card"]
    assert by_clause["everestbuzz.pick.last-placed"]
