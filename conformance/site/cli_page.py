"""The command-line reference page, generated from ``conformance.cli``'s argument parser so
that it cannot drift from the code."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
from collections.abc import Mapping

from .common import md_safe

CLI_PAGE = "cli.md"


def _parser() -> argparse.ArgumentParser:
    cli = importlib.import_module("conformance.cli")
    build = getattr(cli, "build_parser", None)
    if callable(build):
        parser = build()
        assert isinstance(parser, argparse.ArgumentParser)
        return parser
    raise RuntimeError("conformance.cli has no build_parser()")


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _subcommand_help(parser: argparse.ArgumentParser) -> dict[str, str]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {a.dest: a.help or "" for a in action._choices_actions}
    return {}


def _usage(parser: argparse.ArgumentParser) -> str:
    return " ".join(parser.format_usage().split()).removeprefix("usage: ")


def _argument_rows(parser: argparse.ArgumentParser) -> list[str]:
    rows = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        if action.help == argparse.SUPPRESS:
            continue
        if action.option_strings:
            name = ", ".join(action.option_strings)
            if action.nargs != 0:
                name += f" {action.metavar or action.dest.upper()}"
        else:
            name = str(action.metavar or action.dest)
        text = " ".join((action.help or "").replace(sys.executable, "python").split())
        if "%(" in text:
            with contextlib.suppress(KeyError, TypeError, ValueError):
                text = text % {**vars(action), "prog": parser.prog}
        extra = []
        if action.choices is not None and not isinstance(action.choices, Mapping):
            extra.append("one of " + ", ".join(f"`{c}`" for c in action.choices))
        default = action.default
        if (
            action.option_strings
            and default not in (None, False, [], argparse.SUPPRESS)
            and action.nargs != 0
            and "default" not in text  # the help already says it: once is enough
        ):
            extra.append(f"default `{default}`")
        if action.required and action.option_strings:
            extra.append("required")
        shown = md_safe(text) + (" (" + "; ".join(extra) + ")" if extra else "")
        rows.append(f"| `{md_safe(name)}` | {shown or '—'} |")
    return rows


def _exit_codes() -> list[str]:
    """The exit-code table, where the CLI publishes one (``EXIT_CODES``: status → meaning)."""
    cli = importlib.import_module("conformance.cli")
    codes = getattr(cli, "EXIT_CODES", None)
    if not isinstance(codes, Mapping) or not codes:
        return []
    out = ["## Exit status", "", "| status | meaning |", "|---|---|"]
    out += [f"| {status} | {md_safe(str(meaning))} |" for status, meaning in codes.items()]
    return [*out, ""]


def cli_page() -> str:
    parser = _parser()
    commands = _subcommands(parser)
    helps = _subcommand_help(parser)
    out = [
        "# Command line",
        "",
        "Every `jhyap` command and option, generated from the program's own argument parser "
        "when this site was built. `jhyap COMMAND --help` prints the same on a terminal.",
        "",
        f"```text\n{_usage(parser)}\n```",
        "",
        md_safe(" ".join((parser.description or "").split())),
        "",
    ]
    top = _argument_rows(parser)
    if top:
        out += ["| option | meaning |", "|---|---|", *top, ""]
    if commands:
        out += ["| command | what it does |", "|---|---|"]
        out += [f"| [`{name}`](#{name}) | {md_safe(helps.get(name, ''))} |" for name in commands]
        out.append("")
    out += _exit_codes()
    for name, sub in commands.items():
        out += [f"## jhyap {name} {{#{name}}}", "", f"```text\n{_usage(sub)}\n```", ""]
        description = " ".join((sub.description or helps.get(name, "")).split())
        if description:
            out += [md_safe(description), ""]
        rows = _argument_rows(sub)
        if rows:
            out += ["| argument | meaning |", "|---|---|", *rows, ""]
        if sub.epilog:
            out += [md_safe(" ".join(sub.epilog.split())), ""]
    return "\n".join(out)
