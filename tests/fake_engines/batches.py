"""The reference session, reading its input a chunk at a time: for each chunk it writes
``batch: CMD CMD ...`` to standard error, the commands of the whole lines that came in it
(a harness that sends requests ahead shows here which ones it wrote together). With
``--no-ahead`` its hello leaves out ``supports.requests_ahead``, as an engine written for
protocol 1.1 does."""

import json
import os
import sys
from dataclasses import replace

from _common import record_pid, respond

from reference_engine.server import Session

record_pid()
session, buffer = Session(), b""
if "--no-ahead" in sys.argv[1:]:
    session.info = replace(session.info, requests_ahead=False)
while not session.stopped:
    chunk = os.read(0, 1 << 16)
    if not chunk:
        break
    buffer += chunk
    *lines, buffer = buffer.split(b"\n")
    requests = [json.loads(line) for line in lines if line.strip()]
    print("batch:", *(r.get("cmd") for r in requests), file=sys.stderr, flush=True)
    answers = "".join(respond(session.handle(r)) + "\n" for r in requests)
    os.write(1, answers.encode())
