"""The ``jhyap`` command line: ``main`` builds the parser from ``COMMANDS``.

:func:`build_parser` returns the whole parser (every subcommand, its options, and its
exit statuses as the epilog), so that a reference page can be generated from it.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import errno
import importlib
import os
import platform
import re
import shlex
import signal
import sys
import textwrap
from collections.abc import Sequence
from typing import Any, Protocol, cast

from jhyap_core.vocabulary import PROTOCOL_VERSION

from . import __version__
from .commands import COMMAND_HELP, ExitCode, Subparsers, exit_status_epilog
from .commands.checks import CommandParser, clip

# One module of conformance.commands per subcommand: add its summary to COMMAND_HELP.
COMMANDS: tuple[str, ...] = tuple(COMMAND_HELP)


class _Command(Protocol):
    def register(self, subparsers: Subparsers[argparse.ArgumentParser]) -> None: ...


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, but a line break in a description or epilog is kept: each
    line is wrapped on its own, and an indented ``term  meaning`` line hangs its meaning."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        filled = []
        for line in text.splitlines():
            hanging = re.match(r"(\s+\S+\s+)(.*)", line)
            lead, rest = (hanging.group(1), hanging.group(2)) if hanging else ("", line)
            filled.append(
                textwrap.fill(
                    " ".join(rest.split()),
                    width,
                    initial_indent=indent + lead,
                    subsequent_indent=indent + " " * len(lead),
                )
                if line.strip()
                else ""
            )
        return "\n".join(filled)


def version_text() -> str:
    """What ``jhyap --version`` prints."""
    return (
        f"jhyap {__version__} (jhyap-conformance; protocol {PROTOCOL_VERSION}; "
        f"Python {platform.python_version()})"
    )


class _VersionAction(argparse.Action):
    """``--version``: the text is built only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(
            option_strings,
            dest,
            nargs=0,
            default=argparse.SUPPRESS,
            help="print the version of jhyap and of the protocol it speaks, then exit",
        )

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        print(version_text())
        parser.exit()


