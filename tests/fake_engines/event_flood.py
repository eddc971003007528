"""Answers each deal with the reference's events followed by N more (its first argument,
100000 by default: a line of over a megabyte): copies of the last event (``copies``, the
default second argument) or events of no known type (``noise``)."""

import sys
from typing import Any

from _common import Session, respond, serve

COUNT = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
MODE = sys.argv[2] if len(sys.argv) > 2 else "copies"


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") != "deal":
        return None
    response = session.handle(request)
    events = response.get("events") or []
    if MODE == "copies" and events:
        more = [events[-1]] * COUNT
    else:
        more = [{"type": "noise", "n": n} for n in range(COUNT)]
    response["events"] = events + more
    return respond(response)


raise SystemExit(serve(hook))
