"""The ``jhyap`` subcommands: each module here has ``register(subparsers)``.

``register`` adds the subcommand's parser and sets its ``run`` default, a
function from the parsed arguments to the exit status.

Every command follows one exit-status contract (:func:`exit_statuses`), as ruff and
pytest users expect: 0 when all is well, 1 when the command found what it looks for
(failing cases, invalid files, uncovered clauses, failed checks), 2 for a usage error,
input it cannot use, an engine it cannot drive or a bug in jhyap, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from enum import IntEnum
from types import MappingProxyType
from typing import Any, Final

from .checks import quoted

Subparsers = argparse._SubParsersAction  # the type argparse's add_subparsers returns
Run = Callable[[argparse.Namespace], int]


class ExitCode(IntEnum):
    """The exit statuses of every ``jhyap`` command."""

    OK = 0
    FAILURES = 1  # the command found failures (cases, files, clauses, checks)
    ERROR = 2  # usage error, unusable input or engine, unwritable output, internal error
    INTERRUPTED = 130  # Ctrl-C (128 + SIGINT), as shells report it


# The commands that start an engine, and those that write files, whose 2 says so.
ENGINE_COMMANDS: Final = frozenset({"run", "smoke", "fuzz"})
WRITING_COMMANDS: Final = frozenset(
    {"run", "coverage", "export", "record", "simulate", "fuzz", "merge", "matrix"}
)


def error_meaning(command: str) -> str:
    """What 2 means for ``command``: only the causes it can meet."""
    causes = [
        # validate reports a bad file with 1; profiles reads no input
        "usage error (an unknown option or command, a bad option value)"
        if command in ("validate", "profiles")
        else "usage error, or input it cannot use (an unknown profile, a missing or invalid "
        "file, a bad option value)"
    ]
    if command in ENGINE_COMMANDS:
        causes.append("an engine it cannot start or greet")
    if command in WRITING_COMMANDS:
        causes.append("an output it cannot write")
    listed = causes[0] if len(causes) == 1 else ", ".join(causes[:-1]) + ", or " + causes[-1]
    return f"{listed}; or an internal error (a bug in jhyap: please report it)"


# Every subcommand, in the order ``jhyap --help`` lists them, with its one-line summary:
# the module ``conformance.commands.NAME`` registers it, imported only when the command is
# named, so that ``jhyap --help`` and ``--version`` import no command.
COMMAND_HELP: Final[Mapping[str, str]] = MappingProxyType(
    {
        "validate": "check profile and transcript files",
        "profiles": "list the shipped profiles",
        "show": "print a resolved profile",
        "run": "replay the transcripts against an engine",
        "smoke": "check an engine's plumbing before its rules",
        "coverage": "list the transcripts that test each clause",
        "export": "write the corpus as plain JSON files",
        "record": "record a random reference-engine game as a regression transcript",
        "simulate": "play seeded games and print how a ruleset plays",
        "engine": "serve the reference engine on stdin/stdout",
        "fuzz": "play seeded random games on an engine and on the reference, compare every answer",
        "merge": "merge the --json files of the shards of one simulate or fuzz run",
        "matrix": "build the engines matrix (HTML, matrix.json, badges) of jhyap run --json "
        "reports",
    }
)

# What every command's 130 means.
COMMON_STATUSES: Final[Mapping[ExitCode, str]] = MappingProxyType(
    {ExitCode.INTERRUPTED: "interrupted (Ctrl-C)"}
)

# What 0 and 1 mean for each command; a command without a 1 never returns it.
COMMAND_STATUSES: Final[Mapping[str, Mapping[ExitCode, str]]] = MappingProxyType(
    {
        "validate": {
            ExitCode.OK: "every file is valid",
            ExitCode.FAILURES: "some file is missing or has problems (one line each)",
        },
        "profiles": {ExitCode.OK: "the shipped profiles were listed"},
        "show": {ExitCode.OK: "the resolved profile was printed"},
        "run": {
            ExitCode.OK: "every case passed, was skipped or is a listed known failure",
            ExitCode.FAILURES: "some case failed, errored, crashed, timed out, "
            "or passed while listed as a known failure",
        },
        "smoke": {
            ExitCode.OK: "no check failed",
            ExitCode.FAILURES: "some check failed",
        },
        "coverage": {
            ExitCode.OK: "every clause and every reading value is tested by some transcript",
            ExitCode.FAILURES: "some clause or reading value is untested",
        },
        "export": {ExitCode.OK: "the corpus was written"},
        "record": {ExitCode.OK: "the recording was written"},
        "simulate": {ExitCode.OK: "the games were played and their figures printed"},
        "engine": {ExitCode.OK: "the engine served until stop or the end of its input"},
        "fuzz": {
            ExitCode.OK: "no divergence, or only listed known divergences",
            ExitCode.FAILURES: "the engine diverged from the reference (the shrunk transcript "
            "is written), or the reference broke an invariant",
        },
        "matrix": {ExitCode.OK: "the matrix was written, whatever its cells say"},
        "merge": {
            ExitCode.OK: "the shards merged (a fuzz campaign: with no divergence)",
            ExitCode.FAILURES: "the shards of a fuzz campaign merged, and some shard diverged "
            "or the reference broke an invariant",
        },
    }
)


MAX_JOBS: Final = 1024


def jobs_count(text: str) -> int:
    """A ``--jobs`` value: a whole number from 1 to MAX_JOBS, or ``auto`` for the CPUs this
    process may use (at most MAX_JOBS)."""
    if text == "auto":
        try:
            return min(len(os.sched_getaffinity(0)), MAX_JOBS)
        except AttributeError:  # not on Linux
            return min(os.cpu_count() or 1, MAX_JOBS)
    rule = f"must be a whole number from 1 to {MAX_JOBS}, or auto"
    if not re.fullmatch(r"[+-]?\d{1,30}", text.strip()):
        raise argparse.ArgumentTypeError(f"{rule}: {quoted(text)} is neither a number nor auto")
    if not 1 <= int(text) <= MAX_JOBS:
        raise argparse.ArgumentTypeError(f"{rule}, not {quoted(text)}")
    return int(text)


def add_option_argument(parser: argparse.ArgumentParser) -> None:
    """``--option/-o NAME=VALUE``, repeatable: a host option's value (show, record)."""
    parser.add_argument(
        "--option",
        "-o",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an option value (repeatable)",
    )


