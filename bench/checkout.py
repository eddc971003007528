"""The checkout a benchmark measures, put first on the import path: this one, or the one
``--root CHECKOUT`` names on the command line (before/after figures: the other checkout's
harness is then the one imported). Import it before anything of the project."""

from __future__ import annotations

import sys
from pathlib import Path


def _root() -> Path:
    for i, arg in enumerate(sys.argv):
        if arg == "--root" and i + 1 < len(sys.argv):
            return Path(sys.argv[i + 1]).resolve()
    return Path(__file__).resolve().parent.parent


ROOT = _root()
sys.path.insert(0, str(ROOT))
