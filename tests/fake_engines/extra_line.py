"""Answers each deal twice."""

from _common import respond, serve, write


def hook(request, session):
    if request.get("cmd") == "deal":
        text = respond(session.handle(request))
        write(text)
        return text
    return None


raise SystemExit(serve(hook))
