"""Starts a helper that calls setsid() and runs with its JHYAP_ENGINE_ID rewritten, then
plays like the reference: ``escape_renamed.py other`` gives it another engine's id,
``escape_renamed.py empty`` an empty one. With ``hang`` as a second argument the engine
never answers its first act. The helper records its pid with ``-helper``.
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
    record_pid("-helper")
    env = dict(os.environ, JHYAP_ENGINE_ID="999999-1" if mode == "other" else "")
    os.execve("/bin/sleep", ["sleep", "3600"], env)


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") == "act" and "hang" in sys.argv[2:]:
        time.sleep(3600)
    return None


helper(sys.argv[1])
raise SystemExit(serve(hook))
