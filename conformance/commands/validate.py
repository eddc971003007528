"""``jhyap validate [PATH...]``: check profile and transcript files."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import COMMAND_HELP, ExitCode, Subparsers

if TYPE_CHECKING:
    from conformance.spec.profiles import Problem


def register(subparsers: Subparsers[argparse.ArgumentParser]) -> None:
    """Add the ``validate`` subcommand."""
    parser = subparsers.add_parser(
        "validate",
        help=COMMAND_HELP["validate"],
        description="Check profiles (files with profile_format), transcripts (files with "
        "steps) and the protocol clause catalogue (id: protocol). A directory is searched for "
        "*.yaml and *.yml files. Default: everything shipped: the profiles and protocol "
        "clauses, the transcript corpus, and in a checkout the example engines' profiles "
        "(examples/*/rules.yaml).",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="a file or directory")
    parser.set_defaults(run=run)


def collect(paths: Iterable[str]) -> tuple[list[Path], list[Problem]]:
    """The YAML files named by ``paths`` (directories searched), and missing paths."""
    # lazy: start-up speed
    from conformance.spec import data
    from conformance.spec.profiles import Problem

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
    together.

    Files stream: a transcript is checked as soon as it is read, against the profiles
    seen so far, and its parsed document dropped. Only a transcript read before the last
    profile is checked again (parsed again, unless the cache knows it), against them all;
    so memory does not grow with the corpus, and the problems come out as if every
    profile had been read first: those of the other files, then the transcripts'."""
    # lazy: start-up speed
    from conformance.spec import filecache, protocol, yamlsafe
    from conformance.spec.profiles import (
        Problem,
        ProfileFileError,
        check_profile_document,
        load_profile,
    )
    from conformance.spec.transcript import check_transcript_file, documents_context
    from conformance.spec.transcript_profiles import shipped_documents

    problems: list[Problem] = []
    # Each transcript, with the number of profiles added when it was checked, and its problems.
    transcripts: list[tuple[Path, int, list[Problem]]] = []
    documents: dict[str, Any] | None = None
    added = 0  # profiles among ``files`` so far
    context: str | None = None
    context_of = -1  # ``added`` when ``context`` was computed
    for path in files:
        # A file that checked clean with these very bytes is known to be a valid profile
        # or a transcript (which is checked below, against the profiles, from the cache).
        raw = filecache.read_file(path)
        entry = filecache.key("validated", raw) if raw is not None else None
        known = filecache.get(entry, raw) if entry is not None else None
        doc: yamlsafe.YamlDocument | None = None
        if known == "profile":
            try:
                document = load_profile(path)
            except ProfileFileError as exc:
                problems.extend(exc.problems)
                continue
            if documents is None:
                documents = dict(shipped_documents())
            documents[document["id"]] = document
            added += 1
            continue
        if known != "transcript":
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
                    try:
                        loaded = load_profile(path)
                    except ProfileFileError as exc:  # what only the whole profile shows
                        problems.extend(exc.problems)
                        continue
                    if documents is None:
                        documents = dict(shipped_documents())
                    documents[content["id"]] = loaded
                    added += 1
                    if entry is not None:
                        filecache.put(entry, "profile", raw)
                continue
            if isinstance(content, dict) and content.get("id") == protocol.OWNER:
                problems.extend(protocol.check_catalogue(path))
                continue
            if not (isinstance(content, dict) and ("steps" in content or "start_error" in content)):
                problems.append(
                    Problem(
                        str(path),
                        doc.line(),
                        "(top)",
                        "neither a profile (no profile_format key), a transcript "
                        "(no steps or start_error key) nor the protocol clauses (id: protocol)",
                    )
                )
                continue
            if entry is not None:
                filecache.put(entry, "transcript", raw)
        if context_of != added:
            context, context_of = documents_context(documents), added
        found = check_transcript_file(path, documents, doc=doc, context=context)
        transcripts.append((path, added, found))
        del doc  # before the next file is read
    if any(seen != added for _, seen, _ in transcripts):
        context = documents_context(documents)
    for path, seen, found in transcripts:
        if seen != added:  # a profile came after it: check it against them all
            found = check_transcript_file(path, documents, context=context)
        problems.extend(found)
    return problems


def shipped() -> list[tuple[str, list[str]]]:
    """What a bare ``jhyap validate`` checks, by what it is: the specs (profiles and protocol
    clauses), the transcript corpus, and in a checkout the example engines' profiles."""
    # lazy: start-up speed
    from conformance.spec import data

    groups = [
        ("the shipped specs", [str(data.specs_dir())]),
        ("the transcript corpus", [str(data.transcripts_dir())]),
    ]
    examples = sorted((data.PACKAGE_DIR.parent / "examples").glob("*/rules.yaml"))
    if examples:
        groups.append(("the examples' profiles", [str(path) for path in examples]))
    return groups


def run(args: argparse.Namespace) -> int:
    """Print every problem, one per line (a missing path is one); exit 1 if any."""
    # lazy: start-up speed
    from conformance.spec.wording import plural

    groups = [("", list(args.paths))] if args.paths else shipped()
    files: list[Path] = []
    problems: list[Problem] = []
    counts: list[str] = []
    for what, paths in groups:
        found_files, missing = collect(paths)
        files += [f for f in found_files if f not in files]
        problems += missing
        counts.append(f"{what}: {len(found_files)}")
    found: list[Problem] = [*problems, *check_files(files)]
    for problem in found:
        print(problem)
    if found:
        return ExitCode.FAILURES
    print(
        f"OK: {plural(len(files), 'file')} valid"
        + ("" if args.paths else f" ({', '.join(counts)})")
    )
    return ExitCode.OK
