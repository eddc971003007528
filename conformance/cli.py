"""The ``jhyap`` command line: ``main`` builds the parser from ``COMMANDS``."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import signal
import sys
from collections.abc import Sequence
from typing import Any, Protocol, cast

from .commands import Subparsers

# One module of conformance.commands per subcommand; add a name here to add one.
COMMANDS: tuple[str, ...] = (
    "validate",
    "profiles",
    "show",
    "run",
    "smoke",
    "coverage",
    "export",
    "record",
    "simulate",
    "engine",
    "fuzz",
)


class _Command(Protocol):
    def register(self, subparsers: Subparsers[argparse.ArgumentParser]) -> None: ...


def _named_command(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names, if its first word that is not an option is one."""
    first = next((word for word in argv if not word.startswith("-")), None)
    return first if first in COMMANDS else None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser with every subcommand in ``COMMANDS`` registered, or only the
    one ``argv`` names: each command imports what it needs, so starting one is quick."""
    parser = argparse.ArgumentParser(
        prog="jhyap", description="Jhyap (Dhumbal) rules profiles and conformance suite."
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    named = _named_command(argv) if argv is not None else None
    for name in COMMANDS if named is None else (named,):
        module = cast(_Command, importlib.import_module(f"{__package__}.commands.{name}"))
        module.register(subparsers)
    return parser


def _exit_status(exit_: SystemExit) -> int:
    if exit_.code is None:
        return 0
    if isinstance(exit_.code, int):
        return exit_.code
    print(exit_.code, file=sys.stderr)
    return 1


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived: unwind like Ctrl-C, so that engines are ended."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _terminate(signum: int, frame: object) -> None:
    raise Terminated(signum)


def _catch_termination() -> dict[int, Any]:
    """Turn SIGTERM and SIGHUP into Terminated; the handlers they had before."""
    previous: dict[int, Any] = {}
    for signum in (signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(ValueError):  # only the main thread may set handlers
            previous[signum] = signal.signal(signum, _terminate)
    return previous


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``jhyap`` with ``argv`` (default: the process arguments); the exit status."""
    previous = _catch_termination()
    try:
        words = list(sys.argv[1:] if argv is None else argv)
        parser = build_parser(words)
        try:
            args = parser.parse_args(words)
        except SystemExit as exit_:
            return _exit_status(exit_)
        return int(args.run(args))
    except KeyboardInterrupt:
        return 130
    except Terminated as exc:
        return 128 + exc.signum
    except Exception as exc:
        message = " ".join(str(exc).split()) or "no details"
        print(f"jhyap: internal error: {type(exc).__name__}: {message}", file=sys.stderr)
        return 2
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
