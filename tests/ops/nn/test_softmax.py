"""TF1 behaviour of ``tf.nn.softmax`` and ``tf.nn.log_softmax`` beyond the per-op cases:
axis/dim aliases, errors, one fused op, gradients through the output."""

from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf
from ...helpers import run


def log_softmax_ref(x, axis=-1):
    x = np.asarray(x, np.float64)
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def _grad_ops(grads):
    """Types of the ops between the gradient tensors and the forward graph."""
    seen, stack = {}, [g.op for g in grads]
    while stack:
        op = stack.pop()
        if op.name in seen or not op.name.startswith("gradients"):
            continue
        seen[op.name] = op
        stack.extend(t.op for t in op.inputs)
    return seen


def test_softmax_axis_dim_aliases_and_errors():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7
    t = tf.constant(x)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(run(tf.nn.softmax(t, dim=1)), e / e.sum(axis=1, keepdims=True),
                               rtol=1e-6)
    np.testing.assert_allclose(run(tf.nn.log_softmax(t, axis=-2)), log_softmax_ref(x, 1),
                               rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="Cannot specify both 'dim' and 'axis'"):
        tf.nn.softmax(t, axis=1, dim=1)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Dimension \(3\) must be in the range \[-3, 3\)"):
        tf.nn.softmax(t, axis=3)
    with pytest.raises(TypeError):
        tf.nn.softmax(tf.constant([1, 2, 3]))


def test_softmax_last_axis_is_one_op_and_rows_sum_to_one():
    x = tf.placeholder(tf.float32, [None, 10])
    y = tf.nn.softmax(x)
    assert [op.type for op in tf.get_default_graph().get_operations()] == ["Placeholder",
                                                                           "Softmax"]
    logits = np.random.default_rng(0).standard_normal((128, 10)).astype(np.float32) * 50
    got = run(y, {x: logits})
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=1e-6)
    assert got.dtype == np.float32


def test_softmax_and_log_softmax_gradients_use_the_output():
    xv = np.array([[1.0, 2.0, 0.5], [-1.0, 0.0, 3.0]])
    dy = np.array([[0.3, -1.0, 2.0], [1.0, 1.0, -0.5]])
    x = tf.constant(xv)
    s, ls = tf.nn.softmax(x), tf.nn.log_softmax(x)
    gs = tf.gradients(s, x, grad_ys=tf.constant(dy))[0]
    gls = tf.gradients(ls, x, grad_ys=tf.constant(dy))[0]
    assert "Softmax" not in {op.type for op in _grad_ops([gs]).values()}
    sv = np.exp(log_softmax_ref(xv))
    got_s, got_ls = run([gs, gls])
    np.testing.assert_allclose(got_s, (dy - (dy * sv).sum(-1, keepdims=True)) * sv, rtol=1e-12)
    np.testing.assert_allclose(got_ls, dy - dy.sum(-1, keepdims=True) * sv, rtol=1e-12)
    # along another axis
    g0 = tf.gradients(tf.nn.softmax(x, axis=0), x, grad_ys=tf.constant(dy))[0]
    s0 = np.exp(log_softmax_ref(xv, 0))
    np.testing.assert_allclose(run(g0), (dy - (dy * s0).sum(0, keepdims=True)) * s0,
                               rtol=1e-12)
