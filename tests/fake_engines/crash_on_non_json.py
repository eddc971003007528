"""A correct engine, except that a line that is not JSON kills it (an uncaught parse error)."""

import json
import sys

from _common import record_pid, respond, write

from reference_engine.server import Session

record_pid()
session = Session()
for line in sys.stdin.buffer:
    if not line.strip():
        continue
    write(respond(session.handle(json.loads(line))))  # no try: a bad line is a traceback
    if session.stopped:
        break
