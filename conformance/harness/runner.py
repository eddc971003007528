"""Running a selection of (transcript, profile) cases against an engine.

``--jobs N`` runs N worker threads, each with its own engine process, taking the next
case from a shared list; results come back in the selection's order whatever the
timing. One engine process serves case after case (a new ``start`` each); after a
crash, a timeout or a protocol violation it is killed and a fresh one started.
An engine that cannot complete the handshake ends the whole run (:class:`EngineUnusable`).
"""

from __future__ import annotations

import fnmatch
import json
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from reference_engine import bounded_json
from reference_engine.errors import JhyapError
from reference_engine.profile import resolve

from ..reporting.style import plural
from ..spec import yamlsafe
from ..spec.transcript import (
    Transcript,
    corpus_files,
    load_corpus,
    profiles_for,
    shipped_documents,
    with_profile_files,
)
from .client import EngineClient, EngineInfo, EngineUnusable
from .replay import (
    ERRORED,
    FAILED,
    NOT_PASSED,
    PASSED,
    XFAIL,
    XPASS,
    Outcome,
    credited_clauses,
    replay,
    schema_problems,
)
from .sandbox import EngineLimits

Progress = Callable[[Outcome], None]
XPASS_REASON = "unexpected pass: remove it from the known failures"


class InputError(Exception):
    """Input the run cannot use: ``problems`` are printed as they are (``file:line: ...``
    lines), then ``summary``, if any, after the command's name."""

    def __init__(self, problems: Sequence[str], summary: str | None = None) -> None:
        super().__init__("\n".join([*problems, *([summary] if summary else [])]))
        self.problems = list(problems)
        self.summary = summary

    def lines(self, command: str) -> list[str]:
        """What to print on standard error, one item a line."""
        return [*self.problems, *([f"{command}: {self.summary}"] if self.summary else [])]


@dataclass(frozen=True)
class Case:
    """One transcript under one profile, with the profile resolved once for it."""

    transcript: Transcript
    profile: str
    resolved: Mapping[str, Any] | None
    problem: str | None = None  # why the profile could not be resolved
    owned: frozenset[str] | None = None  # the profile's clause ids (outcomes credit only these)


@dataclass(frozen=True)
class KnownFailure:
    """An entry of the known-failures file."""

    id: str
    reason: str
    profile: str | None = None

    def matches(self, transcript_id: str, profile: str) -> bool:
        return self.id == transcript_id and self.profile in (None, profile)


@dataclass(frozen=True)
class RunConfig:
    """How to run: the engine command, its environment, and the run's options."""

    engine: str
    timeout: float = 10.0
    jobs: int = 1
    validate_protocol: bool = True  # check every response against schema/protocol/
    env: Mapping[str, str] | None = None
    known_failures: tuple[KnownFailure, ...] = ()
    limits: EngineLimits | None = None


@dataclass
class RunResult:
    """Every outcome, in the selection's order, and what the run learned on the way."""

    outcomes: list[Outcome]
    info: EngineInfo
    wall_time: float
    warnings: list[str] = field(default_factory=list)
    # What the run checked, per profile (conformance.spec.readings.claim, plus "text").
    claims: list[dict[str, Any]] = field(default_factory=list)


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
    """Every (transcript, profile) case, the profile resolved once per case."""
    unknown = [p for p in profiles if p not in documents]
    if unknown:
        raise InputError(
            [
                f"unknown profile {p!r}; shipped profiles: {', '.join(sorted(documents))}"
                for p in unknown
            ]
        )
    cache: dict[tuple[str, str], tuple[Mapping[str, Any] | None, str | None]] = {}
    owned = {
        pid: frozenset(str(c["id"]) for c in doc.get("clauses") or [])
        for pid, doc in documents.items()
    }
    cases = []
    for transcript in transcripts:
        for pid in profiles_for(transcript, documents):
            if profiles and pid not in profiles:
                continue
            key = (pid, json.dumps(transcript.options, sort_keys=True))
            if key not in cache:
                try:
                    cache[key] = (resolve(documents[pid], transcript.options), None)
                except JhyapError as exc:
                    cache[key] = (
                        None,
                        f"cannot resolve {pid} with the transcript's options: {exc.message}",
                    )
            resolved, problem = cache[key]
            cases.append(Case(transcript, pid, resolved, problem, owned[pid]))
    return cases


# -- known failures -------------------------------------------------------------------


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


