"""Prints a debug line on stdout (instead of stderr) before answering each deal."""

from _common import respond, serve, write


def hook(request, session):
    if request.get("cmd") == "deal":
        write("DEBUG dealing 52 cards")
        return respond(session.handle(request))
    return None


raise SystemExit(serve(hook))
