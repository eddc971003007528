"""Answers the first deal wrongly, in the way named by its argument:

long_line (a 17 MiB line), no_ok (no "ok"), not_object (a JSON list), not_utf8,
bad_error (ok false without an error object), blank_then_answer (a blank line first:
allowed), stdout_closed (closes stdout but keeps running).
"""

import os
import sys
import time
from typing import Any

from _common import Session, respond, serve, write

MODE = sys.argv[1]


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") != "deal":
        return None
    seq = request["seq"]
    if MODE == "long_line":
        chunk = "x" * (1 << 20)
        for _ in range(17):
            sys.stdout.write(chunk)
        sys.stdout.write("\n")
        sys.stdout.flush()
        return respond(session.handle(request))  # the next line is fine; too late
    if MODE == "no_ok":
        return respond({"seq": seq, "events": []})
    if MODE == "not_object":
        return "[1, 2, 3]"
    if MODE == "not_utf8":
        sys.stdout.flush()
        sys.stdout.buffer.write(b'{"seq": %d, "ok": true, "x-name": "\xff\xfe"}\n' % seq)
        sys.stdout.buffer.flush()
        return respond(session.handle(request))
    if MODE == "bad_error":
        return respond({"seq": seq, "ok": False, "error": "it went wrong"})
    if MODE == "blank_then_answer":
        write("")
        return respond(session.handle(request))
    if MODE == "stdout_closed":
        sys.stdout.flush()
        os.close(1)
        time.sleep(3600)
    raise SystemExit(f"unknown mode {MODE}")


raise SystemExit(serve(hook))
