"""Writing files safely: whole or not at all, with the umask's mode, and never through a
symbolic link or over something that is not a regular file.

A file is written to a temporary file in the target's directory and renamed over the
target, so readers see the old file or the new one. :func:`write_atomic` refuses, with
:class:`WriteRefused` (an OSError whose text is one readable sentence), a target that is
a symbolic link or not a regular file, with ``replace=False`` any existing target, and
with an :class:`OutputKind` a target that is not a file of that kind (a report replaces
the last run's report, never a file of someone else's). :func:`write_report` writes a
report there or, for the path ``-``, to standard output.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final

_UMASK_LOCK = threading.Lock()


@dataclass(frozen=True)
class OutputKind:
    """A kind of file a command writes and may replace unasked: only a file that begins
    as every file of the kind begins (``signature``, a regular expression matched at the
    start of its first ``HEAD_BYTES``), or an empty one. Anything else there is someone's
    data, replaced only with ``--force``."""

    what: str  # "a jhyap run JSON report", for the message
    signature: str

    def begins(self, text: str) -> bool:
        """Whether ``text`` begins as a file of this kind."""
        return re.match(self.signature, text) is not None

    def is_one(self, path: str | Path) -> bool:
        """Whether the file at ``path`` is empty or begins with the signature."""
        with open(path, "rb") as handle:
            head = handle.read(HEAD_BYTES)
        return not head or self.begins(head.decode("utf-8", "replace"))


HEAD_BYTES = 4096


class WriteRefused(OSError):
    """The target is in the way: a link, not a regular file, or (unasked) a file."""

    def __str__(self) -> str:
        return str(self.args[0])


def current_umask() -> int:
    """The process's umask, read without changing it where /proc tells it."""
    with (
        contextlib.suppress(OSError, ValueError),
        open("/proc/self/status", encoding="ascii") as handle,
    ):
        for line in handle:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    with _UMASK_LOCK:  # setting it is the only portable way to read it
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def check_target(path: str | Path, *, replace: bool = True, kind: OutputKind | None = None) -> bool:
    """Whether ``path`` exists; WriteRefused when writing it would be wrong: a link, not a
    regular file, any file unless ``replace``, a file not of ``kind`` when one is given."""
    target = Path(path)
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(info.st_mode):
        raise WriteRefused(f"{target} is a symbolic link; not replaced")
    if not stat.S_ISREG(info.st_mode):
        raise WriteRefused(f"{target} is not a regular file; not replaced")
    if not replace:
        raise WriteRefused(f"{target} exists; not replaced (--force replaces it)")
    if kind is not None and not kind.is_one(target):
        raise WriteRefused(
            f"{target} exists and is not {kind.what}; not replaced (--force replaces it)"
        )
    return True


def write_atomic(
    path: str | Path, text: str, *, replace: bool = True, kind: OutputKind | None = None
) -> None:
    """Write ``text`` so that readers see the old file or the new one, never a part;
    ``kind``: replace only a file of that kind (see :func:`check_target`)."""
    target = Path(path)
    check_target(target, replace=replace, kind=kind)
    folder = target.parent if str(target.parent) else Path(".")
    fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        os.fchmod(fd, 0o666 & ~current_umask())  # mkstemp makes 0600 whatever the umask
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if replace:
            os.replace(temp, target)  # replaces a link itself, never what it points to
        else:
            os.link(temp, target)  # fails if the target appeared meanwhile
            os.unlink(temp)
    except FileExistsError:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise WriteRefused(f"{target} exists; not replaced (--force replaces it)") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


STDOUT: Final = "-"  # a report path meaning standard output


def write_report(
    path: str,
    text: str,
    stdout: IO[str] | None = None,
    *,
    kind: OutputKind | None = None,
    force: bool = False,
) -> None:
    """Write a report to ``path``, or to standard output when ``path`` is ``-``; an
    existing file only when it is a report of ``kind`` or ``force`` is given."""
    if path == STDOUT:
        out = stdout if stdout is not None else sys.stdout
        out.write(text)
        out.flush()
    else:
        write_atomic(path, text, kind=None if force else kind)


MAX_INPUT_BYTES: Final = 64 * 1024 * 1024  # a report or shard file read whole


class InputRefused(OSError):
    """An input file that is not one to read whole: not a regular file, or too large."""

    def __str__(self) -> str:
        return str(self.args[0])


def _kind_of(mode: int) -> str:
    kinds = (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def read_input(path: str | Path, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them. It is opened
    without blocking (a named pipe with no writer would wait forever) and checked on its
    descriptor, so a pipe, a device such as /dev/zero or a folder is refused at once, and
    a file that grows past ``limit`` while read is refused too (:class:`InputRefused`)."""
    name = os.fsdecode(path)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputRefused(f"{name}: {_kind_of(info.st_mode)}, not a regular file")
        too_large = InputRefused(f"{name}: larger than {limit:,} bytes")
        if info.st_size > limit:
            raise too_large
        chunks: list[bytes] = []
        read = 0
        while read <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - read))
            if not chunk:
                break
            chunks.append(chunk)
            read += len(chunk)
        if read > limit:
            raise too_large
        return b"".join(chunks)
    finally:
        os.close(fd)


def os_error_text(exc: OSError, path: str | Path | None = None) -> str:
    """An OSError as people read it: ``path: No such file or directory``, no errno.
    ``path`` names the file meant (not the temporary file a write failed on); a refused
    write already says which file was in the way."""
    if isinstance(exc, (WriteRefused, InputRefused)):
        return str(exc)
    reason = exc.strerror or str(exc)
    name = path if path is not None else exc.filename
    return f"{os.fsdecode(name)}: {reason}" if name is not None else reason
