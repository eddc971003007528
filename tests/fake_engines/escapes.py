"""Writes terminal escapes (clear screen, window title, clipboard) to standard error and
into the message of an error answer to the first act."""

import sys
from typing import Any

from _common import Session, respond, serve


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") == "act":
        sys.stderr.write("\x1b[2J\x1b]0;owned\x07 cleared the screen\x9b31m\n")
        sys.stderr.flush()
        message = "\x1b]52;c;ZXZpbA==\x07 wrote the clipboard"
        error = {"code": "internal_error", "message": message}
        return respond({"seq": request["seq"], "ok": False, "error": error})
    return None


raise SystemExit(serve(hook))
