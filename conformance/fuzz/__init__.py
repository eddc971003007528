"""Differential fuzzing (``jhyap fuzz``): seeded random games sent to an engine and to the
reference engine over the protocol, every answer compared, the first divergence shrunk to a
transcript of kind ``fuzz``.

- :mod:`.generate`: a seeded game plan, chosen by playing it on an in-process model;
- :mod:`.driver`: the two engines asked side by side (pipelined) and their answers compared;
- :mod:`.shrink`: a shorter plan with the same divergence;
- :mod:`.writer`: the transcript, and the known divergences file;
- :mod:`.campaign`: many games, over ``--jobs`` engine pairs, with coverage counters.
"""
