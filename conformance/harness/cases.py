"""Which cases a run, the pytest plugin or an export works on (docs/readings.md).

Without ``--profile`` the cases are the corpus as written: each transcript under the
shipped profiles it is written for. With rulesets given, every transcript faces each of
them, as written, derived or not applicable (:mod:`.derive`).
"""

from __future__ import annotations

import bisect
import fnmatch
import itertools
import json
import threading
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, overload

from jhyap_core.profile import resolve
from jhyap_core.vocabulary import JhyapError

from ..spec import filecache, readings, wider
from ..spec.data import DataNotFound, ProfileNotFound
from ..spec.profiles import Problem, ProfileFileError
from ..spec.steps import Step, Transcript
from ..spec.transcript import corpus_files, documents_context, iter_corpus, load_checked
from ..spec.transcript_profiles import profiles_for, shipped_documents, with_profile_files
from ..spec.wording import headed, plural
from .derive import Mode, classify, trusted
from .known_failures import InputError, KnownFailure, load_known_failures
from .outcome import Refusal, describe_step, refusal_of
from .replay import expected_moves


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
    # Derived: the lines of the moves the transcript as written expects accepted (a case
    # that judges none of them is empty). None: those of ``transcript``.
    moves: tuple[int, ...] | None = None


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


class CaseBuilder:
    """The cases of one transcript at a time, each profile resolved once per options."""

    def __init__(
        self, documents: Mapping[str, Mapping[str, Any]], profiles: Sequence[str] = ()
    ) -> None:
        unknown = [p for p in profiles if p not in documents]
        if unknown:
            # A usage error, not a file's problem: said after the command's name.
            names = ", ".join(repr(p) for p in unknown)
            raise InputError(
                [],
                f"unknown profile{'s' if len(unknown) > 1 else ''} {names}; shipped profiles: "
                f"{', '.join(sorted(documents))}",
            )
        self.documents = documents
        self.profiles = list(dict.fromkeys(profiles))
        self._resolved: dict[tuple[str, str], tuple[Mapping[str, Any] | None, str | None]] = {}
        self._owned = {
            pid: frozenset(str(c["id"]) for c in doc.get("clauses") or [])
            for pid, doc in documents.items()
        }
        if self.profiles:
            self._shipped = shipped_documents()
            self._written_for = readings.with_alternatives(self._shipped)

    def _resolve(
        self, pid: str, options: Mapping[str, Any]
    ) -> tuple[Mapping[str, Any] | None, str | None]:
        key = (pid, json.dumps(options, sort_keys=True))
        if key not in self._resolved:
            try:
                self._resolved[key] = (resolve(self.documents[pid], options), None)
            except JhyapError as exc:
                problem = f"cannot resolve {pid} with the transcript's options: {exc.message}"
                self._resolved[key] = (None, problem)
        return self._resolved[key]

    def cases_of(self, transcript: Transcript) -> list[Case]:
        """The cases of one transcript, in the order ``build_cases`` gives them per profile."""
        documents, owned = self.documents, self._owned
        if not self.profiles:
            return [
                Case(transcript, pid, *self._resolve(pid, transcript.options), owned[pid])
                for pid in profiles_for(transcript, documents)
            ]
        return [self._case_under(transcript, pid) for pid in self.profiles]

    def _case_under(self, transcript: Transcript, pid: str) -> Case:
        document = self.documents[pid]
        owned = self._owned[pid]
        # Named by the transcript (and its where: holds), or a trusted ruleset it is bound to.
        bound = pid in profiles_for(transcript, self.documents)
        beyond = wider.beyond_the_profile(transcript, document)
        if beyond:
            # It expects refused a value the engine offers beyond the profile.
            case_resolved, problem = self._resolve(pid, transcript.options)
            na = Mode.NOT_APPLICABLE
            return Case(transcript, pid, case_resolved, problem, owned, na, beyond)
        if bound and (trusted(pid, document, self._shipped) or pid in transcript.profiles):
            # Written for this very ruleset: an oracle, never demoted.
            return Case(transcript, pid, *self._resolve(pid, transcript.options), owned)
        found = classify(transcript, pid, document, self._written_for)
        case_resolved, problem = self._resolve(pid, found.options)
        mode, reason = found.mode, found.reason
        moves = expected_moves(transcript) if mode.derived else None
        if mode.derived:
            unplayable = unplayable_reason(found.transcript, moves or (), reason)
            if unplayable is not None:
                # Replayed, the case would judge none of the moves the transcript expects,
                # for want of a setup the ruleset gives: it cannot be played here.
                mode, reason = Mode.NOT_APPLICABLE, unplayable
        return Case(
            found.transcript,
            pid,
            case_resolved,
            problem,
            owned,
            mode,
            reason,
            found.base,
            found.changed,
            moves if mode.derived else None,
        )


