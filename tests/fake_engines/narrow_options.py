"""A correct engine offering only call limits 5 to 15: others get unsupported_option."""

from typing import Any

from _common import Session, respond, serve


def _narrow(request: dict[str, Any], value: object) -> str | None:
    if isinstance(value, int) and not 5 <= value <= 15:
        return respond(
            {
                "seq": request["seq"],
                "ok": False,
                "error": {
                    "code": "unsupported_option",
                    "message": f"call_limit {value} is not offered (only 5 to 15)",
                },
            }
        )
    return None


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") == "start":
        return _narrow(request, (request.get("options") or {}).get("call_limit"))
    if request.get("cmd") == "set_option" and request.get("name") == "call_limit":
        return _narrow(request, request.get("value"))
    return None


raise SystemExit(serve(hook))
