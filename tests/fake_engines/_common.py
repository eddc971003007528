"""Shared by the fake engines: the reference engine's session behind a hook.

A fake engine is a script run as ``sys.executable tests/fake_engines/<name>.py``. When
``FAKE_ENGINE_PIDS`` names a directory, each writes its pid there, so that tests can
check afterwards that no engine process survived.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from reference_engine.server import Session  # noqa: E402

# A hook sees each request first: None lets the reference session answer; a string is
# written as the raw response line instead.
Hook = Callable[[dict[str, Any], Session], "str | None"]


def record_pid(label: str = "") -> None:
    folder = os.environ.get("FAKE_ENGINE_PIDS")
    if folder:
        Path(folder, f"{os.getpid()}{label}").write_text(str(os.getpid()))


def write(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def respond(response: dict[str, Any]) -> str:
    return json.dumps(response, separators=(",", ":"))


def serve(hook: Hook | None = None) -> int:
    record_pid()
    session = Session()
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        request = json.loads(line)
        raw = hook(request, session) if hook is not None else None
        if raw is not None:
            write(raw)
            continue
        write(respond(session.handle(request)))
        if session.stopped:
            break
    return 0
