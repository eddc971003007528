"""Crashes (exit status 3) on the first act, after a last word on stderr."""

import os
import sys

from _common import serve


def hook(request, session):
    if request.get("cmd") == "act":
        sys.stderr.write("fake engine: about to fall over\n")
        sys.stderr.write("Traceback (most recent call last): boom\n")
        sys.stderr.flush()
        os._exit(3)
    return None


raise SystemExit(serve(hook))
