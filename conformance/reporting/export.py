"""The corpus written as plain JSON files (``jhyap export``): every transcript expanded into
protocol requests with their expectations per profile, and index.json."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from jhyap_core import bounded_json
from jhyap_core.vocabulary import PROTOCOL_VERSION, Command

from ..harness.cases import LazyTranscripts
from ..harness.compare import (
    PER_SEAT_FIELDS,
    PER_SEAT_SET_FIELDS,
    SET_FIELDS,
    SUBSET_FIELDS,
)
from ..harness.derive import Mode
from ..harness.replay import SKIP_CODES, start_message
from ..harness.runner import Case
from ..spec import yamlsafe
from ..spec.files import WriteRefused, check_target
from ..spec.steps import Step, Transcript, raw_line
from .coverage import coverage

FORMAT: Final = "jhyap-conformance-export"
FORMAT_VERSION: Final = 1
INDEX: Final = "index.json"

DESCRIPTION: Final = (
    "The Jhyap conformance corpus as plain JSON, for engines tested by their own test "
    "runner. Each <id>.json holds one transcript: its header, and under cases one entry "
    "per profile it runs under. A case is replayed on a connected engine (after hello) by "
    "sending its steps' requests in order, each with an integer seq, and comparing each "
    "answer with the step's expectation as the rules under compare say. The first request "
    "of every case is start; its profile field is the resolved profile. A case passes when "
    "every step meets its expectation; it stops at the first that does not. "
    "See docs/protocol.md for the messages and docs/transcripts.md for the transcripts."
)


def compare_rules() -> dict[str, Any]:
    """How a runner compares answers with expectations (docs/transcripts.md), as data."""
    return {
        "hello": 'Before the first case, send {"cmd": "hello", "protocol": "'
        + PROTOCOL_VERSION
        + '"}; one engine process may play case after case, as start replaces any game.',
        "seq": "Number the requests yourself: every request carries an integer seq that its "
        "answer echoes.",
        "expect.accepted": "true: the answer has ok true.",
        "expect.events": "The answer's events has exactly as many events as listed, in the "
        "same order, each with the listed fields (see values); an expected event lists only "
        "the fields it checks.",
        "expect.starter": "The answer's round_started event has this starter.",
        "expect.error": "The answer has ok false and error.code equal to this code. For every "
        'step but start, also send {"cmd": "state"} just before and just after the request: '
        "the two states must be equal (fields whose names start with x- aside).",
        "check": 'Send the step\'s request, {"cmd": "state"}, and compare only the fields the '
        "check names with the answer's state, by the rules under check_fields and values.",
        "line": "Instead of a request, a step may give line: write this text as it is, plus a "
        "newline, as the request of that seq (it need not be JSON; count the seq as used).",
        "oversize": "Instead of a request, a step may give oversize N: write the request "
        '{"seq": S, "cmd": "state"} padded with spaces before its closing brace to exactly N '
        "bytes, S being the seq of that step.",
        "expect.seq": "The answer's seq must equal this (null included); without it, the "
        "answer echoes the seq of the request.",
        "expect.legal": "The answer's legal equals this exactly, lists in order.",
        "fresh_engine": "A case with fresh_engine true runs on a new engine process, greeted "
        "with hello, and its first step is not a start: before a start, the state before and "
        "after a refusal is itself a refusal, which must carry the same code.",
        "check_fields": {
            "per_seat": sorted(PER_SEAT_FIELDS),
            "per_seat_rule": "A list gives every seat's value, an object only the seats it "
            'names (keys are seat numbers as strings: {"1": 63} checks seat 1).',
            "sets": sorted(SET_FIELDS),
            "per_seat_sets": sorted(PER_SEAT_SET_FIELDS),
            "sets_rule": "Compared as sets: the same elements, in any order. For per_seat_sets, "
            "each seat's value is such a set.",
            "subsets": sorted(SUBSET_FIELDS),
            "subsets_rule": "Objects: only the keys given are compared (see values).",
            "settlement": "Not a state field: compared with state.result.settlement.",
        },
        "values": "An expected object lists only the keys it checks, at every depth; a list is "
        "compared whole, element by element in order; numbers compare by value (2 equals "
        "2.0); true and false equal only themselves, never 1 or 0; fields of the engine's "
        "objects whose names start with x- are ignored.",
        "outcomes": {
            "skipped": "The case is skipped, not failed, when the engine does not list a "
            "feature of requires in hello's supports (legal in supports.commands, timeout in "
            "supports.actions), or answers a request with one of "
            + ", ".join(sorted(SKIP_CODES))
            + " (unless that is the expected error).",
            "errored": "An answer of internal_error, an engine that exits or stops answering, "
            "or a line on standard output that is not the answer.",
        },
    }


def _source(transcript: Transcript, root: Path, line: int) -> str:
    try:
        name = transcript.file.relative_to(root).as_posix()
    except ValueError:
        name = transcript.file.name
    return f"{name}:{line}"


def case_json(case: Case, root: Path) -> dict[str, Any]:
    """One case: its profile and every request with its expectation and source line."""
    transcript = case.transcript
    assert case.resolved is not None
    start: dict[str, Any] = {
        "source": _source(transcript, root, transcript.line),
        "request": start_message(transcript, case.resolved),
        "expect": (
            {"error": transcript.start_error}
            if transcript.start_error is not None
            else {"accepted": True}
        ),
    }
    steps = [] if transcript.fresh_engine else [start]
    raw_steps = transcript.raw.get("steps") or []
    for step in transcript.steps:
        entry: dict[str, Any] = {"source": _source(transcript, root, step.line)}
        if step.kind == "check":
            entry["request"] = {"cmd": Command.STATE}
            entry["check"] = dict(step.check or {})
        elif step.kind == "legal":
            entry["request"] = {"cmd": Command.LEGAL}
            entry["expect"] = {"accepted": True, "legal": step.legal}
        else:
            entry.update(_request(step, transcript, case.resolved))
            expect: dict[str, Any]
            if step.expect.error is not None:
                expect = {"error": step.expect.error}
            else:
                expect = {"accepted": True}
                if step.expect.events is not None:
                    expect["events"] = list(step.expect.events)
                if step.starter is not None:
                    expect["starter"] = step.starter
            if step.expect.seq_given:
                expect["seq"] = step.expect.seq
            entry["expect"] = expect
        note = raw_steps[step.index].get("note") if step.index < len(raw_steps) else None
        if note:
            entry["note"] = note
        steps.append(entry)
    case_entry: dict[str, Any] = {"profile": case.profile, "mode": case.mode.value}
    if case.note:
        case_entry["mode_note"] = case.note
    # A case the ruleset cannot play has no steps to send.
    case_entry["steps"] = [] if case.mode is Mode.NOT_APPLICABLE else steps
    if transcript.fresh_engine:
        case_entry["fresh_engine"] = True
    return case_entry


def _request(step: Step, transcript: Transcript, resolved: Mapping[str, Any]) -> dict[str, Any]:
    """How a step is sent: a request (seq added by the runner), a line, or an oversize line."""
    if step.kind == "start":
        message = start_message(transcript, resolved)
        if step.start_options is not None:
            message["options"] = dict(step.start_options)
        if step.start_seats is not None:
            message["seats"] = step.start_seats
        return {"request": message}
    if step.kind != "raw":
        assert step.request is not None
        return {"request": dict(step.request)}
    spec = step.raw or {}
    if "oversize" in spec:
        return {"oversize": spec["oversize"]}
    value = spec.get("json")
    if isinstance(value, dict) and "seq" not in value and spec.get("add_seq", True):
        return {"request": dict(value)}
    line, _ = raw_line(spec, 0)
    return {"line": line.decode("utf-8")}


def transcript_json(transcript: Transcript, cases: Sequence[Case], root: Path) -> dict[str, Any]:
    """The file of one transcript: its header and its cases."""
    return {
        "id": transcript.id,
        "title": transcript.title,
        "description": transcript.description,
        "kind": transcript.kind,
        "clauses": list(transcript.clauses),
        "seats": transcript.seats,
        "options": dict(transcript.options),
        "requires": list(transcript.requires),
        "start_error": transcript.start_error,
        "source": _source(transcript, root, transcript.line),
        "cases": [case_json(case, root) for case in cases],
    }


def index_json(
    written: Sequence[Written],
    documents: Mapping[str, Mapping[str, Any]],
    corpus: str,
) -> dict[str, Any]:
    """index.json: the files, the clause map, the protocol version and the rules."""
    clauses = {cid: entry["transcripts"] for cid, entry in coverage(documents, written).items()}
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "protocol": PROTOCOL_VERSION,
        "description": DESCRIPTION,
        "corpus": corpus,
        "files": [
            {"file": f"{t.id}.json", "id": t.id, "title": t.title, "profiles": list(t.profiles)}
            for t in written
        ],
        "clauses": clauses,
        "compare": compare_rules(),
    }


def dumps(value: Any) -> str:
    """The one JSON text of ``value``: sorted keys, two-space indent, UTF-8, final newline."""
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def previous_export(folder: Path, force: bool) -> set[str]:
    """The files a previous export listed in ``folder``'s index.json (none without one).

    WriteRefused (nothing written yet) for an index.json that export did not write
    (unless ``force``), or for an entry that is not a plain file name of ``folder``.
    """
    index = folder / INDEX
    if not check_target(index):
        return set()
    try:
        previous = bounded_json.loads(yamlsafe.read_regular_file(index))
    except (yamlsafe.YamlProblem, ValueError):
        previous = None
    if not isinstance(previous, dict) or previous.get("format") != FORMAT:
        if force:
            return set()
        raise WriteRefused(
            f"{index} was not written by jhyap export; nothing was written (--force replaces it)"
        )
    names: set[str] = set()
    for entry in previous.get("files") or []:
        name = entry.get("file") if isinstance(entry, dict) else None
        if not isinstance(name, str) or name in ("", ".", "..", INDEX) or Path(name).name != name:
            raise WriteRefused(
                f"{index}: entry {name!r} is not a file name of this directory; nothing was written"
            )
        names.add(name)
    return names


def is_own_transcript_file(path: Path) -> bool:
    """``path`` is a regular file holding what export writes for one transcript."""
    try:
        check_target(path)
        content = bounded_json.loads(yamlsafe.read_regular_file(path))
    except (OSError, yamlsafe.YamlProblem, ValueError):
        return False
    return isinstance(content, dict) and content.get("id") == path.stem and "cases" in content


def stale_files(folder: Path, names: set[str], force: bool) -> list[Path]:
    """Check that the export may write ``names`` into ``folder``; the stale files of the
    previous export to delete after. WriteRefused, before anything is written, for a
    file in the way that export did not write (unless ``force``)."""
    if folder.exists() and not folder.is_dir():
        raise WriteRefused(f"{folder} is not a directory")
    if not folder.exists():
        return []
    listed = previous_export(folder, force)
    for name in sorted(names):
        path = folder / name
        if check_target(path) and name != INDEX and name not in listed and not force:
            raise WriteRefused(
                f"{path} exists and was not written by jhyap export; nothing was written "
                "(--force replaces it)"
            )
    # Only files that still look like export's own are deleted: index.json may be planted.
    stale = [folder / name for name in sorted(listed - names)]
    return [path for path in stale if is_own_transcript_file(path)]


def transcript_ids(transcripts: Sequence[Transcript]) -> list[str]:
    """The ids of the selected transcripts, unread where the selection is lazy."""
    return (
        transcripts.ids if isinstance(transcripts, LazyTranscripts) else [t.id for t in transcripts]
    )


@dataclass(frozen=True)
class Written:
    """What the index says of a transcript written: no more is kept while exporting."""

    id: str
    title: str
    profiles: tuple[str, ...]
    clauses: tuple[str, ...]


def by_transcript(cases: Iterable[Case]) -> Iterator[list[Case]]:
    """The cases in runs of one transcript each (a selection lists a transcript's together)."""
    run: list[Case] = []
    for case in cases:
        if run and case.transcript.id != run[0].transcript.id:
            yield run
            run = []
        run.append(case)
    if run:
        yield run


def stage(cases: Iterable[Case], base: Path, staging: Path) -> tuple[list[Written], list[str]]:
    """Write each transcript's file into ``staging`` as its cases are built (one at a
    time: memory does not grow with the corpus); what was written, and the problems of
    cases that cannot be resolved (whose transcripts are not written)."""
    written: list[Written] = []
    problems: list[str] = []
    for group in by_transcript(cases):
        transcript = group[0].transcript
        unresolved = [c for c in group if c.resolved is None]
        problems += [f"{c.transcript.location()}: {c.problem}" for c in unresolved]
        if problems:
            continue  # nothing will be written: only the problems are still wanted
        path = staging / f"{transcript.id}.json"
        path.write_text(dumps(transcript_json(transcript, group, base)), encoding="utf-8")
        profiles = tuple(c.profile for c in group)
        written.append(Written(transcript.id, transcript.title, profiles, transcript.clauses))
    return written, problems
