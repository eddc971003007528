"""Driving engines: the protocol client, replay, comparison, the runner, smoke checks, recording."""
