"""Pooling gradients as TF1 computes them: MaxPoolGrad (first maximum of each window),
MaxPoolGradGrad and AvgPoolGrad."""

import numpy as np

import staticgraph as tf
from staticgraph.ops.nn import pool_grad as nn_pool_grad

from ...helpers import run


def test_max_pool_gradient_goes_to_the_first_maximum_of_each_window():
    # TF1: ties go to the first maximum in row-major window order; padding never wins.
    x = np.array([[1, 3, 3, 5, 5],
                  [3, 2, 1, 5, 5],
                  [0, 0, 0, 0, 5]], np.float32).reshape(1, 3, 5, 1)
    xp = tf.placeholder(tf.float32, x.shape)
    y = tf.nn.max_pool(xp, 2, 2, "SAME")
    w = np.arange(1, 7, dtype=np.float32).reshape(1, 2, 3, 1)
    (dx,) = tf.gradients(tf.reduce_sum(y * w), [xp])
    assert dx.op.type == "MaxPoolGrad"
    got = run(dx, {xp: x})[0, :, :, 0]
    want = np.array([[0, 1, 0, 2, 3],
                     [0, 0, 0, 0, 0],
                     [4, 0, 5, 0, 6]], np.float32)
    np.testing.assert_array_equal(got, want)


def test_overlapping_max_pool_gradients_add_up():
    x = np.array([[0, 1, 0], [1, 9, 1], [0, 1, 0]], np.float32).reshape(1, 3, 3, 1)
    xp = tf.placeholder(tf.float32, x.shape)
    (dx,) = tf.gradients(tf.reduce_sum(tf.nn.max_pool(xp, 2, 1, "VALID")), [xp])
    got = run(dx, {xp: x})[0, :, :, 0]
    np.testing.assert_array_equal(got, [[0, 0, 0], [0, 4, 0], [0, 0, 0]])


def test_max_pool_grad_grad_gathers_and_zeros_elsewhere():
    x = tf.placeholder(tf.float64, [1, 4, 4, 1])
    y = tf.nn.max_pool(x, 2, 2, "VALID")
    g = tf.placeholder(tf.float64, [1, 2, 2, 1])
    (dx,) = tf.gradients(y, [x], grad_ys=[g])
    ddx, dxx = tf.gradients(tf.reduce_sum(dx * dx), [g, x])
    assert ddx.op.type == "MaxPoolGradGrad"
    xv = np.arange(16.0).reshape(1, 4, 4, 1)
    gv = np.array([1.0, 2.0, 3.0, 4.0]).reshape(1, 2, 2, 1)
    got_ddx, got_dxx = run([ddx, dxx], {x: xv, g: gv})
    np.testing.assert_array_equal(got_ddx, 2 * gv)       # gathered at the maxima
    np.testing.assert_array_equal(got_dxx, np.zeros_like(xv))  # TF1: zeros, not None


def test_max_pool_grad_with_infinite_gradient_stays_exact():
    x = np.array([1, 2, 3, 4], np.float32).reshape(1, 2, 2, 1)
    g = np.array([np.inf], np.float32).reshape(1, 1, 1, 1)
    got = run(nn_pool_grad.max_pool_grad(x, x.max().reshape(1, 1, 1, 1), g, (1, 2, 2, 1),
                                    (1, 2, 2, 1), "VALID"))
    np.testing.assert_array_equal(got.ravel(), [0, 0, 0, np.inf])


def test_avg_pool_gradient_spreads_over_valid_elements():
    xp = tf.placeholder(tf.float32, [1, 3, 3, 1])
    g = tf.placeholder(tf.float32, [1, 2, 2, 1])
    (dx,) = tf.gradients(tf.nn.avg_pool(xp, 2, 2, "SAME"), [xp], grad_ys=[g])
    assert dx.op.type == "AvgPoolGrad"
    feed = {xp: np.zeros((1, 3, 3, 1), np.float32),
            g: np.array([1, 2, 3, 4], np.float32).reshape(1, 2, 2, 1)}
    got = run(dx, feed)[0, :, :, 0]
    np.testing.assert_allclose(got, [[0.25, 0.25, 1.0], [0.25, 0.25, 1.0], [1.5, 1.5, 4.0]])
    (dg,) = tf.gradients(tf.reduce_sum(dx), [g])     # AvgPoolGrad's gradient: avg_pool
    assert dg.op.type == "AvgPool"
    np.testing.assert_allclose(run(dg, feed), np.ones((1, 2, 2, 1)))


def test_pool_grad_kernels_do_not_modify_inputs():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 4, 6, 3)).astype(np.float32)
    g = rng.standard_normal((2, 2, 3, 3)).astype(np.float32)
    xc, gc = x.copy(), g.copy()
    k = (1, 2, 2, 1)
    run([nn_pool_grad.max_pool_grad(x, tf.nn.max_pool(x, k, k, "VALID"), g, k, k, "VALID"),
         nn_pool_grad.avg_pool_grad([2, 4, 6, 3], g, k, k, "VALID")])
    np.testing.assert_array_equal(x, xc)
    np.testing.assert_array_equal(g, gc)
