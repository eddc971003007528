"""``jhyap merge FILE...``: the shards of one simulation or fuzz campaign, as one run."""

from __future__ import annotations

import argparse
import json
import sys

from conformance.reporting.outputs import FORCE_HELP, FUZZ_JSON, SIMULATE_JSON
from conformance.reporting.terminal import one_line

from . import COMMAND_HELP, ExitCode, Subparsers
from .checks import clashing_paths


def register(subparsers: Subparsers[argparse.ArgumentParser]) -> None:
    """Add the ``merge`` subcommand."""
    parser = subparsers.add_parser(
        "merge",
        help=COMMAND_HELP["merge"],
        description="Read the --json files that `jhyap simulate --shard K/N` or `jhyap fuzz "
        "--shard K/N` wrote, check that they are every shard of one run (the same profile, "
        "seed and settings, each shard once), and print and write the report that one run "
        "would have given. A simulation's figures come out exactly those of one run; a fuzz "
        "campaign's games, requests and counters add, and each divergence class keeps the "
        "finding of its lowest game. Exit status: as the run's (fuzz: 1 when a shard "
        "diverged), 2 when the files do not merge.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="a shard's --json file")
    parser.add_argument(
        "--json",
        metavar="FILE",
        help="write the merged report as JSON ('-': standard output, instead of the text)",
    )
    parser.add_argument("--force", action="store_true", help=FORCE_HELP)
    parser.set_defaults(run=run)


def _fail(message: str) -> int:
    print(f"jhyap merge: {message}", file=sys.stderr)
    return ExitCode.ERROR


def run(args: argparse.Namespace) -> int:
    # lazy: start-up speed
    from conformance.distributed.merge import SIMULATION, MergeError, fuzz_lines, merge_files
    from conformance.spec.files import STDOUT, os_error_text, write_report

    clash = clashing_paths((("--json", args.json),), tuple(("FILE", f) for f in args.files))
    if clash:
        return _fail(clash)
    argv = tuple(getattr(args, "argv", ("jhyap", "merge", *args.files)))
    try:
        merged = merge_files(args.files, argv)
    except MergeError as exc:
        return _fail(str(exc))
    report = merged.report
    if merged.format == SIMULATION:
        # lazy: start-up speed
        from conformance.simulation.stats import Tally

        # lazy: start-up speed
        from .simulate import figures_table

        status = int(ExitCode.OK)
        text = figures_table(report, Tally.from_json(report["tally"]).summary())
        dumped = json.dumps(report, indent=2, allow_nan=False) + "\n"
        kind = SIMULATE_JSON
    else:
        status = int(report["exit_status"])
        text = "\n".join(one_line(line) for line in fuzz_lines(report))
        dumped = json.dumps(report, indent=2, ensure_ascii=False) + "\n"
        kind = FUZZ_JSON
    if args.json:
        try:
            write_report(args.json, dumped, kind=kind, force=args.force)
        except OSError as exc:
            return _fail(f"cannot write the JSON: {os_error_text(exc, args.json)}")
        if args.json == STDOUT:
            return status
    print(text)
    return status
