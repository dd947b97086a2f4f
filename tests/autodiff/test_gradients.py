"""The reverse-mode engine: paths, aggregation, broadcasting, names, user lines, errors."""

import inspect

import numpy as np
import pytest

import staticgraph as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def run(fetches, feed=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed)


def test_gradient_of_polynomial_matches_hand_derivative():
    x = tf.placeholder(tf.float64, [3])
    y = x * x * x + 2.0 * x
    (g,) = tf.gradients(y, [x])
    xv = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(run(g, {x: xv}), 3 * xv ** 2 + 2)


def test_partial_gradients_are_summed():
    x = tf.placeholder(tf.float32, [2])
    y = x * 3.0 + x * 4.0
    (g,) = tf.gradients(y, x)
    assert g.op.type == "AddN"
    np.testing.assert_allclose(run(g, {x: [1.0, 2.0]}), [7.0, 7.0])


def test_unconnected_x_gives_none_or_zeros():
    x = tf.placeholder(tf.float32, [2])
    z = tf.placeholder(tf.float32, [3])
    y = x * 2.0
    assert tf.gradients(y, [x, z])[1] is None
    g = tf.gradients(y, [x, z], unconnected_gradients="zero")[1]
    np.testing.assert_array_equal(run(g, {z: [1.0, 1.0, 1.0]}), np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="unconnected_gradients"):
        tf.gradients(y, x, unconnected_gradients="bogus")


def test_stop_gradient_and_stop_gradients_argument():
    x = tf.placeholder(tf.float32, [2])
    a = x * 2.0
    y = a * x
    (g,) = tf.gradients(y, x, stop_gradients=[a])
    np.testing.assert_allclose(run(g, {x: [1.0, 3.0]}), [2.0, 6.0])  # d(a*x)/dx with a const
    (g2,) = tf.gradients(tf.stop_gradient(x) * x, x)
    np.testing.assert_allclose(run(g2, {x: [1.0, 3.0]}), [1.0, 3.0])


def test_integer_tensors_carry_no_gradient():
    i = tf.placeholder(tf.int32, [2])
    y = tf.cast(i, tf.float32) * 2.0
    assert tf.gradients(y, i) == [None]


def test_broadcast_gradient_reduced_to_input_shape_with_unknown_batch():
    x = tf.placeholder(tf.float32, [None, 3])
    b = tf.Variable(tf.zeros([3]), name="b")
    c = tf.placeholder(tf.float32, [])
    y = (x + b) * c
    gx, gb, gc = tf.gradients(y, [x, b, c])
    assert gb.shape.as_list() == [3] and gc.shape.as_list() == []
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = run([gx, gb, gc], {x: xv, c: 2.0})
    np.testing.assert_allclose(out[0], np.full((2, 3), 2.0))
    np.testing.assert_allclose(out[1], [4.0, 4.0, 4.0])
    np.testing.assert_allclose(out[2], xv.sum())


def test_variable_as_x_and_grad_ys():
    w = tf.Variable([1.0, 2.0], name="w")
    y = w * w
    (g,) = tf.gradients(y, w, grad_ys=tf.constant([10.0, 100.0]))
    np.testing.assert_allclose(run(g), [20.0, 400.0])
    with pytest.raises(ValueError, match="grad_ys"):
        tf.gradients(y, w, grad_ys=[tf.constant(1.0), tf.constant(2.0)])


def test_gradient_ops_live_under_gradients_scope_and_remember_forward_line():
    x = tf.placeholder(tf.float32, [2], name="x")
    forward_line = inspect.currentframe().f_lineno + 1
    y = tf.multiply(x, x, name="square_me")
    (g,) = tf.gradients(y, x)
    grad_ops = [op for op in tf.get_default_graph().get_operations()
                if op.name.startswith("gradients/square_me_grad/")]
    assert grad_ops, [op.name for op in tf.get_default_graph().get_operations()]
    assert all(op.traceback.lineno == forward_line for op in grad_ops)
    assert all(op.traceback.filename == __file__ for op in grad_ops)
    assert tf.gradients(y, x)[0].name.startswith("gradients_1/")


def test_non_differentiable_op_raises_at_gradients_call_naming_op_and_line():
    x = tf.placeholder(tf.float32, [4])
    line = inspect.currentframe().f_lineno + 1
    shuffled = tf.random_shuffle(x, name="shuffle")
    y = shuffled * 2.0
    with pytest.raises(LookupError) as info:
        tf.gradients(y, x)
    message = str(info.value)
    assert "'shuffle'" in message and "RandomShuffle" in message
    assert f"{__file__}:{line}" in message


def test_gradients_of_gradients():
    x = tf.placeholder(tf.float64, [3])
    y = tf.reduce_sum(x * x * x)
    (g,) = tf.gradients(y, x)
    (gg,) = tf.gradients(g, x)
    xv = np.array([1.0, 2.0, -1.0])
    np.testing.assert_allclose(run(gg, {x: xv}), 6 * xv)


def test_hessians_of_quadratic_form():
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    x = tf.placeholder(tf.float64, [2])
    y = tf.reduce_sum(x * tf.reshape(tf.matmul(tf.constant(a), tf.reshape(x, [2, 1])), [2]))
    (h,) = tf.hessians(y, x)
    assert h.shape.as_list() == [2, 2]
    np.testing.assert_allclose(run(h, {x: [0.3, -0.7]}), a + a.T)
    with pytest.raises(ValueError, match="fully defined"):
        tf.hessians(y, tf.placeholder(tf.float64, [None]))
