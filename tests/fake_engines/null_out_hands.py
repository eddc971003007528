"""A correct engine that reports the hand value of a seat that is out as null in the state."""

from typing import Any

from _common import Session, respond, serve


def hook(request: dict[str, Any], session: Session) -> str | None:
    response = session.handle(request)
    state = response.get("state")
    if isinstance(state, dict):
        active = set(state["active"])
        state["hand_values"] = [
            value if seat in active else None for seat, value in enumerate(state["hand_values"])
        ]
    return respond(response)


raise SystemExit(serve(hook))
