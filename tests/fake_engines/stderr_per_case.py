"""Writes "start N" to stderr at every start, and answers the second game's first act with
internal_error: its failure must show its own stderr lines, not the first game's."""

import sys
from typing import Any

from _common import Session, respond, serve

starts = 0


def hook(request: dict[str, Any], session: Session) -> str | None:
    global starts
    if request.get("cmd") == "start":
        starts += 1
        sys.stderr.write(f"start {starts}\n")
        sys.stderr.flush()
    elif request.get("cmd") == "act" and starts == 2:
        sys.stderr.write("act refused in game 2\n")
        sys.stderr.flush()
        return respond(
            {
                "seq": request["seq"],
                "ok": False,
                "error": {"code": "internal_error", "message": "game 2 broke"},
            }
        )
    return None


raise SystemExit(serve(hook))