def read_data_file(path: Path, what: str) -> Any:
    """The data of a YAML file (JSON for ``*.json``); InputError saying why there is none."""
    where = str(path)
    if not path.exists():  # the strict reader would only say "cannot read file"
        raise InputError([f"{where}: no such file (the {what})"])
    try:
        if path.suffix == ".json":
            raw = yamlsafe.read_regular_file(path)
            if len(raw) > yamlsafe.MAX_BYTES:
                raise ValueError(f"file is larger than {yamlsafe.MAX_BYTES} bytes")
            return bounded_json.loads(raw.decode("utf-8"))
        return yamlsafe.load(path).data
    except FileNotFoundError:
        raise InputError([f"{where}: no such file (the {what})"]) from None
    except OSError as exc:
        raise InputError([f"{where}: cannot read the {what}: {exc.strerror}"]) from None
    except yamlsafe.YamlProblem as exc:
        raise InputError([f"{exc}"]) from None
    except ValueError as exc:
        raise InputError(
            [f"{where}: not valid {path.suffix.lstrip('.') or 'YAML'}: {exc}"]
        ) from None


def data_entries(
    path: Path,
    what: str,
    keys: Sequence[str],
    needed: str,
    check: Callable[[str, Mapping[str, Any]], list[str]],
) -> tuple[list[Mapping[str, Any]], list[str]]:
    """The entries of a data file holding a list of mappings that ``check`` finds no fault
    with, and every problem in file order: an entry that is not a mapping (``needed`` says
    what it must hold), an unknown key, what ``check(place, entry)`` says. InputError if the
    file holds no list."""
    where = str(path)
    content = read_data_file(path, what)
    if content is None:
        return [], []
    if not isinstance(content, list):
        raise InputError([f"{where}: expected a list of {{{', '.join(keys)}}} entries"])
    entries: list[Mapping[str, Any]] = []
    problems: list[str] = []
    for i, item in enumerate(content, start=1):
        at = f"{where}: entry {i}"
        if not isinstance(item, dict):
            problems.append(f"{at}: expected a mapping with {needed}")
            continue
        extra = sorted(str(k) for k in item if k not in keys)
        if extra:
            problems.append(f"{at}: unknown key {', '.join(extra)}")
        faults = check(at, item)
        problems += faults
        if not faults:
            entries.append(item)
    if len(problems) > _MAX_PROBLEMS:
        problems[_MAX_PROBLEMS:] = [f"{where}: ... and {len(problems) - _MAX_PROBLEMS} more"]
    return entries, problems


def _known_failure_faults(at: str, item: Mapping[str, Any]) -> list[str]:
    faults = []
    ident, reason, profile = item.get("id"), item.get("reason"), item.get("profile")
    if not isinstance(ident, str) or not ident:
        faults.append(f"{at}: id must be a transcript id")
    if not isinstance(reason, str) or not reason.strip():
        faults.append(f"{at}: reason must say why it fails")
    if profile is not None and not isinstance(profile, str):
        faults.append(f"{at}: profile must be a profile id")
    return faults


def load_known_failures(path: str | Path) -> list[KnownFailure]:
    """The entries of a known-failures file (YAML, or JSON for ``*.json``)."""
    items, problems = data_entries(
        Path(path),
        "known failures",
        ("id", "profile", "reason"),
        "id and reason",
        _known_failure_faults,
    )
    if problems:
        raise InputError(problems)
    return [KnownFailure(item["id"], item["reason"], item.get("profile")) for item in items]


_MAX_PROBLEMS = 20


def known_failure_warnings(
    known: Iterable[KnownFailure],
    transcripts: Iterable[Transcript | str],
    profile_ids: Iterable[str],
) -> list[str]:
    """Entries naming a transcript (given, or its id) or profile that does not exist."""
    ids = {t if isinstance(t, str) else t.id for t in transcripts}
    profiles = set(profile_ids)
    warnings = []
    for entry in known:
        if entry.id not in ids:
            warnings.append(f"known failures: no transcript {entry.id!r}")
        elif entry.profile is not None and entry.profile not in profiles:
            warnings.append(f"known failures: {entry.id}: no profile {entry.profile!r}")
    return warnings


def apply_known_failure(outcome: Outcome, known: Sequence[KnownFailure]) -> Outcome:
    """A listed case that fails is xfail; one that passes is xpass."""
    entry = next((k for k in known if k.matches(outcome.transcript_id, outcome.profile)), None)
    if entry is None:
        return outcome
    if outcome.status in NOT_PASSED:
        return replace(outcome, status=XFAIL, known_failure=entry.reason)
    if outcome.status == PASSED:
        return replace(outcome, status=XPASS, known_failure=entry.reason, reason=XPASS_REASON)
    return outcome


# -- running ------------------------------------------------------------------------


