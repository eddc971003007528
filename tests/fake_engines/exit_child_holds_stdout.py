"""Exits (status 4) on the first act, leaving a child that holds its standard output.

The pipe stays open while the child lives, so only the engine process tells that it ended.
With ``setsid`` as an argument the child leaves the process group too.
"""

import os
import sys
import time
from typing import Any

from _common import Session, record_pid, serve


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") == "act":
        if os.fork() == 0:
            if "setsid" in sys.argv[1:]:
                os.setsid()
            record_pid("-helper")
            time.sleep(3600)
            os._exit(0)
        sys.stderr.write("fake engine: leaving my child behind\n")
        sys.stderr.flush()
        os._exit(4)
    return None


raise SystemExit(serve(hook))
