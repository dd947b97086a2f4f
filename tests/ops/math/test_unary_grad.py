"""TF1's fused gradient kernels of unary math (TanhGrad, SigmoidGrad, ...): use by the
forward ops' gradients, dtypes, refusal of mismatched inputs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import staticgraph as tf
from ...helpers import run


@pytest.fixture(autouse=True)
def no_numpy_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        yield


@pytest.mark.parametrize("fn,fused", [(tf.tanh, "TanhGrad"), (tf.sigmoid, "SigmoidGrad"),
                                      (tf.sqrt, "SqrtGrad"), (tf.rsqrt, "RsqrtGrad"),
                                      (tf.reciprocal, "ReciprocalGrad")])
def test_hot_unary_gradients_use_fused_kernels_on_the_output(fresh_graph, fn, fused):
    x = tf.placeholder(tf.float32, [None, 3])
    y = fn(x)
    g = tf.gradients(y, [x])[0]
    assert g.op.type == fused and g.op.inputs[0] is y   # uses the forward output, as TF1
    xv = np.array([[0.5, 1.0, 2.0]], np.float32)
    got = run(g, {x: xv})
    assert got.dtype == np.float32
    h = 1e-3
    want = (run(y, {x: xv + h}).astype(np.float64) - run(y, {x: xv - h})) / (2 * h)
    np.testing.assert_allclose(got, want, rtol=2e-3)


def test_fused_gradient_kernels_keep_dtype_and_inputs():
    from staticgraph.graphlib.op_def import get_op_def
    y = np.array([0.25, -0.5], np.float16)
    dy = np.array([2.0, 4.0], np.float16)
    for op_type, want in (("TanhGrad", dy * (1 - y * y)), ("SigmoidGrad", dy * y * (1 - y)),
                          ("SqrtGrad", dy / (2 * y)), ("RsqrtGrad", -dy * y ** 3 / 2),
                          ("ReciprocalGrad", -dy * y * y)):
        kernel = get_op_def(op_type).compute
        got = kernel(y, dy)
        assert got.dtype == np.float16, op_type
        np.testing.assert_allclose(got, want, rtol=1e-3)
        got0 = kernel(np.float64(0.5), np.float64(2.0))   # 0-d values
        assert np.shape(got0) == () and np.asarray(got0).dtype == np.float64
    assert y.tolist() == [0.25, -0.5] and dy.tolist() == [2.0, 4.0]


def test_fused_gradient_ops_refuse_mismatched_inputs():
    from staticgraph.ops.math import unary_grad as math_unary_grad
    with pytest.raises(ValueError, match="TanhGrad"):
        math_unary_grad.tanh_grad(tf.placeholder(tf.float32, [2, 3]),
                                  tf.placeholder(tf.float32, [3]))
    with pytest.raises(TypeError):
        math_unary_grad.sigmoid_grad(tf.placeholder(tf.float32, [2]),
                                     tf.placeholder(tf.float64, [2]))
