"""Which cases a run, the pytest plugin or an export works on (docs/readings.md).

Without ``--profile`` the cases are the corpus as written: each transcript under the
shipped profiles it is written for. With rulesets given, every transcript faces each of
them, as written, derived or not applicable (:mod:`.derive`).
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reference_engine.errors import JhyapError
from reference_engine.profile import resolve

from ..reporting.style import plural
from ..spec import readings
from ..spec.transcript import (
    Transcript,
    corpus_files,
    load_corpus,
    profiles_for,
    shipped_documents,
    with_profile_files,
)
from .derive import Mode, classify, trusted
from .known_failures import InputError, KnownFailure, load_known_failures


@dataclass(frozen=True)
class Case:
    """One transcript under one profile, with the profile resolved once for it."""

    transcript: Transcript
    profile: str
    resolved: Mapping[str, Any] | None
    problem: str | None = None  # why the profile could not be resolved
    owned: frozenset[str] | None = None  # the profile's clause ids (outcomes credit only these)
    mode: Mode = Mode.WRITTEN
    note: str = ""  # derived or not applicable: why (conformance.harness.derive)
    base: str | None = None  # the profile the transcript was written for, nearest this one
    changed: tuple[str, ...] = ()  # the rule parameters this ruleset changes from ``base``


# -- selection ---------------------------------------------------------------------


def matches(pattern: str, text: str) -> bool:
    """fnmatch when ``pattern`` has a wildcard (``*?[``), else a plain substring test."""
    if any(c in pattern for c in "*?["):
        return fnmatch.fnmatchcase(text, pattern)
    return pattern in text


def id_selector(ids: Iterable[str], id_patterns: Sequence[str]) -> Callable[[str], bool]:
    """Whether an id matches one of ``id_patterns``, a pattern that is exactly one of
    ``ids`` matching that id alone."""
    known = set(ids)

    def id_ok(transcript_id: str) -> bool:
        return any(
            transcript_id == p if p in known else matches(p, transcript_id) for p in id_patterns
        )

    return id_ok


def select_transcripts(
    transcripts: Iterable[Transcript],
    id_patterns: Sequence[str] = (),
    clause_patterns: Sequence[str] = (),
) -> list[Transcript]:
    """The transcripts whose id matches one of ``id_patterns`` (all when none) and one of
    whose clauses matches one of ``clause_patterns`` (all when none).

    A pattern that is exactly some transcript's id selects that id alone, so that
    ``-k foo`` reruns ``foo`` without ``foo-bar``.
    """
    items = list(transcripts)
    id_ok = id_selector([t.id for t in items], id_patterns)
    chosen = []
    for t in items:
        if id_patterns and not id_ok(t.id):
            continue
        if clause_patterns and not any(matches(p, c) for p in clause_patterns for c in t.clauses):
            continue
        chosen.append(t)
    return chosen


def build_cases(
    transcripts: Iterable[Transcript],
    documents: Mapping[str, Mapping[str, Any]],
    profiles: Sequence[str] = (),
) -> list[Case]:
    """The cases: without ``profiles``, every (transcript, profile) pair the corpus is
    written for; with them, every transcript under each of them (as written, derived or
    not applicable). Each profile is resolved once per case."""
    unknown = [p for p in profiles if p not in documents]
    if unknown:
        # A usage error, not a file's problem: said after the command's name.
        names = ", ".join(repr(p) for p in unknown)
        raise InputError(
            [],
            f"unknown profile{'s' if len(unknown) > 1 else ''} {names}; shipped profiles: "
            f"{', '.join(sorted(documents))}",
        )
    cache: dict[tuple[str, str], tuple[Mapping[str, Any] | None, str | None]] = {}
    owned = {
        pid: frozenset(str(c["id"]) for c in doc.get("clauses") or [])
        for pid, doc in documents.items()
    }

    def resolved(
        pid: str, options: Mapping[str, Any]
    ) -> tuple[Mapping[str, Any] | None, str | None]:
        key = (pid, json.dumps(options, sort_keys=True))
        if key not in cache:
            try:
                cache[key] = (resolve(documents[pid], options), None)
            except JhyapError as exc:
                problem = f"cannot resolve {pid} with the transcript's options: {exc.message}"
                cache[key] = (None, problem)
        return cache[key]

    items = list(transcripts)
    if not profiles:
        return [
            Case(transcript, pid, *resolved(pid, transcript.options), owned[pid])
            for transcript in items
            for pid in profiles_for(transcript, documents)
        ]
    shipped = shipped_documents()
    written_for = readings.with_alternatives(shipped)
    cases = []
    for pid in dict.fromkeys(profiles):
        document = documents[pid]
        sure = trusted(pid, document, shipped)
        for transcript in items:
            # Named by the transcript (and its where: holds), or a trusted ruleset it is bound to.
            bound = pid in profiles_for(transcript, documents)
            if bound and (sure or pid in transcript.profiles):
                # Written for this very ruleset: an oracle, never demoted.
                cases.append(Case(transcript, pid, *resolved(pid, transcript.options), owned[pid]))
                continue
            found = classify(transcript, pid, document, written_for)
            case_resolved, problem = resolved(pid, found.options)
            cases.append(
                Case(
                    found.transcript,
                    pid,
                    case_resolved,
                    problem,
                    owned[pid],
                    found.mode,
                    found.reason,
                    found.base,
                    found.changed,
                )
            )
    return cases


@dataclass(frozen=True)
class Selection:
    """What a run, the pytest plugin or an export works on, checked before any engine starts."""

    documents: Mapping[str, Mapping[str, Any]]
    transcripts: list[Transcript]  # what was loaded: the corpus, or what -k names in it
    cases: list[Case]
    known: list[KnownFailure]
    source: str  # the transcripts directory, or "the shipped corpus"
    corpus_ids: tuple[str, ...] = ()  # the id (file name) of every transcript file


def load_selection(
    transcripts_dir: str | None = None,
    profiles: Sequence[str] = (),
    ids: Sequence[str] = (),
    clauses: Sequence[str] = (),
    known_failures: str | None = None,
) -> Selection:
    """Load the profiles, the corpus and the known failures and select the cases.

    ``profiles`` are shipped ids or profile files, each possibly comma-separated.
    Raises InputError listing every problem, one line each.
    """
    from ..spec.data import DataNotFound, ProfileNotFound
    from ..spec.profiles import ProfileFileError

    root = Path(transcripts_dir) if transcripts_dir else None
    if root is not None and not root.is_dir():
        raise InputError([], f"no such directory: {root}")
    named = [p.strip() for text in profiles for p in text.split(",") if p.strip()]
    try:
        documents, chosen = with_profile_files(shipped_documents(), named)
    except (ProfileFileError, DataNotFound, ProfileNotFound) as exc:
        raise InputError([], f"the profiles cannot be loaded:\n{exc}") from None
    files = corpus_files(root)
    corpus_ids = tuple(dict.fromkeys(path.stem for path in files))
    # A transcript's id is its file name: -k reads and checks only the files it names.
    only = id_selector(corpus_ids, ids) if ids else None
    transcripts, problems = load_corpus(root, documents, only)
    if problems:
        summary = f"{plural(len(problems), 'problem')} in the transcripts; nothing was run"
        raise InputError([str(p) for p in problems], summary)
    known = load_known_failures(known_failures) if known_failures else []
    cases = build_cases(select_transcripts(transcripts, ids, clauses), documents, chosen)
    source = str(root) if root is not None else "the shipped corpus"
    if not cases:
        raise InputError(
            [],
            f"no case matches the selection ({plural(len(corpus_ids), 'transcript')} in {source})",
        )
    return Selection(documents, transcripts, cases, known, source, corpus_ids)


__all__ = [
    "Case",
    "InputError",
    "Selection",
    "build_cases",
    "id_selector",
    "load_selection",
    "matches",
    "select_transcripts",
]