def setup_refusal(derived: Transcript, moves: Collection[int]) -> Step | None:
    """The step at which ``derived`` leaves its transcript before any of the moves the
    transcript expects accepted (at ``moves``) is accepted, refused for want of a setup
    (outcome.Refusal.SETUP); None when one of them is accepted, or when a rule refuses it
    (the refusal is then what the case judges)."""
    wanted = set(moves)
    for step in derived.steps:
        if step.line not in wanted or step.kind != "act":
            continue
        if step.expect.error is None:
            return None  # a move the transcript expects is accepted: it is judged
        if refusal_of(step.expect.error) is Refusal.RULE:
            return None
        return step
    # It ends before any of them: at the refusal of what sets them up (an option change,
    # a deal), if any, and a setup's (a rule's, as an option locked, is judged).
    last = derived.steps[-1] if derived.steps and wanted else None
    if last is None or last.expect.error is None:
        return None
    return last if refusal_of(last.expect.error) is Refusal.SETUP else None


def unplayable_reason(derived: Transcript, moves: Collection[int], why_derived: str) -> str | None:
    """Why a derived transcript cannot be played under its ruleset, or None: nothing is
    left of it, or it ends at a setup refusal before any of the moves its transcript
    expects accepted (at ``moves``) is; then the refused step, and why it was derived."""
    because = f" ({why_derived})" if why_derived else ""
    if not derived.steps:
        return (
            "this ruleset refuses none of what the transcript expects refused: nothing is "
            f"left to judge{because}"
        )
    refused = setup_refusal(derived, moves)
    if refused is None:
        return None
    return (
        "this ruleset cannot set up the transcript's moves: "
        f"{describe_step(refused)} at line {refused.line}{because}"
    )


def build_cases(
    transcripts: Iterable[Transcript],
    documents: Mapping[str, Mapping[str, Any]],
    profiles: Sequence[str] = (),
) -> list[Case]:
    """The cases: without ``profiles``, every (transcript, profile) pair the corpus is
    written for; with them, every transcript under each of them (as written, derived or
    not applicable), profile by profile. Each profile is resolved once per options."""
    builder = CaseBuilder(documents, profiles)
    items = list(transcripts)
    if not builder.profiles:
        return [case for transcript in items for case in builder.cases_of(transcript)]
    return [builder._case_under(t, pid) for pid in builder.profiles for t in items]


# Under several rulesets each transcript is asked for once per ruleset, the whole corpus in
# turn: the transcripts first read are held for the run up to this many bytes of their files
# (about 15 bytes of memory a byte of file), so that most are built once, not once a ruleset.
HOLD_BYTES = 2 * 1024 * 1024


