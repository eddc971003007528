"""``jhyap profiles``: list the shipped profiles."""

from __future__ import annotations

import argparse

from . import COMMAND_HELP, ExitCode, Subparsers


def register(subparsers: Subparsers[argparse.ArgumentParser]) -> None:
    """Add the ``profiles`` subcommand."""
    parser = subparsers.add_parser(
        "profiles",
        help=COMMAND_HELP["profiles"],
        description="One line per shipped profile: id, name, seats and summary.",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print ``id  name  seats min-max  summary`` for each shipped profile."""
    # lazy: start-up speed
    from conformance.spec import data
    from conformance.spec.profiles import ProfileFileError, load_profile
    from conformance.spec.wording import plural

    rows: list[tuple[str, str, str, str]] = []
    status = 0
    for path in data.shipped_profile_paths():
        try:
            document = load_profile(path)
        except ProfileFileError as exc:
            count = plural(len(exc.problems), "problem")
            rows.append((path.stem, "(invalid)", "", f"{count}; run jhyap validate"))
            status = ExitCode.ERROR
            continue
        seats = document["rules"]["seats"]
        seat_text = f"seats {seats['min']}-{seats['max']}"
        rows.append((document["id"], document["name"], seat_text, document["summary"]))
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(3)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        print("  ".join([*cells, row[3]]))
    return status
