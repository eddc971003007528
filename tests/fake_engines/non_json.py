"""Answers the first act with a line that is not JSON."""

from _common import serve


def hook(request, session):
    if request.get("cmd") == "act":
        return "this is not JSON"
    return None


raise SystemExit(serve(hook))
