"""Tests of the agent server (a package, so modules can share the harness)."""
