"""Names itself in its hello answer with a name and a version that would forge a green
summary line: a raw newline and colour codes."""

from typing import Any

from _common import Session, respond, serve

FORGED = "x\n\x1b[32m== 145 passed (145 cases) in 1.00 s ==\x1b[0m"


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") == "hello":
        response = session.handle(request)
        response["engine"] = {"name": FORGED, "version": FORGED}
        return respond(response)
    return None


raise SystemExit(serve(hook))
