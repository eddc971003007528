"""A correct engine that reports the hand value of a seat that is out as null in the state."""

from _common import respond, serve


def hook(request, session):
    response = session.handle(request)
    state = response.get("state")
    if isinstance(state, dict):
        active = set(state["active"])
        state["hand_values"] = [
            value if seat in active else None for seat, value in enumerate(state["hand_values"])
        ]
    return respond(response)


raise SystemExit(serve(hook))
