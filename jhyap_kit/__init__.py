"""jhyap_kit: bind an existing Jhyap/Dhumbal engine to the conformance protocol.

Three layers (docs/kit.md):

- :mod:`jhyap_core.serving`: the transport and the protocol without any rule: lines, bounded
  JSON, ``seq``, the order of checks' first steps, error responses, ``hello``, ``stop``;
  :func:`serve` over any :class:`Backend`.
- :mod:`jhyap_kit.engine`: :class:`TrackedEngine`, a backend that tracks the table (offer,
  pickable, out of play, turns, multi-throwers, events, phases, dealer and starter, state,
  legal) and asks a few hooks about the card play; :mod:`jhyap_kit.support` checks the rule
  parameters an engine declares (``RULES``), answering ``unsupported_profile`` for the rest.
- :mod:`jhyap_kit.loop`: :class:`LoopDriver`, for an engine that is one blocking game loop.

The kit imports nothing from the harness (``conformance``) nor from the reference engine:
the protocol's own definitions (its vocabulary, card names and canonical order, deck
building, option resolution, bounded JSON, serving) are :mod:`jhyap_core`, which the
reference engine uses too, so that they cannot drift apart. A kit engine's card play is
its own, and the corpus tests it, not the reference engine again.
"""

from __future__ import annotations

# The jhyap-kit distribution's version (kits/python): the protocol's major.minor, then the
# kit's own revision.
__version__ = "1.2.0"

from jhyap_core.messages import (
    Action,
    Call,
    Deal,
    DealLayout,
    EngineInfo,
    Pick,
    Refusal,
    Refused,
    RoundScore,
    Slapdown,
    Throw,
    Timeout,
)
from jhyap_core.serving import Backend, Session, run, serve
from jhyap_core.vocabulary import PROTOCOL_VERSION, ErrorCode, Phase, ThrowKind
from jhyap_core.vocabulary import PickSource as Source

from .engine import TrackedEngine, canonical
from .loop import LoopAbandoned, LoopDriver
from .support import ANY, KIT_RULES, RuleSupport
from .table import Table


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
    "Slapdown",
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
