"""Tests of the harness: the client, replay, runner, reports, smoke and hostile engines."""
