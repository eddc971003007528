"""``jhyap validate [PATH...]``: check profile and transcript files."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Iterable
from pathlib import Path

from conformance import data, yamlsafe
from conformance.profiles import Problem, check_profile_document

from . import Subparsers

TRANSCRIPT_MODULES = ("conformance.transcript",)  # check_transcript_file lives there
Checker = Callable[[Path], Iterable[object]]


def register(subparsers: Subparsers[argparse.ArgumentParser]) -> None:
    """Add the ``validate`` subcommand."""
    parser = subparsers.add_parser(
        "validate",
        help="check profile and transcript files",
        description="Check profiles (files with profile_format) and transcripts (files with "
        "steps). A directory is searched for *.yaml and *.yml files. Default: the shipped "
        "profiles.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="a file or directory")
    parser.set_defaults(run=run)


def collect(paths: Iterable[str]) -> tuple[list[Path], list[Problem]]:
    """The YAML files named by ``paths`` (directories searched), and missing paths."""
    files: list[Path] = []
    problems: list[Problem] = []
    for text in paths:
        path = Path(text)
        if path.is_dir():
            found = sorted(
                p for p in path.rglob("*") if p.suffix in data.PROFILE_SUFFIXES and p.is_file()
            )
            if not found:
                problems.append(
                    Problem(text, 1, "(file)", "directory has no *.yaml or *.yml files")
                )
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            problems.append(Problem(text, 1, "(file)", "no such file or directory"))
    unique = list(dict.fromkeys(files))
    return unique, problems


def transcript_checker() -> Checker | None:
    """``check_transcript_file`` of the transcript module, if one is installed."""
    for name in TRANSCRIPT_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        checker = getattr(module, "check_transcript_file", None)
        if callable(checker):
            return checker  # type: ignore[no-any-return]
    return None


def check_file(path: Path) -> list[object]:
    """The problems of one file, a profile or a transcript by its content."""
    try:
        doc = yamlsafe.load(path)
    except yamlsafe.YamlProblem as exc:
        field = yamlsafe.format_path(exc.path or ()) or "(file)"
        return [Problem(exc.file, exc.line, field, exc.message)]
    content = doc.data
    if isinstance(content, dict) and "profile_format" in content:
        return list(check_profile_document(doc))
    if isinstance(content, dict) and ("steps" in content or "start_error" in content):
        checker = transcript_checker()
        if checker is None:
            return [Problem(str(path), 1, "(file)", "transcript checking not available")]
        return list(checker(path))
    return [
        Problem(
            str(path),
            doc.line(),
            "(top)",
            "neither a profile (no profile_format key) nor a transcript "
            "(no steps or start_error key)",
        )
    ]


def run(args: argparse.Namespace) -> int:
    """Print every problem, one per line; exit 1 if any."""
    paths: list[str] = args.paths or [str(data.specs_dir())]
    files, problems = collect(paths)
    found: list[object] = list(problems)
    for path in files:
        found.extend(check_file(path))
    for problem in found:
        print(problem)
    if found:
        return 1
    print(f"OK: {len(files)} files valid")
    return 0
