"""Never reads its input (so a large request fills the pipe and cannot be sent)."""

import time

from _common import record_pid

record_pid()
time.sleep(3600)
