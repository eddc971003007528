"""Tests of the reference engine: rule families, its server, random play against the model."""
