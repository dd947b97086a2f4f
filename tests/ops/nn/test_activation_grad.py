"""The activations' gradients as TF1 builds them: one fused gradient op per activation
(``ReluGrad``, ``EluGrad``, ..., ``BiasAddGrad``), their values and second derivatives."""

from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf
from ...helpers import run
from .test_nn import ALPHA, SCALE


@pytest.mark.parametrize("fn,grad_type,uses_output", [
    (tf.nn.relu, "ReluGrad", True), (tf.nn.relu6, "Relu6Grad", True),
    (tf.nn.elu, "EluGrad", True), (tf.nn.selu, "SeluGrad", True),
    (tf.nn.softplus, "SoftplusGrad", False), (tf.nn.softsign, "SoftsignGrad", False),
    (tf.nn.leaky_relu, "LeakyReluGrad", False)])
def test_activation_gradients_are_one_fused_op(fn, grad_type, uses_output):
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    y = fn(x)
    (g,) = tf.gradients(y, x)
    assert g.op.type == grad_type
    assert g.op.name == f"gradients/{y.op.name}_grad/{grad_type}"
    assert g.op.inputs[1] is (y if uses_output else x)


def test_activation_gradient_values():
    xv = np.array([[-2.0, -0.5, 0.5], [2.0, 7.0, -7.0]])
    dy = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    x = tf.constant(xv)
    sig = 1 / (1 + np.exp(-xv))
    cases = [
        (tf.nn.relu(x), dy * (xv > 0)),
        (tf.nn.relu6(x), dy * ((xv > 0) & (xv < 6))),
        (tf.nn.elu(x), np.where(xv > 0, dy, dy * np.exp(xv))),
        (tf.nn.selu(x), SCALE * np.where(xv > 0, dy, dy * ALPHA * np.exp(xv))),
        (tf.nn.softplus(x), dy * sig),
        (tf.nn.softsign(x), dy / (1 + np.abs(xv)) ** 2),
        (tf.nn.leaky_relu(x, alpha=0.3), np.where(xv > 0, dy, 0.3 * dy)),
    ]
    grads = [tf.gradients(y, x, grad_ys=tf.constant(dy))[0] for y, _ in cases]
    for got, (_, want) in zip(run(grads), cases):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_relu_grad_second_order_follows_tf1():
    dy = tf.constant([[1.0, -2.0], [3.0, 4.0]])
    y = tf.constant([[0.0, 1.0], [2.0, 0.0]])
    from staticgraph.ops.nn.activation_grad import relu_grad
    g = relu_grad(dy, y)
    d_dy, d_y = tf.gradients(g, [dy, y])
    assert d_dy.op.type == "ReluGrad"
    assert d_y is not None      # TF1 gives zeros for the features, not None
    got_dy, got_y = run([d_dy, d_y])
    np.testing.assert_array_equal(got_dy, [[0.0, 1.0], [1.0, 0.0]])
    np.testing.assert_array_equal(got_y, np.zeros((2, 2)))


@pytest.mark.parametrize("data_format,axes", [("NHWC", (0, 1, 2)), ("NCHW", (0, 2, 3))])
def test_bias_add_gradient_is_bias_add_grad(data_format, axes):
    rng = np.random.default_rng(3)
    xv = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    c = 3 if data_format == "NCHW" else 5
    x = tf.placeholder(tf.float32, [None, 3, 4, 5])
    b = tf.constant(np.zeros(c, np.float32))
    y = tf.nn.bias_add(x, b, data_format=data_format)
    dyv = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    dx, db = tf.gradients(y, [x, b], grad_ys=tf.constant(dyv))
    assert db.op.type == "BiasAddGrad" and db.op.attrs["data_format"] == data_format
    assert db.shape.as_list() == [c]
    got_dx, got_db = run([dx, db], {x: xv})
    np.testing.assert_array_equal(got_dx, dyv)
    np.testing.assert_allclose(got_db, dyv.astype(np.float64).sum(axis=axes), rtol=1e-5)
