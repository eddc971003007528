"""The checks every command makes of its arguments before it does anything.

One home for: numbers (:func:`whole` and :func:`seconds`, argparse types that take a finite
value in a sane range), paths (:func:`path_text`, a path the system can open at all) and
outputs (:func:`clashing_paths`, two paths of one command naming the same file). A value
they refuse is reported by :class:`CommandParser` on one line, ``jhyap CMD: --opt: must be
...``, exit status 2, before anything runs.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import stat
import sys
from collections.abc import Callable, Sequence
from typing import Any, Final, NoReturn

from conformance.spec.files import OutputKind, WriteRefused, check_target
from jhyap_core.text import clip_words

# The longest a path and one of its parts may be (Linux's PATH_MAX and NAME_MAX, in bytes).
PATH_MAX = 4095
NAME_MAX = 255
CLIP = 40  # characters of a refused value that a message repeats

# The ranges of the numeric options (what the help and the messages say).
MAX_TIMEOUT: Final = 86400  # seconds: a day for one response
MAX_DURATION: Final = 604800  # seconds: a week of fuzzing
MAX_ENGINE_MEMORY: Final = 1048576  # MiB: 1 TiB of address space
MAX_ENGINE_CPU: Final = 604800  # seconds of CPU time
MAX_GAMES: Final = 10_000_000  # fuzz games (played one by one)
MAX_SIMULATED_GAMES: Final = 1_000_000  # simulate keeps a record of each game
MAX_ROUNDS: Final = 10_000
MAX_SEATS: Final = 64
MAX_SEED: Final = 2**63 - 1
MAX_WINDOW: Final = 10_000
MAX_SHRINK_BUDGET: Final = 10_000_000
MAX_FINDINGS: Final = 1000  # distinct divergences one fuzz run shrinks


def clip(text: str, limit: int = CLIP) -> str:
    """``text`` as a message repeats it: at most ``limit`` characters, the cut said."""
    if len(text) <= limit:
        return text
    return f"{text[: limit - 1]}… ({len(text)} characters)"


def quoted(text: str) -> str:
    """A refused value, quoted and clipped, for a message."""
    return repr(clip(text))


def whole(minimum: int, maximum: int) -> Callable[[str], int]:
    """An argparse type: a whole number from ``minimum`` to ``maximum``."""

    def parse(text: str) -> int:
        word = text.strip()
        if re.fullmatch(r"[+-]?\d{1,30}", word):
            value = int(word)
            if minimum <= value <= maximum:
                return value
        raise argparse.ArgumentTypeError(
            f"must be a whole number from {minimum} to {maximum}, not {quoted(text)}"
        )

    parse.__name__ = "whole number"
    return parse


def seconds(maximum: float) -> Callable[[str], float]:
    """An argparse type: a finite number of seconds above 0 and at most ``maximum``."""

    def parse(text: str) -> float:
        try:
            value = float(text) if len(text) <= 30 else math.nan
        except ValueError:
            value = math.nan
        if math.isfinite(value) and 0 < value <= maximum:
            return value
        raise argparse.ArgumentTypeError(
            f"must be a number of seconds above 0 and at most {maximum:g}, not {quoted(text)}"
        )

    parse.__name__ = "seconds"
    return parse


def path_problem(text: str) -> str | None:
    """Why the system cannot open ``text`` as a path at all, or None."""
    try:
        encoded = os.fsencode(text)
    except UnicodeError:
        return "must be a path that can be encoded"
    if b"\0" in encoded:
        return "must be a path without a NUL character"
    if len(encoded) > PATH_MAX:
        return f"must be a path of at most {PATH_MAX} bytes, not {len(encoded)}"
    longest = max(encoded.split(b"/"), key=len)
    if len(longest) > NAME_MAX:
        return (
            f"must be a path whose every part is at most {NAME_MAX} bytes, "
            f"not {len(longest)} ({quoted(os.fsdecode(longest))})"
        )
    return None


def path_text(text: str) -> str:
    """An argparse type: a path (or a name) the system can open; the text unchanged."""
    problem = path_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text


path_text.__name__ = "path"

# The metavars of the arguments that name a file or a folder (or a profile, an id or a
# file): CommandParser gives each of them the type path_text unless it has a type.
PATH_METAVARS: Final = frozenset({"FILE", "DIR", "PATH", "PROFILE", "P"})

STDOUT = "-"


def _identity(path: str) -> tuple[str, tuple[int, int] | None]:
    """What names a file: its resolved path, and its device and inode when it exists."""
    resolved = os.path.realpath(path)
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return resolved, None
    return resolved, (info.st_dev, info.st_ino)


def clashing_paths(
    outputs: Sequence[tuple[str, str | None]], inputs: Sequence[tuple[str, str | None]] = ()
) -> str | None:
    """Why two paths of one command name one file, or None: two of ``outputs`` ((option,
    path) pairs), or an output and an existing file of ``inputs``. Standard output (``-``)
    and unset options are left out; spellings of a path (``./x``, ``a/../x``, a symbolic
    or a hard link) are one file."""
    seen: list[tuple[str, str, tuple[str, tuple[int, int] | None]]] = []
    for index, (option, path) in enumerate((*outputs, *inputs)):
        if path is None or path == STDOUT or path_problem(path) is not None:
            continue
        identity = _identity(path)
        if index >= len(outputs) and identity[1] is None:
            continue  # an input that is no file (a profile id) cannot be lost
        for other, other_path, known in seen:
            same_inode = identity[1] is not None and identity[1] == known[1]
            if identity[0] == known[0] or same_inode:
                where = clip(path if path == other_path else f"{other_path} and {path}", 120)
                return f"{other} and {option} name the same file ({where}); give each its own"
        if index < len(outputs):
            seen.append((option, path, identity))
    return None


def folder_problem(path: str) -> str | None:
    """Why ``path`` cannot be (or become) a folder to write in, or None: it, or the nearest
    part of it that exists, is no folder, or cannot be written in."""
    here = os.path.abspath(path)
    while True:
        try:
            info = os.stat(here)
        except (FileNotFoundError, NotADirectoryError):
            parent = os.path.dirname(here)
            if parent == here:
                return None
            here = parent
            continue
        except OSError as exc:
            return f"{clip(here, 120)}: {exc.strerror}"
        break
    shown = os.path.relpath(here) if not os.path.isabs(path) else here
    if not stat.S_ISDIR(info.st_mode):
        return f"{clip(shown, 120)} is a file, not a folder"
    if not os.access(here, os.W_OK | os.X_OK):
        return f"{clip(shown, 120)} is a folder this user cannot write in"
    return None


def report_file_problem(
    path: str | None, kind: OutputKind | None = None, force: bool = False
) -> str | None:
    """Why a report cannot be written at ``path``, or None; checked before a run starts so
    that a long run is not lost to a mistyped folder or to a file in the way (one that is
    not a report of ``kind``, unless ``force``). Standard output and unset are fine."""
    if path is None or path == STDOUT or path_problem(path) is not None:
        return None
    shown = clip(path, 120)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        return f"{shown}: {exc.strerror}"
    if info is not None and stat.S_ISDIR(info.st_mode):
        return f"{shown} is a folder, not a file"
    if info is not None:
        try:
            check_target(path, kind=None if force else kind)
        except WriteRefused as exc:
            return clip_words(str(exc))
        except OSError as exc:
            return f"{shown}: {exc.strerror}"
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"{shown}: its folder {clip(os.path.dirname(path), 120)} does not exist"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"{shown}: its folder is one this user cannot write in"
    return None


# What argparse should read as a negative number, not an option: its own forms (-1, -.5)
# and what float() reads besides (-inf, -nan, -1e3, -1.5e-3).
NEGATIVE_NUMBER: Final = re.compile(
    r"^-(?:(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?|inf|infinity|nan)$", re.IGNORECASE
)


class CommandParser(argparse.ArgumentParser):
    """argparse's parser, but every argument naming a file or folder (its metavar is one of
    PATH_METAVARS) is checked by path_text, and a value refused by one of the types above
    is reported on one line, ``PROG: OPTION: must be ...``, without the usage."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # argparse takes "-inf" or "-1e3" after an option for another option ("expected one
        # argument", with the whole usage): read every negative number as a value, so the
        # option's type refuses it in one line. No jhyap option looks like a number.
        self._negative_number_matcher = NEGATIVE_NUMBER

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        if kwargs.get("metavar") in PATH_METAVARS and kwargs.get("type") is None:
            kwargs["type"] = path_text
        return super().add_argument(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        found = re.fullmatch(r"argument ([^:\s/]+)(?:/\S+)?: (must be .*)", message, re.S)
        if found:
            print(f"{self.prog}: {found.group(1)}: {found.group(2)}", file=sys.stderr)
            self.exit(2)
        # argparse would say "PROG: error: ..."; every jhyap error reads "jhyap CMD: ...".
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: {message}\n")