class _Corpus:
    """The selected transcript files, read again one at a time when asked for: a few stay
    in memory (the cache makes reading one again cheap), and those read first up to
    ``hold`` bytes of files; without a cache, all of them."""

    _RECENT = 8  # transcripts kept: the workers of a run ask for neighbouring cases

    def __init__(
        self,
        documents: Mapping[str, Mapping[str, Any]] | None,
        context: str | None,
        keep: bool,
        hold: int = 0,
    ) -> None:
        self.paths: list[Path] = []
        self._documents = documents
        self._context = context
        self._kept: dict[int, Transcript] | None = {} if keep else None
        self._recent: dict[int, Transcript] = {}
        self._held: dict[int, Transcript] = {}
        self._hold = hold  # bytes of files still to hold
        self._lock = threading.Lock()

    def add(self, path: Path, transcript: Transcript) -> None:
        if self._kept is not None:
            self._kept[len(self.paths)] = transcript
        self.paths.append(path)

    def get(self, index: int) -> Transcript:
        if self._kept is not None:
            return self._kept[index]
        with self._lock:
            found = self._held.get(index)
            if found is None:
                found = self._recent.get(index)
        if found is not None:
            return found
        path = self.paths[index]
        problems, transcript = load_checked(path, self._documents, self._context)
        if transcript is None:
            raise InputError(
                [str(p) for p in problems] or [f"{path}: cannot be read again"],
                f"{path} changed during the run",
            )
        size = _file_size(path) if self._hold > 0 else None
        with self._lock:
            if size is not None and size <= self._hold:
                self._hold -= size
                self._held[index] = transcript
            self._recent[index] = transcript
            while len(self._recent) > self._RECENT:
                del self._recent[next(iter(self._recent))]
        return transcript


def _file_size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


class LazyTranscripts(Sequence[Transcript]):
    """Transcripts read when asked for (see ``_Corpus``)."""

    def __init__(self, corpus: _Corpus, indices: Sequence[int] | None = None) -> None:
        self._corpus = corpus
        self._indices = indices

    def __len__(self) -> int:
        return len(self._corpus.paths) if self._indices is None else len(self._indices)

    @property
    def ids(self) -> list[str]:
        """Every transcript's id, unread: a loaded transcript's id is its file's name."""
        indices = self._indices if self._indices is not None else range(len(self._corpus.paths))
        return [self._corpus.paths[i].stem for i in indices]

    @overload
    def __getitem__(self, index: int) -> Transcript: ...
    @overload
    def __getitem__(self, index: slice) -> list[Transcript]: ...
    def __getitem__(self, index: int | slice) -> Transcript | list[Transcript]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        position = range(len(self))[index]
        return self._corpus.get(position if self._indices is None else self._indices[position])


class LazyCases(Sequence[Case]):
    """The cases of a selection, built when asked for from transcripts read again; the
    memory they take does not grow with the corpus (see ``_Corpus``)."""

    def __init__(
        self, corpus: _Corpus, chosen: Sequence[int], counts: Sequence[int], builder: CaseBuilder
    ) -> None:
        self._corpus = corpus
        self._chosen = list(chosen)  # corpus indices of the transcripts selected
        self._builder = builder
        self._starts = list(itertools.accumulate(counts, initial=0))  # without --profile

    def __len__(self) -> int:
        if self._builder.profiles:
            return len(self._builder.profiles) * len(self._chosen)
        return self._starts[-1]

    @overload
    def __getitem__(self, index: int) -> Case: ...
    @overload
    def __getitem__(self, index: slice) -> list[Case]: ...
    def __getitem__(self, index: int | slice) -> Case | list[Case]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        index = range(len(self))[index]
        if self._builder.profiles:  # profile by profile, as build_cases orders them
            which, item = divmod(index, len(self._chosen))
            transcript = self._corpus.get(self._chosen[item])
            return self._builder._case_under(transcript, self._builder.profiles[which])
        item = bisect.bisect_right(self._starts, index) - 1
        transcript = self._corpus.get(self._chosen[item])
        return self._builder.cases_of(transcript)[index - self._starts[item]]


