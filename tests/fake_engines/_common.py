"""Shared by the fake engines: the reference engine's session behind a hook.

Lines that are no JSON object are answered as the reference answers them, unhooked
(crash_on_non_json.py is the engine that does not).

A fake engine is a script run as ``sys.executable tests/fake_engines/<name>.py``. When
``FAKE_ENGINE_PIDS`` names a directory, each writes its pid there, so that tests can
check afterwards that no engine process survived.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from jhyap_core.vocabulary import ErrorCode, JhyapError  # noqa: E402
from reference_engine.server import MAX_LINE_BYTES, Session, decode_request  # noqa: E402

__all__ = [
    "Hook",
    "JhyapError",
    "Session",
    "decode_request",
    "record_pid",
    "respond",
    "serve",
    "write",
]

# A hook sees each request first: None lets the reference session answer; a string is
# written as the raw response line instead.
Hook = Callable[[dict[str, Any], Session], "str | None"]


def record_pid(label: str = "") -> None:
    folder = os.environ.get("FAKE_ENGINE_PIDS")
    if folder:
        Path(folder, f"{os.getpid()}{label}").write_text(str(os.getpid()))


# Where write() goes: standard output, or the stream of the serve() this thread runs (a
# test serving the engine in its own process: tests/fuzz/engines.py).
_OUT = threading.local()


def write(text: str) -> None:
    out = getattr(_OUT, "stream", None) or sys.stdout
    out.write(text + "\n")
    out.flush()


def respond(response: dict[str, Any]) -> str:
    return json.dumps(response, separators=(",", ":"))


def serve(
    hook: Hook | None = None,
    stdin: IO[bytes] | None = None,
    stdout: IO[str] | None = None,
    session: Session | None = None,
) -> int:
    """Answer the lines of standard input; a test serving the engine in its own process
    gives the lines, where the answers go, and the session that persists between calls."""
    if stdin is None:
        record_pid()
    session = Session() if session is None else session
    _OUT.stream = stdout
    for line in stdin if stdin is not None else sys.stdin.buffer:
        if not line.strip():
            continue
        try:
            if len(line.rstrip(b"\r\n")) > MAX_LINE_BYTES:
                raise JhyapError("line over 1 MiB", ErrorCode.BAD_REQUEST)
            request = decode_request(line)
        except JhyapError as exc:
            write(
                respond(
                    {
                        "seq": None,
                        "ok": False,
                        "error": {"code": exc.code.value, "message": exc.message},
                    }
                )
            )
            continue
        if not isinstance(request, dict):  # hooks see request objects only
            write(respond(session.handle(request)))
            continue
        raw = hook(request, session) if hook is not None else None
        if raw is not None:
            write(raw)
            continue
        write(respond(session.handle(request)))
        if session.stopped:
            break
    return 0
