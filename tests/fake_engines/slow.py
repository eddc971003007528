"""A correct engine that takes 50 ms over every answer: a run long enough to interrupt."""

import time

from _common import serve


def hook(request, session):
    time.sleep(0.05)
    return None


raise SystemExit(serve(hook))
