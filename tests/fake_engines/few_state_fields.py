"""A correct engine that tracks few state fields: it declares them in
hello.supports.state_fields (protocol 1.1) and reports only those in state."""

from typing import Any

from _common import Session, respond, serve, write

FIELDS = ["phase", "to_act", "hands", "scores"]


def hook(request: dict[str, Any], session: Session) -> str | None:
    response = session.handle(request)
    if request.get("cmd") == "hello" and response.get("ok"):
        response["supports"]["state_fields"] = FIELDS
    elif request.get("cmd") == "state" and response.get("ok"):
        response["state"] = {k: v for k, v in response["state"].items() if k in FIELDS}
    if session.stopped:
        write(respond(response))
        raise SystemExit(0)
    return respond(response)


raise SystemExit(serve(hook))
