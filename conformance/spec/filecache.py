"""A disk cache of checked files, keyed by their content.

Loading a transcript or a profile means a strict YAML parse and a schema and
semantic check; their result depends only on the file's bytes, its path, the
profiles it is checked against and this package's own code and schemas. So the
data of a file that checked clean is kept as JSON under a key hashing all of
those: change any of them and the key changes. Files with problems are never
kept, so every problem is found and reported afresh, word for word. ``validate``
and ``run`` share entries, so a run after a validate of the same files is warm.

Entries live in ``$JHYAP_CACHE_DIR``, else ``$XDG_CACHE_HOME/jhyap``, else
``~/.cache/jhyap``; ``JHYAP_CACHE_DIR=off`` turns the cache off. Writes are
atomic (a temporary file renamed into place), so runs sharing the cache never
read half an entry; an unwritable or unreadable cache is silently skipped.

Each entry starts with a header line naming the entry, the SHA-256 of the source
file it was made from and the SHA-256 of its payload: an entry edited, truncated,
copied to another name or made from other bytes fails the check, is removed and
is rebuilt from the file. Only regular files are read (opened non-blocking and
checked with ``fstat``): a FIFO or a device at an entry's name is skipped.

The cache is bounded by size, not by entry count: ``$JHYAP_CACHE_SIZE`` (bytes,
or with a ``K``, ``M`` or ``G`` suffix; default ``DEFAULT_SIZE``, 1 GiB). When a
process's writes take the cache past it, the entries least recently written are
removed until it is under three quarters of it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from . import data, yamlsafe

_OFF = "off"
DEFAULT_SIZE = 1024**3
_MAGIC = b"jhyap-cache-1"
# One entry is one checked file's data: far below this, however large the file.
MAX_ENTRY_BYTES = 16 * yamlsafe.MAX_BYTES
_SIZE_TEXT = re.compile(r"\s*(\d+)\s*([kKmMgG]?)[iI]?[bB]?\s*")
_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


def cache_dir() -> Path | None:
    """Where entries live, or None when the cache is off."""
    explicit = os.environ.get("JHYAP_CACHE_DIR")
    if explicit is not None:
        return None if explicit in ("", _OFF) else Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "jhyap"


def size_limit() -> int:
    """The cache's bound in bytes: ``$JHYAP_CACHE_SIZE``, else DEFAULT_SIZE (also when the
    variable is not a size: the cache is a convenience, never a reason to fail)."""
    text = os.environ.get("JHYAP_CACHE_SIZE")
    if text is None:
        return DEFAULT_SIZE
    match = _SIZE_TEXT.fullmatch(text)
    if match is None:
        return DEFAULT_SIZE
    return int(match.group(1)) * _UNITS[match.group(2).lower()]


def code_fingerprint() -> str:
    """A hash of the code a check result depends on: the loaders and checkers, the
    reference engine and the base package it plays by (profile resolution, the table
    procedure), and the schemas."""
    try:
        schemas: Path | None = data.schema_dir()
    except data.DataNotFound:
        schemas = None
    return _fingerprint(schemas)


def code_files(schemas: Path | None) -> list[Path]:
    """The files ``code_fingerprint`` hashes."""
    package = Path(__file__).resolve().parent.parent
    engine = package.parent / "reference_engine"
    core = package.parent / "jhyap_core"
    files = sorted((package / "spec").glob("*.py")) + sorted(engine.glob("*.py"))
    files += sorted(core.glob("*.py"))
    files.append(package / "commands" / "validate.py")
    if schemas is not None:
        files += sorted(schemas.glob("*.json"))
    return files


@cache
def _fingerprint(schemas: Path | None) -> str:
    digest = hashlib.sha256()
    for path in code_files(schemas):
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


def _digest(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


def _header(name: str, source: bytes | None, payload: bytes) -> bytes:
    source_sum = hashlib.sha256(source).hexdigest() if source is not None else "-"
    payload_sum = _digest(name.encode("utf-8", "surrogateescape"), source_sum.encode(), payload)
    return b" ".join((_MAGIC, source_sum.encode(), payload_sum.encode())) + b"\n"


def _read_entry(path: Path) -> bytes | None:
    """The bytes of the entry file ``path`` when it is a regular file of a sane size."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        # Checked before open() wraps the descriptor: open() refuses a folder with
        # IsADirectoryError (a folder in an entry's place is a miss, as a FIFO is).
        info = os.fstat(fd)
        regular = stat.S_ISREG(info.st_mode) and info.st_size <= MAX_ENTRY_BYTES
    except OSError:
        regular = False
    if not regular:
        os.close(fd)
        return None
    with open(fd, "rb") as handle:
        try:
            return handle.read(MAX_ENTRY_BYTES + 1)
        except OSError:
            return None


