"""Transcripts: scripted hands with the outcomes the rules demand (docs/transcripts.md)."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import data, filecache, protocol, yamlsafe
from .deal_layout import with_deal_layouts
from .decks import Deck, left_out_symbols
from .profiles import Problem, stringify_keys
from .steps import Transcript, build_step
from .transcript_checks import StepProblems, semantic_problems, step_problems
from .transcript_profiles import Documents, shipped_documents

if TYPE_CHECKING:  # imported when a transcript is checked, not to read a cached one
    import jsonschema

    from .schema_check import SchemaCheck


class TranscriptError(Exception):
    def __init__(self, problems: Sequence[Problem]) -> None:
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = list(problems)


@cache
def _schema_validator() -> jsonschema.protocols.Validator:
    # lazy: start-up speed
    import jsonschema

    schema = json.loads((data.schema_dir() / "transcript.schema.json").read_text("utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)


@cache
def _schema_check() -> SchemaCheck:
    # lazy: start-up speed
    from .schema_check import schema_check

    return schema_check(_schema_validator())


def _schema_problems(doc: yamlsafe.YamlDocument, value: Any) -> list[Problem]:
    errors = _schema_check().errors(value)
    problems = []
    for error in sorted(errors, key=lambda e: list(e.path)):
        path = [p for p in error.path]
        where = yamlsafe.format_path(path) or "(top)"
        problems.append(Problem(doc.file, doc.line(path), where, _schema_message(error)))
    return problems


def _schema_message(error: jsonschema.ValidationError) -> str:
    if error.validator == "additionalProperties":
        return error.message.replace("Additional properties are not allowed", "unknown key")
    if error.validator == "anyOf" and not error.absolute_path:
        return "needs 'profiles', 'where' or both (profiles narrowed by where)"
    if error.validator == "oneOf" and isinstance(error.instance, dict):
        return (
            "expected exactly one step kind (deal, act, reshuffle, set_option, end_game, "
            "check, raw, legal, start), or one form of it"
            if "steps" in str(error.absolute_path) or error.absolute_path
            else f"needs exactly one of 'profiles' or 'where': {error.message}"
        )
    return error.message


def load_transcript(path: str | Path, documents: Documents | None = None) -> Transcript:
    """Load and validate one transcript file; TranscriptError lists every problem."""
    problems, transcript = _load(Path(path), documents)
    if problems or transcript is None:
        raise TranscriptError(problems)
    return transcript


def check_transcript_file(
    path: str | Path,
    documents: Documents | None = None,
    *,
    doc: yamlsafe.YamlDocument | None = None,
    context: str | None = None,
) -> list[Problem]:
    """Every problem of one transcript file; ``documents`` default to the shipped profiles.

    ``doc``: the file, already loaded; ``context``: ``documents_context(documents)``,
    computed once for many files."""
    return _load(Path(path), documents, context, doc)[0]


def documents_context(documents: Documents | None) -> str | None:
    """What a transcript's check depends on besides its file: the profiles and the protocol
    clauses (None when they cannot be loaded: the check reports that, and nothing is
    cached)."""
    try:
        profiles = _shipped_fingerprint() if documents is None else filecache.fingerprint(documents)
        return f"{profiles}:{filecache.fingerprint(list(protocol.protocol_clause_ids()))}"
    except Exception:
        return None


@cache
def _shipped_fingerprint() -> str:
    return filecache.fingerprint(shipped_documents())


def _load(
    path: Path,
    documents: Documents | None = None,
    context: str | None = None,
    doc: yamlsafe.YamlDocument | None = None,
) -> tuple[list[Problem], Transcript | None]:
    """The problems of one transcript file and, when there are none, the transcript.

    A file that checked clean before, with the same bytes, path and profiles, comes
    from the cache (:mod:`conformance.spec.filecache`) without being parsed again."""
    entry = None
    known: _Known | None = None
    where = os.path.abspath(path)
    kept_as = (os.fspath(path), where)  # a transcript names its file as it was given
    content = filecache.read_file(path)
    if content is not None:
        if context is None:
            context = documents_context(documents)
        known = _MEMO.get(kept_as, content)
        if known is not None and context is not None and context in known.clean:
            return [], known.transcript
        if context is not None:
            # The absolute path: validate and run name the same file differently, one entry.
            entry = filecache.key("transcript", content, where, context)
        if known is not None and known.doc is not None:
            return _check_known(known, documents, context, entry)
        if known is not None and entry is not None and filecache.holds(entry, content):
            # Clean under this context too; the same bytes make the same transcript.
            assert context is not None
            known.clean.add(context)
            return [], known.transcript
        hit = filecache.get(entry, content) if entry is not None else None
        if isinstance(hit, dict):
            try:
                transcript = _transcript(path, hit["value"], hit["line"], hit["steps"])
            except (KeyError, TypeError, ValueError, IndexError):
                pass  # an entry this code does not understand: check afresh
            else:
                assert context is not None
                known = _Known(content, None, hit["value"], transcript, hit["steps"])
                _MEMO.put(kept_as, known)
                known.clean.add(context)
                return [], known.transcript
    parsed = None
    if doc is None and content is not None:
        # Parsed and schema-checked before, whatever the profiles: only the checks that
        # read the profiles run again (a run under another ruleset rereads no YAML).
        parsed = filecache.key("transcript-parsed", content, where)
        hit = filecache.get(parsed, content)
        if isinstance(hit, dict):
            with contextlib.suppress(KeyError, TypeError, ValueError, AttributeError):
                doc = yamlsafe.document_from_tree(os.fspath(path), hit["value"], hit["lines"])
    if doc is not None and parsed is not None:
        value = doc.data  # cached as checked
    else:
        if doc is None:
            try:
                doc = yamlsafe.load(path)
            except yamlsafe.YamlProblem as exc:
                return [Problem(exc.file, exc.line, "(file)", exc.message)], None
        value = stringify_keys(doc.data)
        if not isinstance(value, dict):
            return [Problem(doc.file, 1, "(top)", "a transcript is a mapping")], None
        problems = _schema_problems(doc, value)
        if problems:
            return problems, None
        if parsed is not None:
            tree = yamlsafe.document_tree(doc)
            filecache.put(parsed, {"value": value, "lines": tree}, content)
    step_lines = [doc.line(["steps", i]) for i in range(len(value.get("steps") or []))]
    transcript = _transcript(path, value, doc.line(["id"]), step_lines)
    if content is not None:
        clean = set(known.clean) if known is not None else set()
        known = _Known(content, doc, value, transcript, step_lines, clean)
        _MEMO.put(kept_as, known)
        return _check_known(known, documents, context, entry)
    problems = semantic_problems(doc, value, transcript, documents)
    return problems, (None if problems else transcript)


@dataclass
class _Known:
    """A transcript file parsed and schema-checked in this process, and the contexts
    (``documents_context``) under which it checked clean."""

    content: bytes
    doc: yamlsafe.YamlDocument | None  # None: read from a cache entry of the whole check
    value: dict[str, Any]
    transcript: Transcript
    step_lines: list[int]
    clean: set[str] = field(default_factory=set)
    steps_found: StepProblems | None = None  # transcript_checks.step_problems, once found
    payload: bytes | None = None  # its cache entry's value (filecache.encode), once encoded


class _Memo:
    """The transcript files this process parsed, by the path given and the absolute path
    (a transcript names its file as it was given), the most recently used kept up to a
    bound on their bytes: a process that loads the corpus again (under another ruleset)
    neither parses nor reads the cache again. Off with the cache (``JHYAP_CACHE_DIR=off``):
    then every load parses."""

    def __init__(self, bound: int) -> None:
        self.bound = bound
        self._known: OrderedDict[tuple[str, str], _Known] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, path: tuple[str, str], content: bytes) -> _Known | None:
        if self.bound <= 0 or filecache.cache_dir() is None:
            return None
        with self._lock:
            known = self._known.get(path)
            if known is None or known.content != content:
                return None
            self._known.move_to_end(path)
            return known

    def put(self, path: tuple[str, str], known: _Known) -> None:
        if len(known.content) > self.bound or filecache.cache_dir() is None:
            return
        with self._lock:
            old = self._known.pop(path, None)
            self._size += len(known.content) - (len(old.content) if old else 0)
            self._known[path] = known
            while self._size > self.bound:
                _, dropped = self._known.popitem(last=False)
                self._size -= len(dropped.content)

    def clear(self) -> None:
        with self._lock:
            self._known.clear()
            self._size = 0


# Nothing kept unless the process asks (``keep_parsed``): a command reads each file once,
# and a parsed file holds several times its bytes, so keeping them would make its memory
# grow with the corpus up to the bound.
_MEMO = _Memo(0)


def keep_parsed(bound: int) -> None:
    """Keep the transcript files this process parses, the most recently used up to
    ``bound`` bytes of source (0: none, the default), for a process that loads the same
    corpus many times (under many rulesets, as the test suite does)."""
    _MEMO.bound = bound
    if bound <= 0:
        _MEMO.clear()


def _check_known(
    known: _Known, documents: Documents | None, context: str | None, entry: str | None = None
) -> tuple[list[Problem], Transcript | None]:
    """The problems of a parsed file under ``documents``: none when it checked clean under
    the same context before (``entry``: the cache entry to write when clean)."""
    if context is not None and context in known.clean:
        return [], known.transcript
    assert known.doc is not None
    if known.steps_found is None:
        # They read no profile: found once, however many rulesets the file is checked under.
        known.steps_found = step_problems(known.value, known.transcript)
    problems = semantic_problems(
        known.doc, known.value, known.transcript, documents, known.steps_found
    )
    if problems:
        return problems, None
    if context is not None:
        known.clean.add(context)
        if entry is not None:
            if known.payload is None:
                # The same under every context it checks clean in: encoded once.
                value = {
                    "value": known.value,
                    "line": known.transcript.line,
                    "steps": known.step_lines,
                }
                known.payload = filecache.encode(value)
            filecache.put_encoded(entry, known.payload, known.content)
    return [], known.transcript


def load_checked(
    path: Path, documents: Documents | None, context: str | None
) -> tuple[list[Problem], Transcript | None]:
    """The problems of one transcript file and, when there are none, the transcript;
    ``context``: ``documents_context(documents)``, computed once for many files."""
    return _load(path, documents, context)


def _transcript(
    path: Path, value: dict[str, Any], line: int, step_lines: Sequence[int]
) -> Transcript:
    """The transcript of schema-valid data, with the lines of its id and of each step."""
    deck_raw = value.get("deck") or {}
    packs, jokers = int(deck_raw.get("packs", 1)), int(deck_raw.get("jokers", 0))
    left_out = left_out_symbols(deck_raw.get("left_out"))
    deck: Deck = (packs, jokers, left_out) if left_out else (packs, jokers)
    built = [build_step(i, r, step_lines[i], deck) for i, r in enumerate(value.get("steps") or [])]
    steps = with_deal_layouts(built, value["seats"])  # protocol 1.1: the deal's layout too
    return Transcript(
        id=value["id"],
        title=value["title"],
        kind=value["kind"],
        file=path,
        line=line,
        seats=value["seats"],
        clauses=tuple(value["clauses"]),
        steps=steps,
        profiles=tuple(value.get("profiles") or ()),
        where=value.get("where"),
        options=value.get("options") or {},
        requires=tuple(value.get("requires") or ()),
        description=value.get("description", ""),
        start_error=value.get("start_error"),
        raw=value,
        fresh_engine=bool(value.get("fresh_engine", False)),
        deck=deck,
    )


def rebuild(
    transcript: Transcript, value: dict[str, Any], lines: Sequence[int] | None = None
) -> Transcript:
    """``transcript`` made anew from changed data (same file and id line); ``lines``: the
    line of each step, by default those of the transcript's steps."""
    step_lines = list(lines) if lines is not None else [s.line for s in transcript.steps]
    return _transcript(transcript.file, value, transcript.line, step_lines)


