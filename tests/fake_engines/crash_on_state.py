"""Crashes (exit status 5) on the first state request, after a last word on stderr."""

import os
import sys

from _common import serve


def hook(request, session):
    if request.get("cmd") == "state":
        sys.stderr.write("fake engine: state is too much for me\n")
        sys.stderr.flush()
        os._exit(5)
    return None


raise SystemExit(serve(hook))
