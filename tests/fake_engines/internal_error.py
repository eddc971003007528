"""Answers the first act with internal_error, then keeps serving."""

from _common import respond, serve


def hook(request, session):
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