def corpus_files(root: Path | None = None) -> list[Path]:
    """The transcript files under ``root`` (default: the shipped corpus), sorted: every
    ``*.yaml`` and ``*.yml`` file, as ``validate`` reads them and as profiles are named,
    so that every command reads the same files (a ``.yml`` transcript is run, exported
    and counted, not only validated)."""
    return data.files_under(root or data.transcripts_dir(), data.PROFILE_SUFFIXES)


def _is_regular_or_missing(path: Path) -> bool:
    """Whether ``path`` is a regular file (or cannot be looked at); a stat, never a read."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return True


def load_corpus(
    root: Path | None = None,
    documents: Documents | None = None,
    only: Callable[[str], bool] | None = None,
) -> tuple[list[Transcript], list[Problem]]:
    """Every transcript under ``root`` (default: the shipped corpus), and the problems found.

    With ``only``, just the files whose name (less ``.yaml``) it accepts are read: a
    transcript's id is its file name, so this selects transcripts by id unread."""
    transcripts: list[Transcript] = []
    problems: list[Problem] = []
    for found, transcript in iter_corpus(root, documents, only):
        problems.extend(found)
        if transcript is not None:
            transcripts.append(transcript)
    return transcripts, problems


def iter_corpus(
    root: Path | None = None,
    documents: Documents | None = None,
    only: Callable[[str], bool] | None = None,
) -> Iterator[tuple[list[Problem], Transcript | None]]:
    """``load_corpus`` one file at a time: the problems of each file read and, when it has
    none (and its id is new), its transcript; nothing is kept between files."""
    seen: dict[str, Path] = {}
    context = documents_context(documents)
    for path in corpus_files(root):
        if only is not None and not only(path.stem):
            if not _is_regular_or_missing(path):
                # refused even unselected: a FIFO or device in the corpus is bad input
                yield [Problem(str(path), 1, "(file)", "not a regular file")], None
            continue
        found, transcript = _load(path, documents, context)
        if transcript is not None and transcript.id in seen:
            problem = Problem(
                str(path),
                transcript.line,
                "id",
                f"id {transcript.id!r} is also used by {seen[transcript.id]}",
            )
            yield [*found, problem], None
            continue
        if transcript is not None:
            seen[transcript.id] = path
        yield found, transcript


__all__ = [
    "TranscriptError",
    "check_transcript_file",
    "corpus_files",
    "iter_corpus",
    "keep_parsed",
    "load_checked",
    "load_corpus",
    "load_transcript",
    "rebuild",
]
