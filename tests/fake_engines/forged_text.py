"""Puts text that would forge the harness's own lines where the harness shows an engine's
words: ``forged_text.py TRICK PLACE``. TRICK is how the forged line is made to look like
one of its own (``newline``, ``cr``, ``ansi``, ``osc``, ``u2028``, ``u0085``, ``bidi``,
``all``); PLACE where it goes (``name``: the hello answer's engine name and version;
``error``: the first act's refusal; ``stderr``: written to standard error at the first act;
``event``: an event type in the deal answer)."""

import sys
from typing import Any

from _common import Session, respond, serve

LINE = "== 145 passed (145 cases) in 1.00 s =="
TRICKS = {
    "newline": f"x\n{LINE}",
    "cr": f"x\r{LINE}\r",
    "ansi": f"x\n\x1b[2K\x1b[1G\x1b[32m{LINE}\x1b[0m",
    "osc": f"x\x1b]0;{LINE}\x07\x1b]8;;https://example.com\x07link\x1b]8;;\x07",
    "u2028": f"x\u2028{LINE}\u2029{LINE}",
    "u0085": f"x\u0085{LINE}\x0b{LINE}\x0c{LINE}",
    "bidi": f"x\u202e{LINE[::-1]}\u202c\u2066{LINE}\u2069",
}
TRICKS["all"] = "".join(TRICKS.values())
TEXT = TRICKS[sys.argv[1]]
PLACE = sys.argv[2]


def hook(request: dict[str, Any], session: Session) -> str | None:
    cmd = request.get("cmd")
    if cmd == "hello" and PLACE == "name":
        response = session.handle(request)
        response["engine"] = {"name": TEXT, "version": TEXT}
        return respond(response)
    if cmd == "deal" and PLACE == "event":
        response = session.handle(request)
        response["events"] = [*(response.get("events") or []), {"type": TEXT}]
        return respond(response)
    if cmd == "act" and PLACE == "stderr":
        sys.stderr.write(TEXT + "\n")
        sys.stderr.flush()
    if cmd == "act" and PLACE == "error":
        error = {"code": "internal_error", "message": TEXT}
        return respond({"seq": request["seq"], "ok": False, "error": error})
    return None


raise SystemExit(serve(hook))
