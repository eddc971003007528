"""Tests of the jhyap command line: its conventions, export and the files commands write."""
