"""Shared fixtures: every op test declares into a fresh default graph."""

import pytest

import staticgraph as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    """A new graph, the default for the duration of the test."""
    graph = tf.Graph()
    with graph.as_default():
        yield graph
