"""The ``jhyap`` command line: ``main`` builds the parser from ``COMMANDS``."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Protocol, cast

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
    "engine",
    "fuzz",
)


class _Command(Protocol):
    def register(self, subparsers: Subparsers[argparse.ArgumentParser]) -> None: ...


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand in ``COMMANDS`` registered."""
    parser = argparse.ArgumentParser(
        prog="jhyap", description="Jhyap (Dhumbal) rules profiles and conformance suite."
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``jhyap`` with ``argv`` (default: the process arguments); the exit status."""
    try:
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit as exit_:
            return _exit_status(exit_)
        return int(args.run(args))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        message = " ".join(str(exc).split()) or "no details"
        print(f"jhyap: internal error: {type(exc).__name__}: {message}", file=sys.stderr)
        return 2
