"""``jhyap validate [PATH...]``: check profile and transcript files."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from conformance.reporting.style import plural
from conformance.spec import data, filecache, protocol, yamlsafe
from conformance.spec.profiles import Problem, check_profile_document, load_profile
from conformance.spec.transcript import (
    check_transcript_file,
    documents_context,
    shipped_documents,
)

from . import ExitCode, Subparsers


def register(subparsers: Subparsers[argparse.ArgumentParser]) -> None:
    """Add the ``validate`` subcommand."""
    parser = subparsers.add_parser(
        "validate",
        help="check profile and transcript files",
        description="Check profiles (files with profile_format), transcripts (files with "
        "steps) and the protocol clause catalogue (id: protocol). A directory is searched for "
        "*.yaml and *.yml files. Default: the shipped profiles and protocol clauses.",
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
            found = data.files_under(path, data.PROFILE_SUFFIXES)
            if not found:
                problems.append(
                    Problem(text, 1, "(file)", "directory has no *.yaml or *.yml files")
                )
            files.extend(found)
        elif path.exists():
            files.append(path)  # the loader refuses what is not a regular file
        else:
            problems.append(Problem(text, 1, "(file)", "no such file or directory"))
    unique = list(dict.fromkeys(files))
    return unique, problems


def check_files(files: Iterable[Path]) -> list[Problem]:
    """The problems of every file. Transcripts are checked against the shipped profiles
    and every valid profile among ``files``, so a variant and its transcripts validate
    together."""
    problems: list[Problem] = []
    # Transcripts wait for every profile among ``files``; those already parsed to tell
    # what they are keep their document, so no file is parsed twice.
    transcripts: list[tuple[Path, yamlsafe.YamlDocument | None]] = []
    documents: dict[str, Any] | None = None
    for path in files:
        # A file that checked clean with these very bytes is known to be a valid profile
        # or a transcript (which is checked below, against the profiles, from the cache).
        raw = filecache.read_file(path)
        entry = filecache.key("validated", raw) if raw is not None else None
        known = filecache.get(entry) if entry is not None else None
        if known == "transcript":
            transcripts.append((path, None))
            continue
        if known == "profile":
            document = load_profile(path)
            if documents is None:
                documents = dict(shipped_documents())
            documents[document["id"]] = document
            continue
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
                if entry is not None:
                    filecache.put(entry, "profile")
        elif isinstance(content, dict) and content.get("id") == protocol.OWNER:
            problems.extend(protocol.check_catalogue(path))
        elif isinstance(content, dict) and ("steps" in content or "start_error" in content):
            if entry is not None:
                filecache.put(entry, "transcript")
            transcripts.append((path, doc))
        else:
            problems.append(
                Problem(
                    str(path),
                    doc.line(),
                    "(top)",
                    "neither a profile (no profile_format key), a transcript "
                    "(no steps or start_error key) nor the protocol clauses (id: protocol)",
                )
            )
    context = documents_context(documents)
    for path, loaded in transcripts:
        problems.extend(check_transcript_file(path, documents, doc=loaded, context=context))
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
