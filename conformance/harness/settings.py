"""The defaults of driving an engine that the command line shows.

This module imports nothing, so that a command's ``--help`` can name these defaults
without importing the harness (start-up speed)."""

from __future__ import annotations

from typing import Final

DEFAULT_TIMEOUT: Final = 10.0  # seconds to wait for each answer
DEFAULT_WINDOW: Final = 8  # a replay's requests in flight per engine (harness.ahead)

__all__ = ["DEFAULT_TIMEOUT", "DEFAULT_WINDOW"]
