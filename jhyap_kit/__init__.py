"""jhyap_kit: bind an existing Jhyap/Dhumbal engine to the conformance protocol.

Three layers (docs/kit.md):

- :mod:`jhyap_kit.protocol`: the transport and the protocol without any rule: lines, bounded
  JSON, ``seq``, the order of checks' first steps, error responses, ``hello``, ``stop``;
  :func:`serve` over any :class:`Backend`.
- :mod:`jhyap_kit.engine`: :class:`TrackedEngine`, a backend that tracks the table (offer,
  pickable, out of play, turns, multi-throwers, events, phases, dealer and starter, state,
  legal) and asks a few hooks about the card play; :mod:`jhyap_kit.support` checks the rule
  parameters an engine declares (``RULES``), answering ``unsupported_profile`` for the rest.
- :mod:`jhyap_kit.loop`: :class:`LoopDriver`, for an engine that is one blocking game loop.

The kit imports nothing from the harness (``conformance``). It reuses the reference
engine's rule-free helpers (card names and canonical order, deck building, option
resolution, bounded JSON, error codes): one copy of the protocol's own definitions in
the one wheel, so that they cannot drift apart. It imports none of the reference engine's
rules (throws, calls, picks, scoring): a kit engine's card play is its own, and the corpus
tests it, not the reference engine again.

The reference engine's server (``jhyap engine``) is :mod:`jhyap_kit.protocol` over its own
``Game``, which tracks everything itself: engine-side protocol code lives in one place.
"""

from __future__ import annotations

from reference_engine.errors import ErrorCode

from .engine import TrackedEngine, canonical
from .loop import LoopAbandoned, LoopDriver
from .moves import (
    Action,
    Call,
    Deal,
    Pick,
    Refusal,
    Refused,
    RoundScore,
    Source,
    Throw,
    ThrowKind,
    Timeout,
)
from .protocol import PROTOCOL_VERSION, Backend, DealLayout, EngineInfo, Session, run, serve
from .support import ANY, KIT_RULES, RuleSupport
from .table import Phase, Table


def main(engine: TrackedEngine) -> int:
    """Serve ``engine`` on standard input and output: a binding's whole ``__main__``."""
    return run(Session(engine, engine.info()))


__all__ = [
    "ANY",
    "KIT_RULES",
    "PROTOCOL_VERSION",
    "Action",
    "Backend",
    "Call",
    "Deal",
    "DealLayout",
    "EngineInfo",
    "ErrorCode",
    "LoopAbandoned",
    "LoopDriver",
    "Phase",
    "Pick",
    "Refusal",
    "Refused",
    "RoundScore",
    "RuleSupport",
    "Session",
    "Source",
    "Table",
    "Throw",
    "ThrowKind",
    "Timeout",
    "TrackedEngine",
    "canonical",
    "main",
    "run",
    "serve",
]
