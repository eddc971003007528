"""``jhyap run``: replay the transcripts against an engine and report."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from conformance.harness.sandbox import (
    BASE_VARIABLES,
    PASSTHROUGH_VARIABLE,
    EngineLimits,
    engine_environment,
)
from conformance.harness.settings import DEFAULT_TIMEOUT, DEFAULT_WINDOW
from conformance.reporting.outputs import FORCE_HELP, RUN_JSON, RUN_JUNIT
from conformance.spec.files import STDOUT, OutputKind, os_error_text, write_report

from . import COMMAND_HELP, ExitCode, Subparsers, jobs_count
from .checks import (
    MAX_ENGINE_CPU,
    MAX_ENGINE_MEMORY,
    MAX_TIMEOUT,
    MAX_WINDOW,
    clashing_paths,
    report_file_problem,
    seconds,
    whole,
)

if TYPE_CHECKING:
    from conformance.harness.runner import RunResult
    from conformance.reporting.json_junit import ReportContext
    from conformance.reporting.report import RerunInfo

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent
DEFAULT_ENGINE_ARGV = (sys.executable, "-m", "reference_engine.server")


def default_engine() -> str:
    """The bundled reference engine, as a command string (quoted for shlex)."""
    return shlex.join(DEFAULT_ENGINE_ARGV)


def default_engine_env(items: Sequence[str] = ()) -> dict[str, str]:
    """The environment of the default engine: an engine's (see ``engine_environment``)
    with this checkout importable, whatever the working directory."""
    env = engine_environment(items)
    paths = [str(PROJECT_ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    return env


def add_engine_options(parser: argparse.ArgumentParser) -> None:
    """--engine-env, --engine-memory and --engine-cpu (docs/port.md)."""
    parser.add_argument(
        "--engine-env",
        action="append",
        default=[],
        metavar="NAME[=VALUE]",
        help="pass an environment variable to the engine (repeatable); engines get only "
        f"{', '.join(BASE_VARIABLES)} and the names in ${PASSTHROUGH_VARIABLE} otherwise",
    )
    parser.add_argument(
        "--engine-memory",
        type=whole(1, MAX_ENGINE_MEMORY),
        metavar="MB",
        help="limit the engine's address space to MB mebibytes (setrlimit RLIMIT_AS)",
    )
    parser.add_argument(
        "--engine-cpu",
        type=whole(1, MAX_ENGINE_CPU),
        metavar="SECONDS",
        help="limit the engine's CPU time (setrlimit RLIMIT_CPU): SIGXCPU, then SIGKILL",
    )


def engine_settings(
    args: argparse.Namespace,
) -> tuple[dict[str, str], EngineLimits | None]:
    """The engine's environment and limits from the options; ValueError when invalid."""
    for name, value in (("--engine-memory", args.engine_memory), ("--engine-cpu", args.engine_cpu)):
        if value is not None and value <= 0:
            raise ValueError(f"{name} must be positive")
    if args.engine is None:
        env = default_engine_env(args.engine_env)
    else:
        env = engine_environment(args.engine_env)
    limits = EngineLimits(args.engine_memory, args.engine_cpu)
    return env, limits if limits.describe() else None


def register(subparsers: Subparsers[argparse.ArgumentParser]) -> None:
    """Add the ``run`` subcommand."""
    parser = subparsers.add_parser(
        "run",
        help=COMMAND_HELP["run"],
        description="Replay the conformance transcripts against an engine over the JSON-lines "
        "protocol (docs/protocol.md). Prints a block for each case that did not pass, then "
        "a summary; colour on a terminal unless NO_COLOR is set (FORCE_COLOR forces it).",
    )
    parser.add_argument(
        "--engine",
        metavar="CMD",
        help="the engine command, split like a shell would (no expansion), or its words "
        "after -- at the end (... -- ./my-engine --fast); "
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
        help="write a JSON report (schema/report.schema.json), replacing the last one; "
        "- for standard output",
    )
    parser.add_argument(
        "--junit",
        metavar="FILE",
        help="write a JUnit XML report (Jenkins junit-10.xsd), replacing the last one; "
        "- for standard output",
    )
    parser.add_argument("--force", action="store_true", help=FORCE_HELP)
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
        type=seconds(MAX_TIMEOUT),
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help="the time to wait for each response (default 10)",
    )
    parser.add_argument(
        "--window",
        type=whole(1, MAX_WINDOW),
        default=DEFAULT_WINDOW,
        metavar="N",
        help=f"requests in flight per engine (default {DEFAULT_WINDOW}; 1: each waits for "
        "the answer before it)",
    )
    parser.add_argument(
        "--jobs",
        "-j",
        type=jobs_count,
        default=1,
        metavar="N",
        help="run N engines in parallel; auto: one per CPU (default 1)",
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
        action=argparse.BooleanOptionalAction,
        default=True,
        help="check every response against schema/protocol/ (on by default; a field that is "
        "neither defined nor x- fails the case under protocol.messages.schema); "
        "--no-validate-protocol switches it off",
    )
    add_engine_options(parser)
    parser.set_defaults(run=run)


def profile_files(arguments: Sequence[str]) -> dict[str, str]:
    """Profile id -> the file named on the command line, for the --profile values that are
    files (a rerun must name the file again, not the id)."""
    names = [p.strip() for text in arguments for p in text.split(",") if p.strip()]
    files = [n for n in names if Path(n).is_file()]
    # lazy: start-up speed
    from conformance.spec.profiles import ProfileFileError
    from conformance.spec.transcript_profiles import with_profile_files

    try:
        _, ids = with_profile_files({}, files)
    except ProfileFileError:  # already reported by load_selection, which ran first
        return {}
    return dict(zip(ids, files, strict=True))


