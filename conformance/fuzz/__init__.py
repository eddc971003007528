"""Differential fuzzing (``jhyap fuzz``): seeded random games sent to an engine and to the
reference engine over the protocol, every answer compared, every distinct divergence
shrunk to a transcript of kind ``fuzz`` that is checked before it is kept.

- :mod:`.plan`: a game's spec, requests and plan;
- :mod:`.generate`: a seeded game plan, chosen by playing it on an in-process model;
- :mod:`.probes`: the raw-line probes; :mod:`.deals`: deal orders;
- :mod:`.counters`: the coverage counters; :mod:`.steer`: specs aimed at those not reached;
- :mod:`.driver`: the two engines asked side by side (pipelined) and their answers compared;
- :mod:`.carry`: a game carried on past its divergences;
- :mod:`.pool`: engine pairs shared by games and shrink candidates;
- :mod:`.shrink`: a shorter plan with the same divergence;
- :mod:`.writer`: the transcript, and the known divergences file;
- :mod:`.verify`: a transcript kept only when it validates and replays as promised;
- :mod:`.campaign`: the run; :mod:`.report`: its JSON report.
"""

# The public API: the modules, each imported by name (an import of the package alone
# imports none of them, so that starting one command stays quick).
__all__ = [
    "aimed",
    "campaign",
    "carry",
    "config",
    "counters",
    "deals",
    "driver",
    "generate",
    "local",
    "option_values",
    "plan",
    "pool",
    "probes",
    "report",
    "settings",
    "shrink",
    "steer",
    "verify",
    "writer",
]
