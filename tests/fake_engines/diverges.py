"""The reference engine until its N-th ``act`` (argument 2), answered as argument 1 says:

events (accepted, its last event dropped), refuse (refused with illegal_throw; the
acts after it find the table where it was and are refused in turn), crash (exits with
status 3 after a line on stderr), events-then-crash (as events, then crashes as crash on
the act after it: a request the harness wrote after the failing one, when it writes ahead).
"""

import json
import os
import sys
from typing import Any

from _common import Session, respond, serve

MODE, AT = sys.argv[1], int(sys.argv[2])
acts = 0


def hook(request: dict[str, Any], session: Session) -> str | None:
    global acts
    if request.get("cmd") != "act":
        return None
    acts += 1
    if MODE == "events-then-crash" and acts == AT + 1:
        sys.stderr.write("fake engine: falls over on the act after\n")
        sys.stderr.flush()
        os._exit(3)
    if acts != AT:
        return None
    if MODE in ("events", "events-then-crash"):
        answer = json.loads(respond(session.handle(request)))
        answer["events"] = answer["events"][:-1]
        return respond(answer)
    if MODE == "refuse":
        message = "not this move"
        return respond(
            {
                "seq": request["seq"],
                "ok": False,
                "error": {"code": "illegal_throw", "message": message},
            }
        )
    if MODE == "crash":
        sys.stderr.write("fake engine: falls over on this act\n")
        sys.stderr.flush()
        os._exit(3)
    raise SystemExit(f"unknown mode {MODE}")


raise SystemExit(serve(hook))
