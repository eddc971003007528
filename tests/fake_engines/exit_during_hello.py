"""Exits with status 1 as soon as it reads hello."""

import sys

from _common import record_pid

record_pid()
sys.stdin.buffer.readline()
sys.stderr.write("fake engine: cannot find my configuration file\n")
sys.stderr.flush()
raise SystemExit(1)
