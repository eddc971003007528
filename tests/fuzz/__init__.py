"""Tests of jhyap fuzz: plans, campaigns, shrinking."""
