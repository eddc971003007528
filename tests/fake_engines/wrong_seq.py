"""Answers each deal with the wrong seq."""

from _common import respond, serve


def hook(request, session):
    if request.get("cmd") == "deal":
        response = session.handle(request)
        response["seq"] = request["seq"] + 100
        return respond(response)
    return None


raise SystemExit(serve(hook))
