"""``jhyap show PROFILE``: print a profile resolved against option values."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from jhyap_core.profile import resolve
from jhyap_core.text import clip_words
from jhyap_core.vocabulary import OptionError

from . import COMMAND_HELP, ExitCode, Subparsers, add_option_argument, profile_with_options


def register(subparsers: Subparsers[argparse.ArgumentParser]) -> None:
    """Add the ``show`` subcommand."""
    parser = subparsers.add_parser(
        "show",
        help=COMMAND_HELP["show"],
        description="Print the profile with its option values applied to the rules, plus "
        "option_values: the value of every option.",
    )
    parser.add_argument("profile", metavar="PROFILE", help="a shipped profile id or a YAML file")
    add_option_argument(parser)
    parser.add_argument(
        "--format",
        choices=("yaml", "json"),
        default="yaml",
        help="the output format (default yaml)",
    )
    parser.set_defaults(run=run)


def _fail(message: str) -> int:
    print(clip_words(f"jhyap show: {message}"), file=sys.stderr)
    return ExitCode.ERROR


def render(resolved: dict[str, Any], form: str) -> str:
    """The resolved profile as YAML or JSON text."""
    # lazy: start-up speed
    import yaml

    if form == "json":
        return json.dumps(resolved, indent=2, ensure_ascii=False) + "\n"
    return yaml.safe_dump(resolved, sort_keys=False, allow_unicode=True, width=100)


def run(args: argparse.Namespace) -> int:
    """Print the resolved profile; exit 2 for a bad profile or option."""
    loaded = profile_with_options("show", args.profile, args.option)
    if loaded is None:
        return ExitCode.ERROR
    document, options = loaded
    try:
        resolved = resolve(document, options)
    except OptionError as exc:
        return _fail(exc.message)
    text = render(resolved, args.format)
    if args.format == "yaml" and document.get("derived_from"):
        text = "".join(f"# {line}\n" for line in _derivation(document)) + text
    sys.stdout.write(text)
    return 0


def _derivation(document: dict[str, Any]) -> list[str]:
    """What a declared-readings profile claims and how it differs from the profile it extends."""
    # lazy: start-up speed
    from conformance.spec import readings
    from conformance.spec.profiles import load_profile

    base = load_profile(document["derived_from"]["profile"])
    changed = readings.differences(document, base)
    return [
        readings.claim_text(document),
        f"differs from {base['id']} in:" if changed else f"no parameter differs from {base['id']}",
        *(f"  {line}" for line in changed),
    ]