def _named_command(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names, if its first word that is not an option is one."""
    first = next((word for word in argv if not word.startswith("-")), None)
    return first if first in COMMANDS else None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser with every subcommand in ``COMMANDS`` registered, or only the
    one ``argv`` names: each command imports what it needs, so starting one is quick.
    When ``argv`` names none (``--help``, ``--version``, no command or a mistyped one),
    each subcommand is only its name and summary, and no command's module is imported."""
    parser = CommandParser(
        prog="jhyap",
        description="Jhyap (Dhumbal) rules profiles and conformance suite.",
        epilog="Run 'jhyap COMMAND --help' for a command's options and exit statuses.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action=_VersionAction)
    subparsers = parser.add_subparsers(
        dest="command", metavar="COMMAND", required=True, parser_class=CommandParser
    )
    named = _named_command(argv) if argv is not None else None
    if argv is not None and named is None:
        for name, summary in COMMAND_HELP.items():
            subparsers.add_parser(name, help=summary)
        return parser
    for name in COMMANDS if named is None else (named,):
        # lazy: start-up speed (a command's module is imported only when it is named)
        module = cast(_Command, importlib.import_module(f"{__package__}.commands.{name}"))
        module.register(cast("Subparsers[argparse.ArgumentParser]", subparsers))
    for name, command in command_parsers(parser).items():
        command.formatter_class = HelpFormatter
        command.epilog = exit_status_epilog(name)
    return parser


def command_parsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Each subcommand's parser, by name, in the order of ``COMMANDS``."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(cast(dict[str, argparse.ArgumentParser], action.choices))
    return {}


def _unrecognized(command: argparse.ArgumentParser, extras: Sequence[str]) -> str:
    message = f"unrecognized arguments: {' '.join(extras)}"
    options = [s for a in command._actions for s in a.option_strings if s.startswith("--")]
    for word in extras:
        if word.startswith("--"):
            close = difflib.get_close_matches(word.split("=", 1)[0], options, n=1)
            if close:
                return f"{message} (did you mean {close[0]}?)"
    return message


def _refuse_unknown_command(parser: argparse.ArgumentParser, words: Sequence[str]) -> None:
    """A mistyped command gets argparse's error plus the nearest command's name."""
    first = next((word for word in words if not word.startswith("-")), None)
    if first is None or first in COMMANDS:
        return
    if {"-h", "--help", "--version"} & set(words[: words.index(first)]):
        return  # they answer before any command is read
    close = difflib.get_close_matches(first, COMMANDS, n=1)
    if close:
        parser.error(
            f"argument COMMAND: invalid choice: {clip(first)!r} (did you mean {close[0]}?)"
        )


def _engine_after_dashes(
    parser: argparse.ArgumentParser, words: Sequence[str]
) -> tuple[list[str], list[str] | None]:
    """For a command that starts an engine, the words before a ``--`` and the engine's command
    line after it (None without one): ``jhyap run --profile dhumbal -- ./my-engine --fast`` is
    ``--engine "./my-engine --fast"``. Any other command keeps ``--`` (before its paths)."""
    command = command_parsers(parser).get(_named_command(words) or "")
    if "--" not in words or command is None or "--engine" not in command._option_string_actions:
        return list(words), None
    at = list(words).index("--")
    return list(words[:at]), list(words[at + 1 :])


def _take_engine(
    command: argparse.ArgumentParser, args: argparse.Namespace, engine: list[str]
) -> None:
    """Set ``--engine`` from the command line given after ``--``; a usage error when none
    is given or ``--engine`` gives one too."""
    if not engine:
        command.error("no engine command after --")
    if args.engine is not None:
        command.error("give the engine either with --engine or after --, not both")
    args.engine = shlex.join(engine)


def _exit_status(exit_: SystemExit) -> int:
    if exit_.code is None:
        return ExitCode.OK
    if isinstance(exit_.code, int):
        return exit_.code
    print(exit_.code, file=sys.stderr)
    return ExitCode.ERROR


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived: unwind like Ctrl-C, so that engines are ended."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _terminate(signum: int, frame: object) -> None:
    raise Terminated(signum)


def catch_termination() -> dict[int, Any]:
    """Turn SIGTERM and SIGHUP into Terminated; the handlers they had before."""
    previous: dict[int, Any] = {}
    for signum in (signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(ValueError):  # only the main thread may set handlers
            previous[signum] = signal.signal(signum, _terminate)
    return previous


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``jhyap`` with ``argv`` (default: the process arguments); the exit status."""
    words = list(sys.argv[1:] if argv is None else argv)
    previous = catch_termination()
    try:
        parser = build_parser(words)
        options, engine = _engine_after_dashes(parser, words)
        try:
            _refuse_unknown_command(parser, options)
            args, extras = parser.parse_known_args(options)
            command = command_parsers(parser).get(args.command)
            if extras and command is not None:
                # An unknown option belongs to the subcommand: show its usage, not jhyap's.
                command.error(_unrecognized(command, extras))
            if engine is not None and command is not None:
                _take_engine(command, args, engine)
        except SystemExit as exit_:
            return _exit_status(exit_)
        args.argv = ["jhyap", *words]
        return int(args.run(args))
    except KeyboardInterrupt:
        print(f"{error_prefix(words)}: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except Terminated as exc:
        print(
            f"{error_prefix(words)}: stopped by {signal.Signals(exc.signum).name}", file=sys.stderr
        )
        return 128 + exc.signum
    except BrokenPipeError:
        # The reader went away (jhyap ... | head): stop quietly, as other tools do.
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        return ExitCode.ERROR
    except OSError as exc:
        if exc.errno not in _PATH_ERRNOS:
            return _internal_error(exc, words)
        # A path met past the arguments' checks (an environment variable, a file's
        # contents) that the system cannot open: bad input, said on one line.
        name = clip(os.fsdecode(exc.filename)) if exc.filename is not None else "a path"
        print(f"{error_prefix(words)}: {name}: {exc.strerror}", file=sys.stderr)
        return ExitCode.ERROR
    except Exception as exc:
        return _internal_error(exc, words)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


# The errors of a path the system cannot open at all.
_PATH_ERRNOS = frozenset({errno.ENAMETOOLONG, errno.ELOOP})


def error_prefix(words: Sequence[str]) -> str:
    """``jhyap CMD`` (or ``jhyap`` before a command is known): how every error line starts."""
    return " ".join(filter(None, ("jhyap", _named_command(words))))


def _internal_error(exc: Exception, words: Sequence[str] = ()) -> int:
    """A bug in jhyap, said on one line: exit 2."""
    message = " ".join(str(exc).split()) or "no details"
    print(
        f"{error_prefix(words)}: internal error: {type(exc).__name__}: {message}",
        file=sys.stderr,
    )
    return ExitCode.ERROR
