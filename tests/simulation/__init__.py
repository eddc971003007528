"""Tests of simulate: policies, figures, shards and the cluster."""
