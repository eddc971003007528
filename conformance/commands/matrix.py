"""``jhyap matrix REPORT.json...``: the engines matrix of many run reports, as a folder of
static pages (conformance/site/matrix_pages.py) with matrix.json and a badge per cell."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from conformance.reporting.outputs import FORCE_HELP
from conformance.spec.wording import plural

from . import COMMAND_HELP, ExitCode, Subparsers
from .checks import path_text

DEFAULT_FOLDER = "jhyap-matrix"


def register(subparsers: Subparsers[argparse.ArgumentParser]) -> None:
    """Add the ``matrix`` subcommand."""
    parser = subparsers.add_parser(
        "matrix",
        help=COMMAND_HELP["matrix"],
        description="Read any number of `jhyap run --json` reports, of any engines and "
        "rulesets, and write a folder of static pages: index.html (engines by rulesets; each "
        "cell the cases passed as written and derived, failed and not applicable, and the "
        "engine's claim: the ruleset or variant and its declared readings), a page per engine "
        "under engines/ (its failures by clause), matrix.json (schema/matrix.schema.json) and "
        "a badge per engine and ruleset under badges/ for a README. One engine (the name and "
        "version of its hello answer) under one ruleset comes from one report. A file that "
        "is not a valid report is named, with its field, in one line.",
    )
    parser.add_argument(
        "reports",
        nargs="+",
        metavar="REPORT",
        type=path_text,
        help="a jhyap run --json report",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="DIR",
        default=DEFAULT_FOLDER,
        help=f"the folder to write (default {DEFAULT_FOLDER}); its last matrix is replaced",
    )
    parser.add_argument("--force", action="store_true", help=FORCE_HELP)
    parser.set_defaults(run=run)


def _fail(message: str) -> int:
    print(f"jhyap matrix: {message}", file=sys.stderr)
    return ExitCode.ERROR


# The files of a matrix folder named by its matrix.json: only these are ever removed.
_OWN_FILE = re.compile(r"(?:badges/[a-z0-9-]+\.svg|engines/[a-z0-9-]+\.html)")


def _pages_of(matrix_json: Path) -> set[str]:
    """The engine pages and badges the matrix.json at ``matrix_json`` lists."""
    try:
        data = json.loads(matrix_json.read_text("utf-8"))
        names = [f"engines/{e['slug']}.html" for e in data["engines"]]
        names += [c["badge"]["file"] for c in data["cells"]]
    except (OSError, ValueError, KeyError, TypeError):
        return set()
    return {n for n in names if isinstance(n, str) and _OWN_FILE.fullmatch(n)}


def run(args: argparse.Namespace) -> int:
    # lazy: start-up speed
    from conformance.reporting.matrix import ReportError, read_matrix
    from conformance.reporting.outputs import MATRIX_JSON
    from conformance.site.matrix_pages import site_files
    from conformance.spec.files import os_error_text, write_atomic

    try:
        matrix = read_matrix(args.reports)
    except ReportError as exc:
        return _fail(str(exc))
    folder = Path(args.output)
    previous = folder / "matrix.json"
    ours = previous.is_file() and MATRIX_JSON.is_one(previous)
    if folder.is_dir() and any(folder.iterdir()) and not ours and not args.force:
        return _fail(
            f"{folder}: a folder holding no jhyap matrix; not written into (--force writes into it)"
        )
    files = site_files(matrix)
    stale = _pages_of(previous) - set(files) if ours else set()
    try:
        for name, text in sorted(files.items()):
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(target, text)
        for name in sorted(stale):  # the last matrix's pages of engines and cells now gone
            (folder / name).unlink(missing_ok=True)
    except OSError as exc:
        return _fail(f"cannot write the matrix: {os_error_text(exc)}")
    failing = sum(1 for c in matrix.cells if c.failed)
    print(
        f"wrote {folder / 'index.html'}: {plural(len(matrix.engines), 'engine')} by "
        f"{plural(len(matrix.rulesets), 'ruleset')}, {plural(len(matrix.cells), 'cell')}, "
        f"{failing} with failures; {plural(len(files), 'file')}"
    )
    return ExitCode.OK
