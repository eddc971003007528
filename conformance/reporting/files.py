"""Writing files safely: whole or not at all, with the umask's mode, and never through a
symbolic link or over something that is not a regular file.

A file is written to a temporary file in the target's directory and renamed over the
target, so readers see the old file or the new one. :func:`write_atomic` refuses, with
:class:`WriteRefused` (an OSError whose text is one readable sentence), a target that is
a symbolic link or not a regular file, and with ``replace=False`` any existing target.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import threading
from pathlib import Path

_UMASK_LOCK = threading.Lock()


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


def check_target(path: str | Path, *, replace: bool = True) -> bool:
    """Whether ``path`` exists; WriteRefused when writing it would be wrong."""
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
    return True


def write_atomic(path: str | Path, text: str, *, replace: bool = True) -> None:
    """Write ``text`` so that readers see the old file or the new one, never a part."""
    target = Path(path)
    check_target(target, replace=replace)
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
