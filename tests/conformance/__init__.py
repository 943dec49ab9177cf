"""Conformance: one set of goal scenarios, run on every goal driver."""