class EngineWorker:
    """One engine process, restarted when it can no longer be trusted."""

    def __init__(self, config: RunConfig) -> None:
        self.config = config
        self.client: EngineClient | None = None
        self.info: EngineInfo | None = None

    def connect(self) -> tuple[EngineClient, EngineInfo]:
        if self.client is None or self.info is None:
            client = EngineClient(
                self.config.engine,
                timeout=self.config.timeout,
                env=self.config.env,
                limits=self.config.limits,
            )
            try:
                self.info = client.handshake()
            except BaseException:
                client.close(graceful=False)
                raise
            self.client = client
        return self.client, self.info

    def run(self, case: Case) -> Outcome:
        t = case.transcript
        if case.resolved is None:
            return Outcome(
                FAILED,
                t.id,
                case.profile,
                clauses=credited_clauses(t.clauses, case.owned),
                file=str(t.file),
                line=t.line,
                step=0,
                step_description="start",
                reason=case.problem or "the profile cannot be resolved",
            )
        if t.fresh_engine:
            self.close()  # the transcript is about an engine that has seen no start yet
        client, info = self.connect()
        outcome = replay(
            client,
            info,
            t,
            case.profile,
            case.resolved,
            validate_protocol=self.config.validate_protocol,
            owned=case.owned,
        )
        if client.broken is not None or not client.alive:
            self.close()
        return apply_known_failure(outcome, self.config.known_failures)

    def close(self, *, graceful: bool = True) -> None:
        if self.client is not None:
            client, self.client = self.client, None
            client.close(graceful=graceful and client.broken is None)


_Item = TypeVar("_Item")


def run_each(work: Callable[[_Item], None], items: Sequence[_Item], name: str) -> None:
    """``work`` on every item: in this thread for a single item, else one thread each (named
    ``name-i``), all joined before returning."""
    if len(items) == 1:
        work(items[0])
        return
    threads = [
        threading.Thread(target=work, args=(item,), name=f"{name}-{i}", daemon=True)
        for i, item in enumerate(items)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def run_cases(
    cases: Sequence[Case], config: RunConfig, progress: Progress | None = None
) -> RunResult:
    """Run every case; raise EngineUnusable when the engine cannot even be greeted."""
    began = time.monotonic()
    jobs = max(1, min(config.jobs, len(cases) or 1))
    workers = [EngineWorker(config) for _ in range(jobs)]
    results: list[Outcome | None] = [None] * len(cases)
    lock = threading.Lock()
    position = iter(range(len(cases)))
    stop = threading.Event()
    failures: list[BaseException] = []

    def work(worker: EngineWorker) -> None:
        try:
            while not stop.is_set():
                with lock:
                    index = next(position, None)
                if index is None:
                    return
                outcome = worker.run(cases[index])
                with lock:
                    results[index] = outcome
                    if progress is not None:
                        progress(outcome)
        except BaseException as exc:  # EngineUnusable, or a harness bug: end the run
            with lock:
                failures.append(exc)
            stop.set()
        finally:
            worker.close()

    warnings: list[str] = []
    try:
        # Greet the first engine here, so an unusable engine stops the run at once.
        _, info = workers[0].connect()
        if config.validate_protocol:
            warnings += [
                f"the hello answer breaks the protocol schema: {p}"
                for p in schema_problems("hello", info.raw)
            ]
        run_each(work, workers, "jhyap-worker")
    finally:
        # Normally each worker has closed its engine already. When we get here through
        # an exception (Ctrl-C), a worker thread may be mid-request: just kill engines.
        stop.set()
        for worker in workers:
            worker.close(graceful=False)
    if failures:
        unusable = [f for f in failures if isinstance(f, EngineUnusable)]
        raise (unusable or failures)[0]
    outcomes = [o for o in results if o is not None]
    if len(outcomes) != len(cases):  # only if a worker died without saying why
        raise RuntimeError("some cases were not run")
    return RunResult(outcomes, info, time.monotonic() - began, warnings)


def unusable_result(cases: Sequence[Case], reason: str) -> RunResult:
    """The result of a run whose engine could not be greeted: every case errored."""
    outcomes = [
        Outcome(
            ERRORED,
            case.transcript.id,
            case.profile,
            clauses=case.transcript.clauses,
            file=str(case.transcript.file),
            line=case.transcript.line,
            step=0,
            step_description="hello",
            reason=f"the engine is unusable: {reason}",
        )
        for case in cases
    ]
    return RunResult(outcomes, EngineInfo(engine={}, protocol="", supports={}), 0.0)


def exit_status(outcomes: Iterable[Outcome]) -> int:
    """0 when every case passed, was skipped or is a known failure; else 1."""
    return 0 if all(o.ok for o in outcomes) else 1


__all__ = [
    "ERRORED",
    "XFAIL",
    "XPASS",
    "XPASS_REASON",
    "Case",
    "InputError",
    "KnownFailure",
    "RunConfig",
    "RunResult",
    "apply_known_failure",
    "build_cases",
    "exit_status",
    "id_selector",
    "known_failure_warnings",
    "load_known_failures",
    "matches",
    "run_cases",
    "select_transcripts",
    "unusable_result",
]
