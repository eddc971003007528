"""Whole-corpus tests, end to end: the corpus under every ruleset and against every mutant."""
