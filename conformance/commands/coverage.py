"""``jhyap coverage``: which clauses of the shipped profiles the transcripts test."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from conformance.harness.cases import Case, InputError, load_selection, stream_corpus
from conformance.harness.derive import Mode
from conformance.reporting.modes import MODE_WORDS
from conformance.reporting.outputs import COVERAGE_JSON, FORCE_HELP
from conformance.spec import readings
from conformance.spec.data import DataNotFound
from conformance.spec.files import STDOUT, os_error_text, write_report
from conformance.spec.profiles import ProfileFileError
from conformance.spec.protocol import OWNER as PROTOCOL
from conformance.spec.protocol import ProtocolClausesError, protocol_clause_ids
from conformance.spec.steps import Transcript
from conformance.spec.transcript_profiles import profiles_for, shipped_documents
from conformance.spec.wording import plural

from . import COMMAND_HELP, ExitCode, Subparsers
from .checks import clashing_paths, report_file_problem


def register(subparsers: Subparsers[argparse.ArgumentParser]) -> None:
    """Add the ``coverage`` subcommand."""
    parser = subparsers.add_parser(
        "coverage",
        help=COMMAND_HELP["coverage"],
        description="Every clause of every shipped profile, and every protocol clause "
        "(specs/protocol/clauses.yaml), with the ids of the transcripts that list it, then "
        "every value of every reading (docs/readings.md) with the transcripts that test it.",
    )
    parser.add_argument(
        "--json",
        metavar="FILE",
        help="also write the coverage as JSON; - for standard output (the listing then goes "
        "to standard error)",
    )
    parser.add_argument("--force", action="store_true", help=FORCE_HELP)
    parser.add_argument(
        "--uncovered", action="store_true", help="list only the clauses no transcript tests"
    )
    parser.add_argument(
        "--transcripts",
        metavar="DIR",
        help="the transcripts to count (default: the shipped corpus)",
    )
    parser.add_argument(
        "--profile",
        metavar="PROFILE",
        help="the clauses of this ruleset only (a shipped id or a profile file), each with "
        "the transcripts that test it as written, derived (as the reference engine plays the "
        "ruleset) or not at all; exit 1 if one is tested by none",
    )
    parser.set_defaults(run=run)


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


def _run_profile(args: argparse.Namespace) -> int:
    try:
        selection = load_selection(args.transcripts, [args.profile])
    except InputError as exc:
        for line in exc.lines("jhyap coverage"):
            print(line, file=sys.stderr)
        return ExitCode.ERROR
    pid = next(iter(dict.fromkeys(c.profile for c in selection.cases)))
    report = ruleset_coverage(selection.cases, selection.documents[pid])
    listing = sys.stderr if args.json == STDOUT else sys.stdout
    clauses = report["clauses"]
    width = max((len(c) for c in clauses), default=0)
    for cid, ways in clauses.items():
        tested = ways["as_written"] or ways["derived"]
        if args.uncovered and tested:
            continue
        parts = [f"{MODE_WORDS[m]}: {', '.join(ways[m])}" for m in MODE_ORDER if ways[m]]
        print(f"{cid:<{width}}  {'; '.join(parts) or '(untested)'}", file=listing)
    counts = report["counts"]
    print(
        f"under {pid}: {plural(len(clauses), 'clause')}: {counts['as_written']} tested as "
        f"written, {counts['derived_only']} only derived, {counts['untested']} untested",
        file=listing,
    )
    if args.json and not _write_json(args.json, report, args.force):
        return ExitCode.ERROR
    return ExitCode.OK if counts["untested"] == 0 else ExitCode.FAILURES


def _write_json(path: str, report: Mapping[str, Any], force: bool) -> bool:
    """Write the JSON coverage (``-``: standard output); False, said, when it cannot be."""
    try:
        write_report(path, json.dumps(report, indent=2) + "\n", kind=COVERAGE_JSON, force=force)
    except OSError as exc:
        print(f"jhyap coverage: cannot write the JSON: {os_error_text(exc, path)}", file=sys.stderr)
        return False
    return True


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


def run(args: argparse.Namespace) -> int:
    """Print the coverage; exit 1 if a clause is uncovered."""
    clash = clashing_paths((("--json", args.json),), (("--profile", args.profile),))
    unwritable = report_file_problem(args.json, COVERAGE_JSON, args.force)
    if clash or unwritable:
        print(f"jhyap coverage: {clash or f'--json: {unwritable}'}", file=sys.stderr)
        return ExitCode.ERROR
    if args.profile is not None:
        return _run_profile(args)
    try:
        documents = shipped_documents()
        protocol_clause_ids()
    except (ProfileFileError, DataNotFound, ProtocolClausesError) as exc:
        print(f"jhyap coverage: the shipped clauses cannot be loaded: {exc}", file=sys.stderr)
        return ExitCode.ERROR
    root = Path(args.transcripts) if args.transcripts else None
    if root is not None and not root.is_dir():
        print(f"jhyap coverage: no such directory: {root}", file=sys.stderr)
        return ExitCode.ERROR
    transcripts, problems = stream_corpus(root)  # read again when iterated
    if problems:
        for problem in problems:
            print(problem, file=sys.stderr)
        count = plural(len(problems), "problem")
        print(f"jhyap coverage: {count} in the transcripts", file=sys.stderr)
        return ExitCode.ERROR
    table = coverage(documents, transcripts)
    covered = sum(1 for entry in table.values() if entry["transcripts"])
    width = max((len(c) for c in table), default=0)
    listing = sys.stderr if args.json == STDOUT else sys.stdout
    for cid, entry in table.items():
        ids = entry["transcripts"]
        if args.uncovered and ids:
            continue
        print(f"{cid:<{width}}  {', '.join(ids) if ids else '(uncovered)'}", file=listing)
    print(f"{covered}/{plural(len(table), 'clause')} covered", file=listing)
    rows = reading_coverage(documents, transcripts)
    tested = sum(1 for row in rows if row["transcripts"])
    width = max((len(f"{r['profile']} {r['reading']} = {r['choice']}") for r in rows), default=0)
    for row in rows:
        if args.uncovered and row["transcripts"]:
            continue
        label = f"{row['profile']} {row['reading']} = {row['choice']}"
        ids = ", ".join(row["transcripts"]) or "(untested)"
        own = "  [own reading]" if row["own"] else ""
        print(f"{label:<{width}}  {ids}{own}", file=listing)
    print(f"{tested}/{plural(len(rows), 'reading value')} tested", file=listing)
    if args.json:
        report = {"covered": covered, "total": len(table), "clauses": table, "readings": rows}
        if not _write_json(args.json, report, args.force):
            return ExitCode.ERROR
    complete = covered == len(table) and tested == len(rows)
    return ExitCode.OK if complete else ExitCode.FAILURES
