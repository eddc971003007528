"""``jhyap validate [PATH...]``: check profile and transcript files."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from conformance.reporting.style import plural
from conformance.spec import data, yamlsafe
from conformance.spec.profiles import Problem, check_profile_document, load_profile
from conformance.spec.transcript import check_transcript_file, shipped_documents

from . import ExitCode, Subparsers


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


def check_files(files: Iterable[Path]) -> list[Problem]:
    """The problems of every file. Transcripts are checked against the shipped profiles
    and every valid profile among ``files``, so a variant and its transcripts validate
    together."""
    problems: list[Problem] = []
    transcripts: list[Path] = []
    documents: dict[str, Any] | None = None
    for path in files:
        try:
            doc = yamlsafe.load(path)
        except yamlsafe.YamlProblem as exc:
            field = yamlsafe.format_path(exc.path or ()) or "(file)"
            problems.append(Problem(exc.file, exc.line, field, exc.message))
            continue
        content = doc.data
        if isinstance(content, dict) and "profile_format" in content:
            found = list(check_profile_document(doc))
            problems.extend(found)
            if not found and isinstance(content.get("id"), str):
                if documents is None:
                    documents = dict(shipped_documents())
                documents[content["id"]] = load_profile(path)
        elif isinstance(content, dict) and ("steps" in content or "start_error" in content):
            transcripts.append(path)
        else:
            problems.append(
                Problem(
                    str(path),
                    doc.line(),
                    "(top)",
                    "neither a profile (no profile_format key) nor a transcript "
                    "(no steps or start_error key)",
                )
            )
    for path in transcripts:
        problems.extend(check_transcript_file(path, documents))
    return problems


def run(args: argparse.Namespace) -> int:
    """Print every problem, one per line (a missing path is one); exit 1 if any."""
    paths: list[str] = args.paths or [str(data.specs_dir())]
    files, problems = collect(paths)
    found: list[Problem] = [*problems, *check_files(files)]
    for problem in found:
        print(problem)
    if found:
        return ExitCode.FAILURES
    print(f"OK: {plural(len(files), 'file')} valid")
    return ExitCode.OK
