"""Crashes (exit status 5) on its Nth state request (``crash_on_state.py N``, default 1),
after a last word on stderr. The harness sends state requests of its own around a step
that expects a refusal: a crash on one of those comes before the step's request is sent.
"""

import os
import sys
from typing import Any

from _common import Session, serve

WHICH = int(sys.argv[1]) if len(sys.argv) > 1 else 1
seen = 0


def hook(request: dict[str, Any], session: Session) -> str | None:
    global seen
    if request.get("cmd") == "state":
        seen += 1
        if seen == WHICH:
            sys.stderr.write("fake engine: state is too much for me\n")
            sys.stderr.flush()
            os._exit(5)
    return None


raise SystemExit(serve(hook))
