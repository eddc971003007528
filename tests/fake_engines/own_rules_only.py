"""Plays one ruleset only, the profile whose id is its argument: declines every other
(unsupported_profile), as an engine of one app's house rules does."""

import sys
from typing import Any

from _common import Session, respond, serve

OWN = sys.argv[1]


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") == "start" and (request.get("profile") or {}).get("id") != OWN:
        return respond(
            {
                "seq": request["seq"],
                "ok": False,
                "error": {"code": "unsupported_profile", "message": f"this engine plays {OWN}"},
            }
        )
    return None


raise SystemExit(serve(hook))
