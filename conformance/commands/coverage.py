"""``jhyap coverage``: which clauses of the shipped profiles the transcripts test."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from conformance.reporting.outputs import COVERAGE_JSON, FORCE_HELP
from conformance.spec.files import STDOUT, os_error_text, write_report

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


def _run_profile(args: argparse.Namespace) -> int:
    # lazy: start-up speed
    from conformance.harness.cases import InputError, load_selection
    from conformance.reporting.coverage import MODE_ORDER, ruleset_coverage
    from conformance.reporting.modes import MODE_WORDS
    from conformance.spec.wording import plural

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


def run(args: argparse.Namespace) -> int:
    """Print the coverage; exit 1 if a clause is uncovered."""
    # lazy: start-up speed
    from conformance.harness.cases import stream_corpus
    from conformance.reporting.coverage import coverage, reading_coverage
    from conformance.spec.data import DataNotFound
    from conformance.spec.profiles import ProfileFileError
    from conformance.spec.protocol import ProtocolClausesError, protocol_clause_ids
    from conformance.spec.transcript_profiles import shipped_documents
    from conformance.spec.wording import plural

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
