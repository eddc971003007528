"""Declines every profile (unsupported_profile), and lists neither legal nor timeout."""

from typing import Any

from _common import Session, respond, serve


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") == "hello":
        response = session.handle(request)
        response["supports"]["commands"].remove("legal")
        response["supports"]["actions"].remove("timeout")
        return respond(response)
    if request.get("cmd") == "start":
        return respond(
            {
                "seq": request["seq"],
                "ok": False,
                "error": {
                    "code": "unsupported_profile",
                    "message": "pick.from_offer=run_ends is not implemented",
                },
            }
        )
    return None


raise SystemExit(serve(hook))
