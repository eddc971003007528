"""``jhyap run``: replay the transcripts against an engine and report."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from conformance.harness.client import DEFAULT_TIMEOUT, EngineUnusable
from conformance.harness.runner import (
    InputError,
    RunConfig,
    RunResult,
    exit_status,
    known_failure_warnings,
    load_selection,
    run_cases,
    unusable_result,
)
from conformance.harness.sandbox import (
    BASE_VARIABLES,
    PASSTHROUGH_VARIABLE,
    EngineLimits,
    engine_environment,
)
from conformance.reporting.report import (
    Progress,
    RerunInfo,
    console_report,
    json_report,
    junit_report,
    print_lines,
    write_atomic,
)
from conformance.reporting.terminal import visible
from conformance.spec import readings
from conformance.spec.profiles import ProfileFileError
from conformance.spec.transcript import with_profile_files

from . import Subparsers

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
        type=int,
        metavar="MB",
        help="limit the engine's address space to MB mebibytes (setrlimit RLIMIT_AS)",
    )
    parser.add_argument(
        "--engine-cpu",
        type=int,
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
        help="replay the transcripts against an engine",
        description="Replay the conformance transcripts against an engine over the JSON-lines "
        "protocol (docs/protocol.md). Exit status: 0 when every case passed, was skipped or "
        "is a known failure; 1 when any failed, errored, crashed, timed out or passed "
        "unexpectedly; 2 when the engine is unusable or the input is invalid.",
    )
    parser.add_argument(
        "--engine",
        metavar="CMD",
        help="the engine command, split like a shell would (no expansion); "
        f"default: the bundled reference engine ({default_engine()})",
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
    parser.add_argument("--json", metavar="FILE", help="write a JSON report")
    parser.add_argument("--junit", metavar="FILE", help="write a JUnit XML report")
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
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
    try:
        _, ids = with_profile_files({}, files)
    except ProfileFileError:  # already reported by load_selection, which ran first
        return {}
    return dict(zip(ids, files, strict=True))


def _fail(message: str) -> int:
    print(f"jhyap run: {visible(message)}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    """Run the selected cases; see the exit statuses in the parser's description."""
    if args.timeout <= 0:
        return _fail("--timeout must be positive")
    if args.jobs < 1:
        return _fail("--jobs must be at least 1")
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
        return 2
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
    )
    progress = Progress(len(cases))
    try:
        result = run_cases(cases, config, progress)
    except EngineUnusable as exc:
        progress.finish()
        # The reports still say what happened, so that a CI job keeps its artefacts.
        failed = _write_reports(args, unusable_result(cases, str(exc)), engine)
        return _fail(f"the engine is unusable: {exc}" + (f"; {failed}" if failed else ""))
    progress.finish()
    result.warnings[:0] = known_failure_warnings(known, selection.corpus_ids, selection.documents)
    result.claims = readings.claims(selection.documents, (o.profile for o in result.outcomes))
    print_lines(console_report(result, _rerun_info(args)))
    failed = _write_reports(args, result, engine)
    if failed:
        return _fail(failed)
    return exit_status(result.outcomes)


def _rerun_info(args: argparse.Namespace) -> RerunInfo:
    """How to rerun a transcript: every flag the run was given that is not the default."""
    return RerunInfo(
        engine=args.engine,
        transcripts=args.transcripts,
        timeout=args.timeout if args.timeout != DEFAULT_TIMEOUT else None,
        profile_files=profile_files(args.profile),
        validate_protocol=args.validate_protocol,
        known_failures=args.known_failures,
    )


def _write_reports(args: argparse.Namespace, result: RunResult, engine: str) -> str | None:
    """Write the --json and --junit reports; None, or why one could not be written."""
    rerun = _rerun_info(args)
    try:
        if args.json:
            write_atomic(
                args.json,
                json.dumps(json_report(result, engine), indent=2, ensure_ascii=False) + "\n",
            )
        if args.junit:
            write_atomic(args.junit, junit_report(result, rerun))
    except OSError as exc:
        return f"cannot write a report: {exc}"
    return None
