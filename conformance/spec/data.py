"""Where the shipped data lives, from a source checkout or from an installed wheel.

The search for ``specs/`` and ``schema/`` (a checkout's, or the wheel's
``conformance/_data``) is :mod:`reference_engine.shipped`'s, which the engine reads the
profile schema with; transcripts live inside the package in both cases.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from reference_engine.shipped import DataNotFound as DataNotFound
from reference_engine.shipped import data_dir
from reference_engine.shipped import schema_dir as schema_dir

PACKAGE_DIR = Path(__file__).resolve().parent.parent
PROFILE_SUFFIXES = (".yaml", ".yml")


class ProfileNotFound(LookupError):
    """A profile name that is neither a shipped id nor an existing file."""


def specs_dir() -> Path:
    """The directory of the shipped profiles."""
    return data_dir("specs")


def transcripts_dir() -> Path:
    """The directory of the shipped transcripts (inside the package)."""
    return PACKAGE_DIR / "transcripts"


def files_under(root: Path, suffixes: tuple[str, ...]) -> list[Path]:
    """Every entry under ``root`` whose name ends in one of ``suffixes``, directories
    aside, sorted. The walk is iterative (a tree may be deeper than Python's recursion
    limit) and enters each directory once (symbolic links may form loops). Entries that
    are not regular files are listed too, for the loader to refuse with a message."""
    found: list[Path] = []
    seen: set[tuple[int, int]] = set()
    pending = [root]
    while pending:
        folder = pending.pop()
        try:
            info = folder.stat()
            if (info.st_dev, info.st_ino) in seen:
                continue
            seen.add((info.st_dev, info.st_ino))
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            path = folder / entry.name
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                pending.append(path)
            elif entry.name.endswith(suffixes):
                found.append(path)
    return sorted(found)


def shipped_profile_paths() -> list[Path]:
    """Every shipped profile file, sorted by name."""
    folder = specs_dir()
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in PROFILE_SUFFIXES)


def shipped_profile_ids() -> list[str]:
    """The ids of the shipped profiles (their file stems)."""
    return [p.stem for p in shipped_profile_paths()]


def looks_like_path(text: str) -> bool:
    """Whether a profile name is meant as a file (a folder in it, a YAML suffix, a leading
    dot), not a shipped profile's id."""
    return (
        os.sep in text
        or (os.altsep is not None and os.altsep in text)
        or text.endswith(PROFILE_SUFFIXES)
        or text.startswith(".")
    )


def _file_kind(path: Path) -> str | None:
    """What ``path`` is when it is there but no regular file (None: not there, or a file)."""
    try:
        mode = path.stat().st_mode
    except (OSError, ValueError):
        return None
    kinds = (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    )
    return next((word for test, word in kinds if test(mode)), None)


def find_profile(name_or_path: str | os.PathLike[str]) -> Path:
    """The file of a shipped profile id such as ``dhumbal``, or the given path to a YAML file.

    Raises ProfileNotFound naming the shipped ids when neither matches.
    """
    text = os.fspath(name_or_path)
    candidate = Path(text)
    if candidate.is_file():
        return candidate
    if not isinstance(name_or_path, str) or looks_like_path(text):
        kind = _file_kind(candidate)
        if kind is not None:
            raise ProfileNotFound(f"{text} is {kind}, not a profile file")
        raise ProfileNotFound(f"no such profile file: {text}")
    for path in shipped_profile_paths():
        if path.stem == text:
            return path
    known = ", ".join(shipped_profile_ids()) or "none"
    raise ProfileNotFound(f"unknown profile {text!r}; shipped profiles: {known}")