def _fail(message: str) -> int:
    # lazy: start-up speed
    from conformance.reporting.terminal import visible

    print(f"jhyap run: {visible(message)}", file=sys.stderr)
    return ExitCode.ERROR


def run(args: argparse.Namespace) -> int:
    """Run the selected cases; see the exit statuses in the parser's epilog."""
    # lazy: start-up speed
    from conformance.harness.client import EngineUnusable
    from conformance.harness.runner import (
        InputError,
        Interrupted,
        RunConfig,
        exit_status,
        known_failure_warnings,
        load_selection,
        run_cases,
        unusable_result,
    )
    from conformance.reporting.modes import with_modes
    from conformance.reporting.report import Progress, console_report, print_lines, with_judged
    from conformance.reporting.style import Style
    from conformance.spec import readings
    from conformance.spec.wording import plural

    if args.json == STDOUT and args.junit == STDOUT:
        return _fail("only one of --json and --junit can go to standard output (-)")
    clash = clashing_paths(
        (("--json", args.json), ("--junit", args.junit)),
        (("--known-failures", args.known_failures),),
    )
    if clash:
        return _fail(clash)
    for option, path, kind in (("--json", args.json, RUN_JSON), ("--junit", args.junit, RUN_JUNIT)):
        problem = report_file_problem(path, kind, args.force)
        if problem:
            return _fail(f"{option}: {problem}")
    try:
        env, limits = engine_settings(args)
    except ValueError as exc:
        return _fail(str(exc))
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
        env=env,
        known_failures=tuple(known),
        limits=limits,
        window=args.window,
    )
    verbosity = args.verbose - args.quiet
    progress = Progress(len(cases)) if verbosity >= 0 else None
    interrupted = False
    try:
        result = run_cases(cases, config, progress)
    except Interrupted as exc:
        result, interrupted = exc.result, True
    except EngineUnusable as exc:
        if progress is not None:
            progress.finish()
        # The reports still say what happened, so that a CI job keeps its artefacts.
        failed = _write_reports(args, unusable_result(cases, str(exc)), engine)
        return _fail(f"the engine is unusable: {exc}" + (f"; {failed}" if failed else ""))
    if progress is not None:
        progress.finish()
    result.selected = len(cases)
    result.warnings[:0] = known_failure_warnings(known, selection.corpus_ids, selection.documents)
    result.claims = with_judged(
        with_modes(
            readings.claims(selection.documents, (o.profile for o in result.outcomes)),
            result.outcomes,
        ),
        result.outcomes,
    )
    context = _context(args, engine)
    # A report on standard output keeps it to itself: the console report goes to stderr.
    console = sys.stderr if STDOUT in (args.json, args.junit) else sys.stdout
    style = Style.for_stream(console)
    print_lines(console_report(result, context.rerun, verbosity, style), console)
    failed = _write_reports(args, result, engine)
    if failed:
        return _fail(failed)
    if interrupted:
        ran = len(result.outcomes)
        reports = " (the reports hold those)" if args.json or args.junit else ""
        _fail(f"interrupted: {ran} of {plural(len(cases), 'case')} ran{reports}")
        return ExitCode.INTERRUPTED
    return exit_status(result.outcomes)


def _context(args: argparse.Namespace, engine: str) -> ReportContext:
    """How the run was invoked, for its reports and rerun commands."""
    # lazy: start-up speed
    from conformance.reporting.json_junit import ReportContext

    return ReportContext(
        engine_command=engine,
        engine=args.engine,
        transcripts=args.transcripts,
        argv=tuple(getattr(args, "argv", ("jhyap", "run"))),
        rerun_info=_rerun_info(args),
    )


def _rerun_info(args: argparse.Namespace) -> RerunInfo:
    """How to rerun a transcript: every flag the run was given that is not the default."""
    # lazy: start-up speed
    from conformance.reporting.report import RerunInfo

    return RerunInfo(
        engine=args.engine,
        transcripts=args.transcripts,
        timeout=args.timeout if args.timeout != DEFAULT_TIMEOUT else None,
        profile_files=profile_files(args.profile),
        validate_protocol=args.validate_protocol,
        known_failures=args.known_failures,
        window=args.window if args.window != DEFAULT_WINDOW else None,
        engine_env=tuple(args.engine_env),
        engine_memory=args.engine_memory,
        engine_cpu=args.engine_cpu,
    )


def _write_reports(args: argparse.Namespace, result: RunResult, engine: str) -> str | None:
    """Write the --json and --junit reports; None, or why one could not be written."""
    # lazy: start-up speed
    from conformance.reporting.json_junit import json_report, json_text, junit_report

    context = _context(args, engine)
    writers: tuple[tuple[str | None, OutputKind, Callable[[], str]], ...] = (
        (args.json, RUN_JSON, lambda: json_text(json_report(result, context))),
        (args.junit, RUN_JUNIT, lambda: junit_report(result, context)),
    )
    for path, kind, text in writers:
        if path:
            try:
                write_report(path, text(), kind=kind, force=args.force)
            except OSError as exc:
                return f"cannot write a report: {os_error_text(exc, path)}"
    return None
