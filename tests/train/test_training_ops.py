"""The Apply* ops used directly: argument checks while declaring and running."""

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.ops.state import training_ops


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def test_ref_inputs_must_be_variables():
    w = tf.Variable([1.0, 2.0], name="w")
    with pytest.raises(TypeError, match="must be a variable"):
        training_ops.apply_gradient_descent(tf.constant([1.0, 2.0]), 0.1, [1.0, 1.0])
    with pytest.raises(TypeError, match="must be a variable"):
        training_ops.apply_momentum(w, w.value(), 0.1, [1.0, 1.0], 0.9)


def test_scalar_and_shape_checks_while_declaring():
    w = tf.Variable([1.0, 2.0], name="w")
    m = tf.Variable([0.0, 0.0], name="m")
    with pytest.raises(ValueError, match="lr is not a scalar"):
        training_ops.apply_momentum(w, m, [0.1, 0.2], [1.0, 1.0], 0.9)
    with pytest.raises(ValueError, match="var and grad do not have the same shape"):
        training_ops.apply_momentum(w, m, 0.1, [1.0, 1.0, 1.0], 0.9)
    with pytest.raises(TypeError, match="does not match type float32"):
        training_ops.apply_momentum(w, m, 0.1, tf.constant([1.0, 1.0], tf.float64), 0.9)
    i = tf.Variable([1, 2], name="i")
    with pytest.raises(TypeError):
        training_ops.apply_gradient_descent(i, tf.constant(1), tf.constant([1, 1]))


def test_shape_mismatch_at_run_time():
    p = tf.placeholder(tf.float32, None)
    w = tf.Variable(p, validate_shape=False, name="w")
    g = tf.placeholder(tf.float32, None)
    out = training_ops.apply_gradient_descent(w, 0.5, g)
    assert out.op.type == "ApplyGradientDescent" and out.op.op_def.stateful
    with tf.Session() as sess:
        sess.run(w.initializer, {p: [1.0, 2.0]})
        np.testing.assert_allclose(sess.run(out, {g: [2.0, 2.0]}), [0.0, 1.0])
        with pytest.raises(tf.errors.InvalidArgumentError, match="same shape"):
            sess.run(out, {g: [1.0, 1.0, 1.0]})
        np.testing.assert_allclose(sess.run(w), [0.0, 1.0])  # unchanged by the failure


def test_not_differentiable_and_no_gradient_through_refs():
    w = tf.Variable([1.0, 2.0], name="w")
    g = tf.placeholder(tf.float32, [2])
    out = training_ops.apply_gradient_descent(w, 0.5, g)
    with pytest.raises(LookupError, match="No gradient defined"):
        tf.gradients(tf.reduce_sum(out), g)


def test_output_is_updated_value_and_variable_after_assign_add():
    s = tf.Variable(1.0, name="s")
    acc = tf.Variable(1.0, name="acc")
    inc = tf.assign_add(s, 2.0)   # leaves a numpy scalar in the session's state
    with tf.control_dependencies([inc]):
        out = training_ops.apply_adagrad(s, acc, 0.5, 3.0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(out)     # 3 - 0.5 * 3 / sqrt(1 + 9)
        np.testing.assert_allclose(got, 3.0 - 1.5 / np.sqrt(10.0), rtol=1e-6)
        np.testing.assert_allclose(sess.run(s), got)
