"""Huge plans run through the interpreter instead of generated code: same behaviour.

``MAX_GENERATED_CALLS`` is lowered so that small graphs take the interpreter path.
"""

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.session.backends import numpy_plan as plan_module


@pytest.fixture(autouse=True)
def interpreted(monkeypatch):
    monkeypatch.setattr(plan_module, "MAX_GENERATED_CALLS", -1)
    with tf.Graph().as_default() as g:
        yield g


def test_values_structures_and_variables_match_numpy():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
    y = tf.nn.relu(tf.matmul(x, w) - 4.0)
    total = tf.reduce_sum(y)
    xv = np.array([[1, 2, 3], [-1, 0, 1]], np.float32)
    want = np.maximum(xv @ np.arange(6, dtype=np.float32).reshape(3, 2) - 4.0, 0)
    with tf.Session() as sess:
        sess.run(w.initializer)
        out = sess.run({"y": y, "pair": (total, y)}, {x: xv})
        np.testing.assert_allclose(out["y"], want)
        np.testing.assert_allclose(out["pair"][0], want.sum())
        sess.run(w.assign_add(tf.ones([3, 2])))
        np.testing.assert_allclose(sess.run(w), np.arange(6).reshape(3, 2) + 1)


def test_training_step_matches_generated_plan(monkeypatch):
    x = tf.placeholder(tf.float32, [4, 2])
    w = tf.Variable([[0.5], [-0.5]], name="w")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    xv = np.arange(8, dtype=np.float32).reshape(4, 2) / 8
    results = []
    for limit in (-1, 10**9):
        monkeypatch.setattr(plan_module, "MAX_GENERATED_CALLS", limit)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(train, {x: xv})
            results.append(sess.run(w))
    np.testing.assert_array_equal(results[0], results[1])


def test_kernel_error_names_the_users_op_and_line():
    a = tf.placeholder(tf.int32, [None])
    b = tf.placeholder(tf.int32, [None])
    q = tf.floordiv(a, b, name="divide_here")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(q, {a: [1, 2], b: [1, 0]})
    assert info.value.op.name == "divide_here"
    assert __file__ in str(info.value)


def test_bad_feed_and_uninitialized_variable_are_caught_before_kernels():
    x = tf.placeholder(tf.float32, [2], name="x")
    v = tf.Variable([1.0, 2.0], name="v")
    with tf.Session() as sess:
        with pytest.raises(ValueError, match="Cannot feed value of shape"):
            sess.run(x * 2.0, {x: np.ones(3, np.float32)})
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value v"):
            sess.run(v + x, {x: np.ones(2, np.float32)})


def test_the_interpreter_is_really_used():
    x = tf.placeholder(tf.float32, [2], name="x")
    with tf.Session() as sess:
        assert "interpreted steps" in sess.plan_source(x * 2.0 + 1.0, [x])
