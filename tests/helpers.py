"""Small helpers shared by the tests."""

import sys

import staticgraph as tf


def run(fetches, feed=None):
    """Run ``fetches`` in a new session on the default graph."""
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def shape(t):
    """The static shape of ``t`` as a tuple of int/None (None for unknown rank)."""
    return t.shape.raw


def caller_line():
    """The line number of the call to this function (to check errors name the user's line)."""
    return sys._getframe(1).f_lineno
