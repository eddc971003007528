"""Crashes (exit status 3) on the first act, after a last word on stderr."""

import os
import sys
from typing import Any

from _common import Session, serve


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") == "act":
        sys.stderr.write("fake engine: about to fall over\n")
        sys.stderr.write("Traceback (most recent call last): boom\n")
        sys.stderr.flush()
        os._exit(3)
    return None


raise SystemExit(serve(hook))
