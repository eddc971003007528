"""A disk cache of checked files, keyed by their content.

Loading a transcript or a profile means a strict YAML parse and a schema and
semantic check; their result depends only on the file's bytes, its path, the
profiles it is checked against and this package's own code and schemas. So the
data of a file that checked clean is kept as JSON under a key hashing all of
those: change any of them and the key changes. Files with problems are never
kept, so every problem is found and reported afresh, word for word.

Entries live in ``$JHYAP_CACHE_DIR``, else ``$XDG_CACHE_HOME/jhyap``, else
``~/.cache/jhyap``; ``JHYAP_CACHE_DIR=off`` turns the cache off. Writes are
atomic (a temporary file renamed into place), so runs sharing the cache never
read half an entry; an unwritable or unreadable cache is silently skipped. Past
MAX_ENTRIES entries the older half is dropped.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from . import data, yamlsafe

_OFF = "off"
MAX_ENTRIES = 5000  # past this, a write drops the older half (entries of old code, mostly)


def cache_dir() -> Path | None:
    """Where entries live, or None when the cache is off."""
    explicit = os.environ.get("JHYAP_CACHE_DIR")
    if explicit is not None:
        return None if explicit in ("", _OFF) else Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "jhyap"


def code_fingerprint() -> str:
    """A hash of the code a check result depends on: the loaders and checkers, the
    engine's profile resolution, and the schemas."""
    try:
        schemas: Path | None = data.schema_dir()
    except data.DataNotFound:
        schemas = None
    return _fingerprint(schemas)


@cache
def _fingerprint(schemas: Path | None) -> str:
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent.parent
    engine = package.parent / "reference_engine"
    files = sorted((package / "spec").glob("*.py")) + sorted(engine.glob("*.py"))
    files.append(package / "commands" / "validate.py")
    if schemas is not None:
        files += sorted(schemas.glob("*.json"))
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def fingerprint(value: Any) -> str:
    """A hash of JSON data (say, the profiles a transcript is checked against)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def read_file(path: str | os.PathLike[str]) -> bytes | None:
    """The bytes of a regular file the strict loader would accept, else None (not cached)."""
    try:
        with open(path, "rb", opener=_nonblocking) as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > yamlsafe.MAX_BYTES:
                return None
            return handle.read(yamlsafe.MAX_BYTES + 1)
    except OSError:
        return None


def _nonblocking(path: str, flags: int) -> int:
    # A FIFO must not block the cache's look; the loader proper then refuses it.
    return os.open(path, flags | getattr(os, "O_NONBLOCK", 0))


def key(kind: str, content: bytes, *context: str) -> str:
    """The entry name for ``content`` of one ``kind``, in ``context`` (path, profiles...)."""
    digest = hashlib.sha256()
    for part in (kind, code_fingerprint(), *context):
        digest.update(part.encode("utf-8", "surrogateescape"))
        digest.update(b"\0")
    digest.update(content)
    return f"{kind}-{digest.hexdigest()}"


def get(name: str) -> Any:
    """The entry ``name``, or None when it is missing, unreadable or the cache is off."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        with open(folder / f"{name}.json", "rb") as handle:
            return json.loads(handle.read())
    except (OSError, ValueError):
        return None


def put(name: str, value: Any) -> None:
    """Keep ``value`` (JSON data) as the entry ``name``; nothing happens if that fails."""
    folder = cache_dir()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        fd, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(temporary, folder / f"{name}.json")
        except BaseException:
            os.unlink(temporary)
            raise
        _prune(folder)
    except (OSError, ValueError, TypeError):
        return


def _prune(folder: Path) -> None:
    """Keep the cache bounded: over MAX_ENTRIES entries, remove the older half."""
    entries = [e for e in os.scandir(folder) if e.name.endswith(".json")]
    if len(entries) <= MAX_ENTRIES:
        return
    entries.sort(key=lambda e: e.stat().st_mtime_ns)
    for entry in entries[: len(entries) // 2]:
        with contextlib.suppress(OSError):  # another run may have removed it first
            os.unlink(entry.path)
