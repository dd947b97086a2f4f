"""Small helpers shared by the tests."""

import staticgraph as tf


def run(fetches, feed=None):
    """Run ``fetches`` in a new session on the default graph."""
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def shape(t):
    """The static shape of ``t`` as a tuple of int/None (None for unknown rank)."""
    return t.shape.raw
