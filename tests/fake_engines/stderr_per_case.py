"""Writes "start N" to stderr at every start, and answers the second game's first act with
internal_error: its failure must show its own stderr lines, not the first game's.

It does not declare hello.supports.requests_ahead: the acts after the failing one are
never written, and the failure's tail ends at it (a declaring engine's may go on)."""

import sys
from dataclasses import replace
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


session = Session()
session.info = replace(session.info, requests_ahead=False)
raise SystemExit(serve(hook, session=session))
