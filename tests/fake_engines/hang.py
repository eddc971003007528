"""Never answers the first act (but would end on SIGTERM)."""

import sys
import time
from typing import Any

from _common import Session, serve


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") == "act":
        sys.stderr.write("fake engine: thinking very hard\n")
        sys.stderr.flush()
        time.sleep(3600)
    return None


raise SystemExit(serve(hook))
