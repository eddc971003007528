"""Answers the first act with a line that is not JSON."""

from typing import Any

from _common import Session, serve


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") == "act":
        return "this is not JSON"
    return None


raise SystemExit(serve(hook))
