"""Ignores SIGTERM, starts a helper process that ignores it too, and hangs on the first act."""

import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _common import Session, serve

signal.signal(signal.SIGTERM, signal.SIG_IGN)
HELPER = (
    "import signal, time, os, sys; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    "sys.path.insert(0, sys.argv[1]); from _common import record_pid; "
    "record_pid('-helper'); time.sleep(3600)"
)
helper = subprocess.Popen(
    [sys.executable, "-c", HELPER, str(Path(__file__).parent)],
    stdin=subprocess.DEVNULL,
    stdout=subprocess.DEVNULL,
)


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") == "act":
        time.sleep(3600)
    return None


raise SystemExit(serve(hook))
