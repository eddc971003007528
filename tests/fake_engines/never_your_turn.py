"""Refuses every move with not_your_turn; answers everything else as the reference does."""

from typing import Any

from _common import Session, respond, serve


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") == "act":
        error = {"code": "not_your_turn", "message": "it is never your turn"}
        return respond({"seq": request.get("seq"), "ok": False, "error": error})
    return None


raise SystemExit(serve(hook))
