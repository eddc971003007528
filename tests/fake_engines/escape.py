"""Starts a helper that leaves the engine's process group, then plays like the reference.

``escape.py setsid``: the helper calls setsid() and sleeps. ``escape.py daemon``: a
classic daemon, fork, setsid, fork again, the middle process exits. ``escape.py clean``:
a daemon that also runs with an empty environment. With ``hang`` as a second argument
the engine never answers its first act. Helpers record their pids with ``-helper``.
"""

import os
import sys
import time
from typing import Any

from _common import Session, record_pid, serve


def helper(mode: str) -> None:
    if os.fork():
        return
    os.setsid()
    if mode != "setsid" and os.fork():
        os._exit(0)  # the middle process of a daemon: its child is an orphan at once
    record_pid("-helper")
    if mode == "clean":
        os.execve("/bin/sleep", ["sleep", "3600"], {})
    time.sleep(3600)
    os._exit(0)


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") == "act" and "hang" in sys.argv[2:]:
        time.sleep(3600)
    return None


helper(sys.argv[1])
raise SystemExit(serve(hook))
