"""Shared fixtures: every front-end test declares into a fresh default graph."""

from ..ops.conftest import fresh_graph  # noqa: F401 - an autouse fixture
