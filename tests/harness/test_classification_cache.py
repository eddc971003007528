"""A classification read back from the cache on disk is the one made afresh: as written,
laid out for the ruleset, not applicable or derived (conformance/harness/derive.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.harness.derive import Mode, classify
from conformance.spec.profiles import load_profile
from conformance.spec.transcript import load_transcript
from conformance.spec.transcript_profiles import shipped_documents

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "conformance" / "transcripts"
VARIANT = ROOT / "tests" / "data" / "variants" / "dhumbal-penalty-30-out-150.yaml"

# Under the variant: each mode, and a deal laid out anew for its table (as written, changed).
CASES = {
    "dhumbal-call-limit-15": (Mode.WRITTEN, True),
    "bga-yaniv-no-slapdown": (Mode.WRITTEN, False),
    "bga-yaniv-game-cut-100": (Mode.NOT_APPLICABLE, True),
    "alankar-dhumbal-game": (Mode.DERIVED, False),
}


@pytest.mark.usefixtures("nothing_kept_in_memory")
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_cached_classification_is_the_one_made_afresh(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JHYAP_CACHE_DIR", str(tmp_path / "cache"))
    variant = load_profile(VARIANT)
    transcript = load_transcript(CORPUS / f"{name}.yaml")
    made = classify(transcript, variant["id"], variant, shipped_documents())
    assert any((tmp_path / "cache").rglob("*"))  # kept on disk
    cached = classify(transcript, variant["id"], variant, shipped_documents())
    mode, as_it_stands = CASES[name]
    assert (made.mode, cached.mode) == (mode, mode)
    assert cached == made
    # A case that plays the file as it stands reads back the transcript itself.
    assert (cached.transcript is transcript) is as_it_stands
    assert (made.transcript is transcript) is as_it_stands
