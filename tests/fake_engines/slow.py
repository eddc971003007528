"""A correct engine that takes 50 ms over every answer: a run long enough to interrupt."""

import time
from typing import Any

from _common import Session, serve


def hook(request: dict[str, Any], session: Session) -> str | None:
    time.sleep(0.05)
    return None


raise SystemExit(serve(hook))
