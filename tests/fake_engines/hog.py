"""On its first act, eats memory (``hog.py memory``) or CPU (``hog.py cpu``) for ever.
``hog.py env FILE`` instead writes the names and values of its environment to FILE."""

import json
import os
import sys
from typing import Any

from _common import Session, serve


def hook(request: dict[str, Any], session: Session) -> str | None:
    if request.get("cmd") == "act":
        if sys.argv[1] == "memory":
            eaten = []
            while True:
                eaten.append(bytearray(16 * 1024 * 1024))
        while sys.argv[1] == "cpu":
            pass
    return None


if sys.argv[1] == "env":
    with open(sys.argv[2], "w") as handle:
        json.dump(dict(os.environ), handle)
raise SystemExit(serve(hook))
