"""The defaults of a fuzz campaign that the command line shows.

This module imports nothing, so that ``jhyap fuzz --help`` can name these defaults
without importing the campaign (start-up speed)."""

from __future__ import annotations

from typing import Final

DEFAULT_WINDOW: Final = 16  # requests in flight per engine (the driver pipelines games)
DEFAULT_BUDGET: Final = 200_000  # requests sent to each engine while shrinking
DEFAULT_MAX_FINDINGS: Final = 20  # a campaign stops after this many distinct divergences

__all__ = ["DEFAULT_BUDGET", "DEFAULT_MAX_FINDINGS", "DEFAULT_WINDOW"]
