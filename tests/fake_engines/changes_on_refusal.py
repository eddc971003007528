"""Refuses what the reference refuses, but a refused pick still counts as a turn taken."""

from typing import Any

from _common import Session, respond, serve


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") == "act" and request.get("action", {}).get("type") == "pick":
        response = session.handle(request)
        if not response["ok"] and session.game is not None:
            session.game.turns_taken += 1
        return respond(response)
    return None


raise SystemExit(serve(hook))
