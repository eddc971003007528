"""Answers each deal twice."""

from typing import Any

from _common import Session, respond, serve, write


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") == "deal":
        text = respond(session.handle(request))
        write(text)
        return text
    return None


raise SystemExit(serve(hook))