def holds(name: str, source: bytes | None = None) -> bool:
    """Whether the entry ``name`` is there and sound, as ``get`` would find it, without
    decoding it: for an entry whose value the caller already holds."""
    folder = cache_dir()
    if folder is None:
        return False
    raw = _read_entry(folder / f"{name}.json")
    if raw is None:
        return False
    head, _, payload = raw.partition(b"\n")
    return head + b"\n" == _header(name, source, payload)


def get(name: str, source: bytes | None = None) -> Any:
    """The entry ``name``, or None when it is missing, unreadable, fails its checksum
    (then it is removed, to be rebuilt), or the cache is off. ``source``: the bytes of
    the file the entry was made from, which the entry's source checksum must match."""
    folder = cache_dir()
    if folder is None:
        return None
    path = folder / f"{name}.json"
    raw = _read_entry(path)
    if raw is None:
        return None
    head, _, payload = raw.partition(b"\n")
    if head + b"\n" != _header(name, source, payload):
        with contextlib.suppress(OSError):
            if stat.S_ISREG(os.lstat(path).st_mode):
                os.unlink(path)  # a stale or tampered entry: the caller rebuilds it
        return None
    try:
        return json.loads(payload)
    except ValueError:
        return None


def put(name: str, value: Any, source: bytes | None = None) -> None:
    """Keep ``value`` (JSON data) as the entry ``name``, made from the file bytes
    ``source``; nothing happens if that fails."""
    if cache_dir() is None:
        return
    try:
        payload = encode(value)
    except (ValueError, TypeError):
        return
    put_encoded(name, payload, source)


def encode(value: Any) -> bytes:
    """``value`` (JSON data) as ``put`` keeps it: for a caller that keeps one value under
    several entries, to encode it once (``put_encoded``)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def put_encoded(name: str, payload: bytes, source: bytes | None = None) -> None:
    """``put`` of a value already encoded by ``encode``; nothing happens if that fails."""
    folder = cache_dir()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        text = _header(name, source, payload) + payload
        if len(text) > MAX_ENTRY_BYTES:
            return
        fd, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(text)
            os.replace(temporary, folder / f"{name}.json")
        except BaseException:
            os.unlink(temporary)
            raise
        _account(folder, len(text))
    except (OSError, ValueError, TypeError):
        return


# The size of each cache folder as this process last knew it (None: not yet scanned).
_known_size: dict[Path, int] = {}


def _account(folder: Path, written: int) -> None:
    """Count ``written`` bytes against the bound; prune when past it. The folder is scanned
    once per process (and after each prune), not once per write."""
    if folder not in _known_size:
        _known_size[folder] = _scan(folder)[0]
    else:
        _known_size[folder] += written
    limit = size_limit()
    if _known_size[folder] > limit:
        _known_size[folder] = _prune(folder, limit * 3 // 4)


def _scan(folder: Path) -> tuple[int, list[tuple[int, int, str]]]:
    """The entries' total size, and (mtime, size, path) of each."""
    entries: list[tuple[int, int, str]] = []
    total = 0
    with os.scandir(folder) as found:
        for entry in found:
            if not entry.name.endswith(".json"):
                continue
            with contextlib.suppress(OSError):  # another run may have removed it
                info = entry.stat(follow_symlinks=False)
                entries.append((info.st_mtime_ns, info.st_size, entry.path))
                total += info.st_size
    return total, entries


def _prune(folder: Path, target: int) -> int:
    """Remove the entries least recently written until the cache holds at most ``target``
    bytes; the size left."""
    total, entries = _scan(folder)
    entries.sort()
    for _, size, path in entries:
        if total <= target:
            break
        with contextlib.suppress(OSError):  # another run may have removed it first
            os.unlink(path)
        total -= size
    return total
