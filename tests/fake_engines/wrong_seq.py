"""Answers each deal with the wrong seq."""

from typing import Any

from _common import Session, respond, serve


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") == "deal":
        response = session.handle(request)
        response["seq"] = request["seq"] + 100
        return respond(response)
    return None


raise SystemExit(serve(hook))
