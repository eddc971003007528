"""Prints a debug line on stdout (instead of stderr) before answering each deal."""

from typing import Any

from _common import Session, respond, serve, write


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") == "deal":
        write("DEBUG dealing 52 cards")
        return respond(session.handle(request))
    return None


raise SystemExit(serve(hook))
