"""``jhyap run``: replay the transcripts against an engine and report."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

from conformance.harness.client import EngineUnusable
from conformance.harness.runner import (
    InputError,
    RunConfig,
    exit_status,
    known_failure_warnings,
    load_selection,
    run_cases,
)
from conformance.reporting.report import (
    STDOUT,
    Progress,
    ReportContext,
    console_report,
    json_report,
    json_text,
    junit_report,
    os_error_text,
    print_lines,
    write_report,
)
from conformance.reporting.style import Style

from . import ExitCode, Subparsers

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent
DEFAULT_ENGINE_ARGV = (sys.executable, "-m", "reference_engine.server")


def default_engine() -> str:
    """The bundled reference engine, as a command string (quoted for shlex)."""
    return shlex.join(DEFAULT_ENGINE_ARGV)


def default_engine_env() -> dict[str, str]:
    """The environment of the default engine: this checkout importable, whatever the cwd."""
    env = dict(os.environ)
    paths = [str(PROJECT_ROOT), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    return env


def register(subparsers: Subparsers[argparse.ArgumentParser]) -> None:
    """Add the ``run`` subcommand."""
    parser = subparsers.add_parser(
        "run",
        help="replay the transcripts against an engine",
        description="Replay the conformance transcripts against an engine over the JSON-lines "
        "protocol (docs/protocol.md). Prints a block for each case that did not pass, then "
        "a summary; colour on a terminal unless NO_COLOR is set (FORCE_COLOR forces it).",
    )
    parser.add_argument(
        "--engine",
        metavar="CMD",
        help="the engine command, split like a shell would (no expansion); "
        "default: the bundled reference engine, run by this Python "
        "(python -m reference_engine.server)",
    )
    parser.add_argument(
        "--profile",
        action="append",
        default=[],
        metavar="P",
        help="run only under this profile (repeatable, or comma-separated): a shipped id, "
        "or the path of your own profile file, which transcripts then select by its id",
    )
    parser.add_argument(
        "--clause",
        action="append",
        default=[],
        metavar="PATTERN",
        help="only transcripts testing a matching clause (fnmatch pattern, "
        "or a substring when it has no wildcard; repeatable)",
    )
    parser.add_argument(
        "-k",
        dest="ids",
        action="append",
        default=[],
        metavar="ID-PATTERN",
        help="only transcripts whose id matches (an exact id selects only that id; repeatable)",
    )
    parser.add_argument(
        "--json",
        metavar="FILE",
        help="write a JSON report (schema/report.schema.json); - for standard output",
    )
    parser.add_argument(
        "--junit",
        metavar="FILE",
        help="write a JUnit XML report (Jenkins junit-10.xsd); - for standard output",
    )
    parser.add_argument(
        "-q",
        "--quiet",
        dest="quiet",
        action="count",
        default=0,
        help="less output: no progress, one line per case that did not pass",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        dest="verbose",
        action="count",
        default=0,
        help="more output: add the tables by profile and by clause family",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="the time to wait for each response (default 10)",
    )
    parser.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=1,
        metavar="N",
        help="run N engines in parallel (default 1)",
    )
    parser.add_argument(
        "--known-failures",
        metavar="FILE",
        help="YAML or JSON list of {id, profile (optional), reason}",
    )
    parser.add_argument(
        "--transcripts", metavar="DIR", help="the transcripts to run (default: the shipped corpus)"
    )
    parser.add_argument(
        "--validate-protocol",
        action="store_true",
        help="check every response against schema/protocol/",
    )
    parser.set_defaults(run=run)


def _fail(message: str) -> int:
    print(f"jhyap run: {message}", file=sys.stderr)
    return ExitCode.ERROR


def run(args: argparse.Namespace) -> int:
    """Run the selected cases; see the exit statuses in the parser's epilog."""
    if args.timeout <= 0:
        return _fail("--timeout must be positive")
    if args.jobs < 1:
        return _fail("--jobs must be at least 1")
    if args.json == STDOUT and args.junit == STDOUT:
        return _fail("only one of --json and --junit can go to standard output (-)")
    try:
        selection = load_selection(
            args.transcripts, args.profile, args.ids, args.clause, args.known_failures
        )
    except InputError as exc:
        for line in exc.lines("jhyap run"):
            print(line, file=sys.stderr)
        return ExitCode.ERROR
    cases, known = selection.cases, selection.known
    engine = args.engine if args.engine is not None else default_engine()
    config = RunConfig(
        engine=engine,
        timeout=args.timeout,
        jobs=args.jobs,
        validate_protocol=args.validate_protocol,
        env=None if args.engine is not None else default_engine_env(),
        known_failures=tuple(known),
    )
    verbosity = args.verbose - args.quiet
    progress = Progress(len(cases)) if verbosity >= 0 else None
    try:
        result = run_cases(cases, config, progress)
    except EngineUnusable as exc:
        if progress is not None:
            progress.finish()
        return _fail(f"the engine is unusable: {exc}")
    if progress is not None:
        progress.finish()
    result.warnings[:0] = known_failure_warnings(known, selection.transcripts, selection.documents)
    context = ReportContext(
        engine_command=engine,
        engine=args.engine,
        transcripts=args.transcripts,
        argv=tuple(getattr(args, "argv", ("jhyap", "run"))),
    )
    # A report on standard output keeps it to itself: the console report goes to stderr.
    console = sys.stderr if STDOUT in (args.json, args.junit) else sys.stdout
    style = Style.for_stream(console)
    print_lines(console_report(result, context.rerun, verbosity, style), console)
    writers: tuple[tuple[str | None, Callable[[], str]], ...] = (
        (args.json, lambda: json_text(json_report(result, context))),
        (args.junit, lambda: junit_report(result, context)),
    )
    for path, text in writers:
        if path:
            try:
                write_report(path, text())
            except OSError as exc:
                return _fail(f"cannot write a report: {os_error_text(exc, path)}")
    return exit_status(result.outcomes)
