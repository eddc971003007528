"""The reference engine with two rules broken at once, both on rarely reached branches:
a total exactly at the elimination threshold is out (tests/mutants/engine.py out_at_100),
and a tie among several lowest hands goes to the lowest seat number, not the first in
turn order (tie_break_by_seat_number). ``jhyap fuzz`` must report both in one run."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from reference_engine import server
from tests.mutants.engine import MUTANTS

MUTANTS["out_at_100"]()
MUTANTS["tie_break_by_seat_number"]()
raise SystemExit(server.main())
