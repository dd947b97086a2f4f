"""TF1 behaviour of the fused softmax cross-entropies (``tf.nn.softmax_cross_entropy_with_logits``
(v1 and v2) and ``tf.nn.sparse_softmax_cross_entropy_with_logits``) beyond the per-op cases:
keywords, names, label casts, errors, stability, gradients."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import staticgraph as tf
from ...helpers import run
from .test_softmax import _grad_ops, log_softmax_ref


def test_softmax_xent_v1_requires_named_arguments():
    logits = tf.constant([[1.0, 2.0]])
    with pytest.raises(ValueError, match="Only call `softmax_cross_entropy_with_logits` with "
                                         "named arguments"):
        tf.nn.softmax_cross_entropy_with_logits([[0.0, 1.0]], logits)
    with pytest.raises(ValueError, match="Both labels and logits must be provided"):
        tf.nn.softmax_cross_entropy_with_logits(logits=logits)
    with pytest.raises(ValueError, match="Only call `sparse_softmax_cross_entropy_with_logits`"):
        tf.nn.sparse_softmax_cross_entropy_with_logits([1], logits)
    with pytest.raises(ValueError, match="Only call `sigmoid_cross_entropy_with_logits`"):
        tf.nn.sigmoid_cross_entropy_with_logits([1.0], logits)


def test_softmax_xent_v1_and_v2_values_names_and_stop_gradient():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 4)).astype(np.float32)
    p = rng.random((5, 4)).astype(np.float32)
    p /= p.sum(axis=1, keepdims=True)
    want = -(p * log_softmax_ref(x)).sum(axis=1)
    v1 = tf.nn.softmax_cross_entropy_with_logits(labels=p, logits=x)
    v2 = tf.nn.softmax_cross_entropy_with_logits_v2(labels=p, logits=x)
    assert v1.op.type == v2.op.type == "SoftmaxCrossEntropyWithLogits"
    assert v1.op.name == "softmax_cross_entropy_with_logits_sg"
    assert v2.op.name == "softmax_cross_entropy_with_logits"
    assert len(v1.op.outputs) == 2 and v1.shape.as_list() == [5]
    names = {op.name: op.type for op in tf.get_default_graph().get_operations()}
    assert names["softmax_cross_entropy_with_logits_sg/labels_stop_gradient"] == "StopGradient"
    got1, got2 = run([v1, v2])
    np.testing.assert_allclose(got1, want, rtol=1e-5)
    np.testing.assert_allclose(got2, want, rtol=1e-5)
    named = tf.nn.softmax_cross_entropy_with_logits_v2(labels=p, logits=x, name="xent")
    assert named.op.name == "xent"


def test_softmax_xent_dim_and_label_cast():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 4, 2))
    p = rng.random((3, 4, 2))
    p /= p.sum(axis=0, keepdims=True)
    loss = tf.nn.softmax_cross_entropy_with_logits(labels=p, logits=x, dim=0)
    assert loss.shape.as_list() == [4, 2]
    np.testing.assert_allclose(run(loss), -(p * log_softmax_ref(x, 0)).sum(axis=0), rtol=1e-10)
    v2 = tf.nn.softmax_cross_entropy_with_logits_v2(labels=p, logits=x, axis=1)
    assert v2.shape.as_list() == [3, 2]
    np.testing.assert_allclose(run(v2), -(p * log_softmax_ref(x, 1)).sum(axis=1), rtol=1e-10)
    with pytest.raises(ValueError, match="Cannot specify both"):
        tf.nn.softmax_cross_entropy_with_logits_v2(labels=p, logits=x, axis=1, dim=1)
    # labels of another float dtype are cast to the logits' dtype, as TF1 does
    logits32 = tf.constant(x[0].astype(np.float32))
    cast = tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.constant(p[0]), logits=logits32)
    assert cast.dtype is tf.float32
    np.testing.assert_allclose(run(cast), -(p[0] * log_softmax_ref(x[0])).sum(axis=1),
                               rtol=1e-5)


def test_softmax_xent_is_stable_for_huge_logits():
    x = tf.constant([[1e4, -1e4, 0.0], [-1e30, 1e30, 0.0]], tf.float32)
    labels = tf.constant([[1.0, 0.0, 0.0], [0.0, 0.5, 0.5]], tf.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss, backprop = run(tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels,
                                                                        logits=x).op.outputs)
    np.testing.assert_allclose(loss, [0.0, 0.5e30], rtol=1e-6)
    np.testing.assert_allclose(backprop, [[0.0, 0.0, 0.0], [0.0, 0.5, -0.5]], atol=1e-7)


def test_sparse_xent_names_and_rank_errors():
    logits = tf.placeholder(tf.float32, [None, 5])
    labels = tf.placeholder(tf.int64, [None])
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    assert loss.op.type == "SparseSoftmaxCrossEntropyWithLogits"
    assert loss.op.name == ("SparseSoftmaxCrossEntropyWithLogits/"
                            "SparseSoftmaxCrossEntropyWithLogits")
    assert loss.shape.as_list() == [None] and loss.dtype is tf.float32
    named = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                           name="loss")
    assert named.op.name == "loss/loss"
    with pytest.raises(ValueError, match=r"Rank mismatch: Rank of labels \(received 2\) should "
                                         r"equal rank of logits minus 1 \(received 2\)"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.placeholder(tf.int32, [3, 1]), logits=tf.placeholder(tf.float32, [3, 5]))
    with pytest.raises(ValueError, match="Logits cannot be scalars"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.placeholder(tf.int32, []),
                                                       logits=tf.constant(1.0))
    with pytest.raises(TypeError):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0.5], logits=[[1.0, 2.0]])


@pytest.mark.parametrize("bad,shown", [(7, "7"), (-1, "-1")])
def test_sparse_xent_out_of_range_label_raises_at_run_time(bad, shown):
    logits = tf.placeholder(tf.float32, [None, 5])
    labels = tf.placeholder(tf.int32, [None])
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=rf"Received a label value of {shown} which is outside the valid "
                             rf"range of \[0, 5\)") as info:
        run(loss, {logits: np.zeros((3, 5), np.float32), labels: [1, bad, 2]})
    assert info.value.op is loss.op
    assert "Label values: 1 " + shown + " 2" in str(info.value)


def test_sparse_xent_matches_dense_with_one_hot_and_backprop():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((128, 10)).astype(np.float32) * 4
    y = rng.integers(0, 10, 128)
    onehot = np.eye(10, dtype=np.float32)[y]
    sparse = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=x)
    dense = tf.nn.softmax_cross_entropy_with_logits_v2(labels=onehot, logits=x)
    (ls, bs), (ld, bd) = run([sparse.op.outputs, dense.op.outputs])
    want = -log_softmax_ref(x)[np.arange(128), y]
    np.testing.assert_allclose(ls, want, rtol=1e-5)
    np.testing.assert_allclose(ld, want, rtol=1e-5)
    np.testing.assert_allclose(bs, np.exp(log_softmax_ref(x)) - onehot, atol=1e-6)
    np.testing.assert_allclose(bd, bs, atol=1e-6)


def test_sparse_xent_gradient_reuses_the_forward_backprop():
    rng = np.random.default_rng(4)
    zv = rng.standard_normal((5, 4))
    yv = np.array([0, 3, 1, 1, 2])
    logits = tf.placeholder(tf.float64, [None, 4])
    labels = tf.placeholder(tf.int64, [None])
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    loss = tf.reduce_mean(xent)
    (g,) = tf.gradients(loss, logits)
    assert tf.gradients(loss, labels) == [None]
    types = {op.type for op in _grad_ops([g]).values()}
    assert not types & {"Softmax", "Exp", "LogSoftmax", "SparseSoftmaxCrossEntropyWithLogits"}
    assert g.op.type == "Mul" and xent.op.outputs[1] in list(g.op.inputs)
    onehot = np.eye(4)[yv]
    np.testing.assert_allclose(run(g, {logits: zv, labels: yv}),
                               (np.exp(log_softmax_ref(zv)) - onehot) / 5, rtol=1e-12)


def test_softmax_xent_gradients_logits_and_labels_as_tf1():
    zv = np.array([[1.0, 2.0, 3.0], [0.5, -0.5, 0.0]])
    pv = np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]])
    logits, labels = tf.constant(zv), tf.constant(pv)
    dloss = np.array([2.0, -1.0])
    v2 = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    dz, dp = tf.gradients(v2, [logits, labels], grad_ys=tf.constant(dloss))
    assert not {"Softmax", "Exp"} & {op.type for op in _grad_ops([dz]).values()}
    got_dz, got_dp = run([dz, dp])
    ls = log_softmax_ref(zv)
    np.testing.assert_allclose(got_dz, dloss[:, None] * (np.exp(ls) - pv), rtol=1e-12)
    np.testing.assert_allclose(got_dp, -dloss[:, None] * ls, rtol=1e-12)
    v1 = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    dz1, dp1 = tf.gradients(v1, [logits, labels])
    assert dp1 is None      # v1 stops the gradient into labels
    np.testing.assert_allclose(run(dz1), np.exp(ls) - pv, rtol=1e-12)


def test_softmax_xent_logits_gradient_is_softmax_minus_labels_even_unnormalized():
    # TF1's backprop is softmax - labels, which is the true derivative only for
    # labels that sum to 1; TF1 uses it regardless, and so do we.
    zv = np.array([[1.0, 2.0, 3.0]])
    pv = np.array([[0.5, 0.5, 0.5]])
    logits = tf.constant(zv)
    loss = tf.nn.softmax_cross_entropy_with_logits_v2(labels=pv, logits=logits)
    (dz,) = tf.gradients(loss, logits)
    np.testing.assert_allclose(run(dz), np.exp(log_softmax_ref(zv)) - pv, rtol=1e-12)


def test_sparse_xent_hessian_is_the_softmax_jacobian():
    zv = np.array([0.3, -1.2, 2.0])
    logits = tf.constant(zv)
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant(1), logits=logits)
    (h,) = tf.hessians(loss, logits)
    s = np.exp(log_softmax_ref(zv))
    np.testing.assert_allclose(run(h), np.diag(s) - np.outer(s, s), rtol=1e-12, atol=1e-15)
