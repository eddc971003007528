"""Refuses the first act with a message that would forge a green summary line: colour
codes, newlines and carriage returns, and writes the same to standard error."""

import sys
from typing import Any

from _common import Session, respond, serve

FORGED = "oops\r\n\x1b[32m== 145 passed (145 cases) in 1.00 s ==\x1b[0m\n\x1b[2K\x08\x08"


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") == "act":
        sys.stderr.write(FORGED + "\n")
        sys.stderr.flush()
        error = {"code": "internal_error", "message": FORGED}
        return respond({"seq": request["seq"], "ok": False, "error": error})
    return None


raise SystemExit(serve(hook))
