"""``jhyap export``: the corpus as plain JSON files, for a port's own test runner.

One file per transcript, ``<id>.json``: its header and, for each profile it runs under,
the case fully expanded into protocol requests with their expectations. ``index.json``
lists the files, maps clauses to transcripts and states the comparison rules, so that a
runner needs nothing else. The output is deterministic: sorted keys, the corpus order.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from . import COMMAND_HELP, ExitCode, Subparsers


def register(subparsers: Subparsers[argparse.ArgumentParser]) -> None:
    """Add the ``export`` subcommand."""
    parser = subparsers.add_parser(
        "export",
        help=COMMAND_HELP["export"],
        description="Write every transcript as <id>.json, fully expanded into protocol "
        "requests with their expectations per profile, and index.json with the file list, "
        "the clause map and the comparison rules, for engines tested by their own test "
        "runner.",
    )
    parser.add_argument("directory", metavar="DIR", help="where to write (created if missing)")
    parser.add_argument("--format", choices=("json",), default="json", help="json (the default)")
    parser.add_argument(
        "--transcripts",
        metavar="DIR",
        help="the transcripts to export (default: the shipped corpus)",
    )
    parser.add_argument(
        "--profile",
        action="append",
        default=[],
        metavar="P",
        help="only cases under this profile (repeatable, or comma-separated): a shipped id, "
        "or the path of your own profile file",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace files in DIR that a previous export did not write",
    )
    parser.set_defaults(run=run)


def _fail(message: str) -> int:
    print(f"jhyap export: {message}", file=sys.stderr)
    return ExitCode.ERROR


def run(args: argparse.Namespace) -> int:
    """Write the export; 0 on success, 2 for invalid input or an unwritable directory."""
    # lazy: start-up speed
    from conformance.harness.runner import InputError, load_selection
    from conformance.reporting.export import (
        INDEX,
        dumps,
        index_json,
        stage,
        stale_files,
        transcript_ids,
    )
    from conformance.spec.data import transcripts_dir
    from conformance.spec.files import WriteRefused, check_target, os_error_text, write_atomic
    from conformance.spec.wording import plural

    try:
        selection = load_selection(args.transcripts, args.profile)
    except InputError as exc:
        for line in exc.lines("jhyap export"):
            print(line, file=sys.stderr)
        return ExitCode.ERROR
    cases, transcripts, documents = selection.cases, selection.transcripts, selection.documents
    root = Path(args.transcripts) if args.transcripts else None
    base = root if root is not None else transcripts_dir()
    corpus = args.transcripts if args.transcripts else "the shipped corpus"
    folder = Path(args.directory)
    names = {f"{tid}.json" for tid in transcript_ids(transcripts)} | {INDEX}
    if folder.exists() and not folder.is_dir():
        return _fail(f"{folder} exists and is not a directory; nothing was written")
    created = not folder.exists()
    staging: Path | None = None
    try:
        stale = stale_files(folder, names, args.force)
        folder.mkdir(parents=True, exist_ok=True)
        # Each file is staged as it is made, and moved in once all are: a case that cannot
        # be resolved, found half-way, still leaves nothing written.
        staging = Path(tempfile.mkdtemp(prefix=".jhyap-export-", dir=folder))
        written, problems = stage(cases, base, staging)
        if problems:
            for line in problems:
                print(line, file=sys.stderr)
            return _fail("some cases cannot be resolved; nothing was written")
        for entry in written:
            name = f"{entry.id}.json"
            check_target(folder / name)
            os.replace(staging / name, folder / name)
        write_atomic(folder / INDEX, dumps(index_json(written, documents, corpus)))
        kept = {f"{entry.id}.json" for entry in written}
        for path in stale:
            if path.name not in kept:
                path.unlink(missing_ok=True)
    except WriteRefused as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"cannot write to {folder}: {os_error_text(exc)}")
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        if created and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()  # made for an export that wrote nothing
    print(
        f"wrote {plural(len(written), 'transcript')} "
        f"({plural(sum(len(e.profiles) for e in written), 'case')}) "
        f"and {INDEX} to {folder}"
        + (f"; removed {plural(len(stale), 'stale file')}" if stale else "")
    )
    return ExitCode.OK
