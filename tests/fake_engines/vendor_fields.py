"""A correct engine that adds x- vendor fields to every object it answers."""

from typing import Any

from _common import Session, respond, serve, write


def decorate(value: Any) -> Any:
    if isinstance(value, dict):
        return {**{k: decorate(v) for k, v in value.items()}, "x-debug": {"n": 1}}
    if isinstance(value, list):
        return [decorate(v) for v in value]
    return value


def hook(request: dict[str, Any], session: Session) -> str | None:
    response = session.handle(request)
    if response.get("ok") and request.get("cmd") in ("deal", "act", "state"):
        response = decorate(response)
    if session.stopped:
        write(respond(response))
        raise SystemExit(0)
    return respond(response)


raise SystemExit(serve(hook))
