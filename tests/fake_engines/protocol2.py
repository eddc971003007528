"""Speaks protocol 2.0 only: answers hello with "2.0", or with --refuse, unsupported_protocol."""

import sys
from typing import Any

from _common import Session, respond, serve


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") != "hello":
        return None
    if "--refuse" in sys.argv:
        return respond(
            {
                "seq": request["seq"],
                "ok": False,
                "error": {
                    "code": "unsupported_protocol",
                    "message": f"this engine speaks protocol 2.0, not {request.get('protocol')}",
                },
            }
        )
    response = session.handle(request)
    response["protocol"] = "2.0"
    return respond(response)


raise SystemExit(serve(hook))
