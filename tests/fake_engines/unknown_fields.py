"""A correct engine that adds a field that is neither defined nor x- to every event."""

from typing import Any

from _common import Session, respond, serve, write


def hook(request: dict[str, Any], session: Session) -> str | None:
    response = session.handle(request)
    for event in response.get("events") or []:
        event["debug"] = {"engine_ms": 1}
    if session.stopped:
        write(respond(response))
        raise SystemExit(0)
    return respond(response)


raise SystemExit(serve(hook))
