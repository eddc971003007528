"""``jhyap engine``: serve the reference engine over the protocol on stdin/stdout."""

from __future__ import annotations

import argparse

from . import COMMAND_HELP, Subparsers


def register(subparsers: Subparsers[argparse.ArgumentParser]) -> None:
    """Add the ``engine`` subcommand."""
    parser = subparsers.add_parser(
        "engine",
        help=COMMAND_HELP["engine"],
        description="Serve the bundled reference engine over the JSON-lines protocol "
        "(docs/protocol.md): requests on standard input, responses on standard output.",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Serve until ``stop`` or end of input."""
    # lazy: start-up speed
    from reference_engine.server import main

    return main()
