"""The test suite: one folder per part of the project; shared support at this level."""
