"""A correct engine that adds a field that is neither defined nor x- to every event."""

from _common import respond, serve, write


def hook(request, session):
    response = session.handle(request)
    for event in response.get("events") or []:
        event["debug"] = {"engine_ms": 1}
    if session.stopped:
        write(respond(response))
        raise SystemExit(0)
    return respond(response)


raise SystemExit(serve(hook))