def profile_with_options(
    command: str, name: str, items: Sequence[str]
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The profile ``name`` and its ``--option`` values; None once why not is printed."""
    # lazy: start-up speed
    from conformance.spec.data import ProfileNotFound
    from conformance.spec.profiles import ProfileFileError, load_profile, option_arguments
    from jhyap_core.text import clip_words

    try:
        document = load_profile(name)
        return document, option_arguments(document, items)
    except ProfileFileError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
    except (ProfileNotFound, ValueError) as exc:
        print(clip_words(f"jhyap {command}: {exc}"), file=sys.stderr)
    return None


def exit_statuses(command: str) -> dict[ExitCode, str]:
    """Every exit status ``command`` can return, in order, with its meaning (a command
    missing from COMMAND_STATUSES gets a bare 0; tests/cli/test_cli.py asks for its entry)."""
    own = COMMAND_STATUSES.get(command, {ExitCode.OK: "success"})
    statuses = {**own, ExitCode.ERROR: error_meaning(command), **COMMON_STATUSES}
    return dict(sorted(statuses.items()))


def exit_status_epilog(command: str) -> str:
    """The exit-status table of ``command`` as help text (one status a line)."""
    lines = ["exit status:"]
    lines += [f"  {int(code):<3}  {meaning}" for code, meaning in exit_statuses(command).items()]
    return "\n".join(lines)


__all__ = [
    "COMMAND_HELP",
    "COMMAND_STATUSES",
    "COMMON_STATUSES",
    "ENGINE_COMMANDS",
    "MAX_JOBS",
    "WRITING_COMMANDS",
    "ExitCode",
    "Run",
    "Subparsers",
    "add_option_argument",
    "error_meaning",
    "exit_status_epilog",
    "exit_statuses",
    "jobs_count",
    "profile_with_options",
]
