"""A derived case's expectations, derived by the engine that replayed it as written (answers
kept, play carried on from where that replay stopped), are those a fresh engine derives."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conformance.harness import derive
from conformance.harness.derive import Mode
from conformance.harness.inprocess import FollowingClient
from conformance.spec.transcript import load_corpus
from conformance.spec.transcript_profiles import shipped_documents, with_profile_files

VARIANT = Path(__file__).resolve().parents[2] / "tests" / "data" / "variants"


def test_derived_by_the_replaying_engine_as_by_a_fresh_one(monkeypatch: pytest.MonkeyPatch) -> None:
    path = VARIANT / "dashain-first-starter-1.yaml"
    documents, (pid,) = with_profile_files(shipped_documents(), [str(path)])
    transcripts, problems = load_corpus(None, documents)
    assert problems == []
    answered: Counter[str] = Counter()

    class Counting(FollowingClient):
        def _answer_from_log(self, sent: Any) -> dict[str, Any] | None:
            found = super()._answer_from_log(sent)
            answered["from the log" if found is not None else "by the engine"] += 1
            return found

    monkeypatch.setattr(derive, "FollowingClient", Counting)
    made = {t.id: derive._classify(t, pid, documents[pid], documents) for t in transcripts}
    derived = [t for t in transcripts if made[t.id].mode.derived]
    # Both kinds of derived case; most answers of their derivation came from the log.
    assert {made[t.id].mode for t in derived} == {Mode.DERIVED, Mode.RESEATED}
    assert answered["from the log"] > answered["by the engine"] > 0
    fresh_only = derive._derive_steps
    monkeypatch.setattr(derive, "_derive_steps", lambda t, r, played=None: fresh_only(t, r))
    for transcript in derived:
        assert derive._classify(transcript, pid, documents[pid], documents) == made[transcript.id]
