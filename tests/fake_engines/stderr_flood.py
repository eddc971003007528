"""Answers correctly, but writes 12 MB to stderr on start, then 300 short lines (and a
little on every request)."""

import sys
from typing import Any

from _common import Session, serve

LINE = "flood " + "x" * 1017 + "\n"  # 1 KiB a line


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") == "start":
        for _ in range(12 * 1024):
            sys.stderr.write(LINE)
        for i in range(300):
            sys.stderr.write(f"short {i}\n")
        sys.stderr.write("flood: the last line\n")
    else:
        sys.stderr.write(f"request {request.get('seq')}\n")
    sys.stderr.flush()
    return None


raise SystemExit(serve(hook))
