"""``jhyap record``: a seeded random game of the reference engine, as a regression transcript."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from jhyap_core.text import clip_words
from jhyap_core.vocabulary import JhyapError

from . import COMMAND_HELP, ExitCode, Subparsers, add_option_argument
from .checks import MAX_ROUNDS, MAX_SEATS, MAX_SEED, whole


def register(subparsers: Subparsers[argparse.ArgumentParser]) -> None:
    """Add the ``record`` subcommand."""
    parser = subparsers.add_parser(
        "record",
        help=COMMAND_HELP["record"],
        description="Play a seeded random game with the reference engine and write it as a "
        "transcript of kind regression, every event expected. A recording is not an oracle: "
        "keep it under a regression/ folder.",
    )
    parser.add_argument("profile", metavar="PROFILE", help="a shipped profile id or a YAML file")
    parser.add_argument("directory", metavar="DIR", help="where to write <id>.yaml")
    parser.add_argument(
        "--seats",
        type=whole(1, MAX_SEATS),
        required=True,
        metavar="N",
        help="the number of players (required)",
    )
    parser.add_argument(
        "--seed",
        type=whole(0, MAX_SEED),
        default=0,
        metavar="S",
        help="the seed of the random deals and moves: the same seed records the same game "
        "(default 0)",
    )
    parser.add_argument(
        "--max-rounds",
        type=whole(1, MAX_ROUNDS),
        default=4,
        metavar="N",
        help="hands before the host ends an open table (default 4)",
    )
    add_option_argument(parser)
    parser.add_argument(
        "--force", action="store_true", help="replace a recording of the same id (hand edits too)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Write the recording; exit 2 for a bad profile, option or seat count."""
    # lazy: start-up speed
    from conformance.harness.record import record_game
    from conformance.spec.data import ProfileNotFound
    from conformance.spec.files import WriteRefused, os_error_text, write_atomic
    from conformance.spec.profiles import ProfileFileError, load_profile, option_arguments
    from conformance.spec.yamlsafe import transcript_yaml

    try:
        document = load_profile(args.profile)
    except (ProfileNotFound, ProfileFileError) as exc:
        print(f"jhyap record: {exc}", file=sys.stderr)
        return ExitCode.ERROR
    try:
        options = option_arguments(document, args.option)
        data = record_game(
            str(document["id"]), document, args.seats, args.seed, options, args.max_rounds
        )
    except ValueError as exc:
        print(clip_words(f"jhyap record: {exc}"), file=sys.stderr)
        return ExitCode.ERROR
    except JhyapError as exc:
        print(clip_words(f"jhyap record: {exc.message}"), file=sys.stderr)
        return ExitCode.ERROR
    folder = Path(args.directory)
    path = folder / f"{data['id']}.yaml"
    header = "# Recorded by jhyap record: a regression set, not an oracle.\n"
    try:
        if folder.exists() and not folder.is_dir():
            raise WriteRefused(f"{folder} is not a directory")
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(path, header + transcript_yaml(data), replace=args.force)
    except OSError as exc:
        message = (
            str(exc) if isinstance(exc, WriteRefused) else f"cannot write {os_error_text(exc)}"
        )
        print(f"jhyap record: {message}", file=sys.stderr)
        return ExitCode.ERROR
    print(path)
    return ExitCode.OK
