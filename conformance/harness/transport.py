"""The pipes to an engine process, read and written in the calling thread.

:class:`LineReader` turns the engine's standard output into whole lines, waiting with
``poll()`` up to a deadline (one registered poll object, no per-call descriptor sets);
:func:`write_all` writes a request, or a window of them, with a deadline and drains the
engine's answers meanwhile, so that a window larger than the pipe buffers cannot make
both sides wait on each other; :class:`StderrTail` keeps the last lines of the engine's
standard error, which a thread of the client drains.
"""

from __future__ import annotations

import contextlib
import math
import os
import select
import threading
import time
from collections import deque
from typing import Final

MAX_RESPONSE_BYTES: Final = 16 * 1024 * 1024
STDERR_TAIL_LINES: Final = 200
STDERR_TAIL_BYTES: Final = 64 * 1024
READ_CHUNK: Final = 64 * 1024

# What the reader puts on its queue besides complete lines.
TOO_LONG: Final = object()
EOF: Final = object()

_READABLE: Final = select.POLLIN | select.POLLPRI | select.POLLHUP | select.POLLERR
_WRITABLE: Final = select.POLLOUT | select.POLLHUP | select.POLLERR


def _milliseconds(seconds: float) -> int:
    """A poll() timeout: rounded up, so that a short wait is a wait and not a peek."""
    return max(0, math.ceil(seconds * 1000))


class LineReader:
    """Whole lines of an engine's standard output: ``lines`` holds complete lines (bytes),
    :data:`TOO_LONG` for a line over :data:`MAX_RESPONSE_BYTES` (dropped) and, last,
    :data:`EOF`."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.lines: deque[object] = deque()
        self.eof = False
        self._partial = bytearray()
        self._discarding = False  # inside a line already reported as too long
        self._poll = select.poll()
        self._poll.register(fd, _READABLE)

    def pump(self, wait: float) -> None:
        """Read what the pipe has within ``wait`` seconds (0: only what is there now)."""
        if self.eof:
            return
        try:
            if not self._poll.poll(0 if wait <= 0 else _milliseconds(wait)):
                return
            chunk = os.read(self.fd, READ_CHUNK)
        except (OSError, ValueError):
            chunk = b""  # the pipe was closed under us by close()
        if chunk:
            self._split(chunk)
            return
        if self._partial and not self._discarding:
            self.lines.append(bytes(self._partial))  # a last line without its newline
        self._partial.clear()
        self.end()

    def end(self) -> None:
        """No more output will be read (the pipe closed, or the process exited)."""
        if not self.eof:
            self.eof = True
            self.lines.append(EOF)

    def _split(self, chunk: bytes) -> None:
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                if not self._discarding:
                    self._partial += chunk[start:]
                    if len(self._partial) > MAX_RESPONSE_BYTES:
                        self._partial.clear()
                        self._discarding = True
                        self.lines.append(TOO_LONG)
                return
            if self._discarding:
                self._discarding = False
            elif self._partial:
                self._partial += chunk[start:end]
                self.lines.append(bytes(self._partial))
                self._partial.clear()
            else:
                self.lines.append(chunk[start:end])
            start = end + 1
            if start == len(chunk):
                return


def write_all(fd: int, data: bytes, deadline: float, reader: LineReader) -> bool:
    """Write ``data`` to the non-blocking ``fd`` by ``deadline``; False if the time ran out.

    While the pipe is full, what the engine answers is read into ``reader``: an engine
    that answers each line as it reads it never waits on us for room in its output pipe.
    Raises OSError (BrokenPipeError) when the engine's input is closed."""
    try:
        written = os.write(fd, data)  # the usual case: the whole window fits at once
    except BlockingIOError:
        written = 0
    if written == len(data):
        return True
    view = memoryview(data)[written:]
    watch = select.poll()
    watch.register(fd, _WRITABLE)
    if not reader.eof:
        watch.register(reader.fd, _READABLE)
    while view:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        for ready, _ in watch.poll(_milliseconds(remaining)):
            if ready == reader.fd:
                reader.pump(0)
                if reader.eof:
                    watch.unregister(reader.fd)
        with contextlib.suppress(BlockingIOError):
            view = view[os.write(fd, view) :]
    return True


class StderrTail:
    """The last lines an engine wrote to standard error, bounded in lines and bytes."""

    def __init__(self) -> None:
        self._lines: deque[str] = deque()
        self._bytes = 0
        self._partial = b""
        self._pushed = 0  # lines taken in since the engine started, kept or not
        self._lock = threading.Lock()

    def feed(self, chunk: bytes) -> None:
        with self._lock:
            data = self._partial + chunk
            *complete, partial = data.split(b"\n")
            # A line without end is cut: keep its start, never more than the byte budget.
            self._partial = partial[:STDERR_TAIL_BYTES]
            for raw in complete[-STDERR_TAIL_LINES:]:
                self._push(raw)

    def finish(self) -> None:
        with self._lock:
            if self._partial:
                self._push(self._partial)
                self._partial = b""

    def _push(self, raw: bytes) -> None:
        line = raw[:STDERR_TAIL_BYTES].decode("utf-8", "replace").rstrip("\r")
        self._lines.append(line)
        self._pushed += 1
        self._bytes += len(line)
        while len(self._lines) > STDERR_TAIL_LINES or (
            self._bytes > STDERR_TAIL_BYTES and len(self._lines) > 1
        ):
            self._bytes -= len(self._lines.popleft())

    def mark(self) -> int:
        """A position in the stream: ``lines(since=mark)`` holds only what comes after it."""
        with self._lock:
            return self._pushed

    def lines(self, since: int = 0) -> list[str]:
        with self._lock:
            extra = [self._partial.decode("utf-8", "replace")] if self._partial else []
            kept = list(self._lines)
            fresh = max(0, min(len(kept), self._pushed - since))
            return kept[len(kept) - fresh :] + extra
