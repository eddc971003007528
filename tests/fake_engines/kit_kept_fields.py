"""A correct engine bound through a kit that keeps some state fields by its own procedure:
it declares them in hello.supports.kit_kept_fields and reports every field."""

from typing import Any

from _common import Session, respond, serve, write

KEPT = ["hands", "to_act", "deck", "out_of_play"]


def hook(request: dict[str, Any], session: Session) -> str | None:
    response = session.handle(request)
    if request.get("cmd") == "hello" and response.get("ok"):
        response["supports"]["kit_kept_fields"] = KEPT
    if session.stopped:
        write(respond(response))
        raise SystemExit(0)
    return respond(response)


raise SystemExit(serve(hook))