@dataclass(frozen=True)
class Selection:
    """What a run, the pytest plugin or an export works on, checked before any engine starts.

    ``transcripts`` and ``cases`` are read again from the files (through the cache) when
    they are iterated, so that a selection of any size takes the memory of a few files."""

    documents: Mapping[str, Mapping[str, Any]]
    transcripts: Sequence[Transcript]  # what was loaded: the corpus, or what -k names in it
    cases: Sequence[Case]
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
    Raises InputError listing every problem, one line each. Every file is read and
    checked here, one at a time; none is kept (but by the cache, or when it is off).
    """

    root = Path(transcripts_dir) if transcripts_dir else None
    if root is not None and not root.is_dir():
        raise InputError([], f"no such directory: {root}")
    named = [p.strip() for text in profiles for p in text.split(",") if p.strip()]
    try:
        documents, chosen_profiles = with_profile_files(shipped_documents(), named)
    except (ProfileFileError, DataNotFound, ProfileNotFound) as exc:
        raise InputError([], headed("the profiles cannot be loaded", str(exc))) from None
    files = corpus_files(root)
    corpus_ids = tuple(dict.fromkeys(path.stem for path in files))
    # A transcript's id is its file name: -k reads and checks only the files it names.
    only = id_selector(corpus_ids, ids) if ids else None
    # Each transcript is asked for once per ruleset: held when there are several.
    hold = HOLD_BYTES if len(set(chosen_profiles)) > 1 else 0
    corpus = _Corpus(documents, documents_context(documents), filecache.cache_dir() is None, hold)
    problems: list[str] = []
    builder: CaseBuilder | None = None
    refused: InputError | None = None  # an unknown profile: said after the files' problems
    chosen: list[int] = []
    counts: list[int] = []
    for found, transcript in iter_corpus(root, documents, only):
        problems += [str(p) for p in found]
        if transcript is None:
            continue
        corpus.add(transcript.file, transcript)
        if problems or refused is not None:
            continue  # nothing is run: the cases need not be counted
        if not _selected(transcript, only, clauses):
            continue
        if builder is None:
            try:
                builder = CaseBuilder(documents, chosen_profiles)
            except InputError as exc:
                refused = exc
                continue
        chosen.append(len(corpus.paths) - 1)
        counts.append(len(builder.cases_of(transcript)) if not builder.profiles else 0)
    if problems:
        summary = f"{plural(len(problems), 'problem')} in the transcripts; nothing was run"
        raise InputError(problems, summary)
    if refused is not None:
        raise refused
    builder = builder or CaseBuilder(documents, chosen_profiles)
    known = load_known_failures(known_failures) if known_failures else []
    cases = LazyCases(corpus, chosen, counts, builder)
    source = str(root) if root is not None else "the shipped corpus"
    if not cases:
        raise InputError(
            [],
            f"no case matches the selection ({plural(len(corpus_ids), 'transcript')} in {source})",
        )
    return Selection(documents, LazyTranscripts(corpus), cases, known, source, corpus_ids)


def stream_corpus(root: Path | None = None) -> tuple[LazyTranscripts, list[Problem]]:
    """``load_corpus(root)``, every file checked now, one at a time, and the transcripts
    read again when iterated (the memory of a few files, whatever the corpus)."""
    corpus = _Corpus(None, documents_context(None), filecache.cache_dir() is None)
    problems: list[Problem] = []
    for found, transcript in iter_corpus(root):
        problems += found
        if transcript is not None:
            corpus.add(transcript.file, transcript)
    return LazyTranscripts(corpus), problems


def _selected(
    transcript: Transcript, only: Callable[[str], bool] | None, clauses: Sequence[str]
) -> bool:
    """Whether ``transcript`` is selected, as ``select_transcripts`` would select it."""
    if only is not None and not only(transcript.id):
        return False
    return not clauses or any(matches(p, c) for p in clauses for c in transcript.clauses)


__all__ = [
    "Case",
    "CaseBuilder",
    "InputError",
    "LazyCases",
    "LazyTranscripts",
    "Selection",
    "build_cases",
    "id_selector",
    "load_selection",
    "matches",
    "select_transcripts",
    "setup_refusal",
    "unplayable_reason",
]
