"""Answers the first act with internal_error, then keeps serving."""

from typing import Any

from _common import Session, respond, serve


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") == "act":
        return respond(
            {
                "seq": request["seq"],
                "ok": False,
                "error": {"code": "internal_error", "message": "null pointer in act"},
            }
        )
    return None


raise SystemExit(serve(hook))
