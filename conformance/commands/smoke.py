"""``jhyap smoke``: check an engine's plumbing (start, handshake, one hand, shutdown)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from conformance.harness.settings import DEFAULT_TIMEOUT

from . import COMMAND_HELP, ExitCode, Subparsers
from .checks import MAX_TIMEOUT, seconds
from .run import add_engine_options, default_engine, engine_settings

if TYPE_CHECKING:
    from conformance.harness.smoke import Check


def register(subparsers: Subparsers[argparse.ArgumentParser]) -> None:
    """Add the ``smoke`` subcommand."""
    parser = subparsers.add_parser(
        "smoke",
        help=COMMAND_HELP["smoke"],
        description="Start the engine, check its hello answer, play one short two-seat hand, "
        "check seven protocol points against the reference engine's answers (docs/versions.md), "
        "check every response against schema/protocol/ and standard output for stray lines, "
        "then stop the engine and watch it exit. One line per check: ok, FAIL (with the fix) "
        "or skip; colour on a terminal unless NO_COLOR is set (FORCE_COLOR forces it).",
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
        "--timeout",
        type=seconds(MAX_TIMEOUT),
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help="the time to wait for each response (default 10)",
    )
    parser.add_argument(
        "--profile",
        metavar="PROFILE",
        help="play the hand under this ruleset only: a shipped id, or a profile file (one "
        "that extends a shipped profile, or a standalone one); the hand is planned by the "
        "reference engine playing it. Default: the first of dhumbal, everestbuzz, dashain "
        "the engine accepts",
    )
    add_engine_options(parser)
    parser.set_defaults(run=run)


STATUS_COLOURS = {"ok": "green", "FAIL": "red", "skip": "yellow"}


def _print(check: Check) -> None:
    # lazy: start-up speed
    from conformance.reporting.style import Style
    from conformance.reporting.terminal import one_line

    style = Style.for_stream(sys.stdout)
    first, *details = (one_line(line) for line in check.lines())  # they quote the engine
    status, rest = first.split(" ", 1)
    print(style.paint(status, STATUS_COLOURS.get(status, "bold")) + " " + rest)
    for line in details:
        print(line)
    sys.stdout.flush()


def run(args: argparse.Namespace) -> int:
    """Run the checks, printing each as it ends; the exit status of the result."""
    # lazy: start-up speed
    from conformance.harness.smoke import smoke
    from conformance.reporting.terminal import one_line
    from conformance.spec import readings
    from conformance.spec.data import DataNotFound, ProfileNotFound
    from conformance.spec.profiles import ProfileFileError, load_profile
    from conformance.spec.wording import headed, plural

    try:
        env, limits = engine_settings(args)
    except ValueError as exc:
        print(f"jhyap smoke: {exc}", file=sys.stderr)
        return ExitCode.ERROR
    profile = None
    if args.profile is not None:
        try:
            profile = load_profile(args.profile)
        except (ProfileFileError, DataNotFound, ProfileNotFound) as exc:
            print(headed("jhyap smoke: the profile cannot be loaded", str(exc)), file=sys.stderr)
            return ExitCode.ERROR
    engine = args.engine if args.engine is not None else default_engine()
    print(f"engine: {one_line(engine)}")
    if profile is not None:
        print(f"profile: {readings.claim_text(profile)}")
    result = smoke(
        engine, timeout=args.timeout, env=env, report=_print, limits=limits, profile=profile
    )
    if not result.launched:
        print("smoke: the engine could not be started")
        return result.exit_status()
    if result.failed:
        tail = result.stderr_tail[-10:]
        if tail:
            print(f"engine stderr (last {plural(len(tail), 'line')}):")
            for line in tail:
                print(f"  | {one_line(line)}")
        else:
            print("engine stderr: (nothing)")
    verdict = "fix the failures before jhyap run" if result.failed else "ready for jhyap run"
    print(f"smoke: {result.summary()}; {verdict}")
    return result.exit_status()
