"""TF1 behaviour of ``tf.nn`` (activations, losses, normalization) beyond the per-op cases:
keywords and aliases, default op names, error messages, composite functions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import staticgraph as tf
from ..helpers import run

ALPHA = 1.6732632423543772848170429916717
SCALE = 1.0507009873554804934193349852946


def log_softmax_ref(x, axis=-1):
    x = np.asarray(x, np.float64)
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


# ------------------------------------------------------------------ activations
@pytest.mark.parametrize("fn,op_type", [
    (tf.nn.relu, "Relu"), (tf.nn.relu6, "Relu6"), (tf.nn.elu, "Elu"), (tf.nn.selu, "Selu"),
    (tf.nn.softplus, "Softplus"), (tf.nn.softsign, "Softsign"), (tf.nn.leaky_relu, "LeakyRelu"),
    (tf.nn.softmax, "Softmax"), (tf.nn.log_softmax, "LogSoftmax")])
def test_activation_default_and_given_names(fn, op_type):
    x = tf.placeholder(tf.float32, [2, 3])
    y = fn(x)
    assert y.op.type == op_type and y.op.name == op_type
    z = fn(x, name="act")
    assert z.op.type == op_type and z.op.name == "act"


def test_repeated_calls_get_tf1_suffixes():
    x = tf.placeholder(tf.float32, [2, 3])
    assert [tf.nn.bias_add(x, [1.0, 2.0, 3.0]).op.name for _ in range(2)] == ["BiasAdd",
                                                                             "BiasAdd_1"]
    assert [tf.nn.leaky_relu(x).op.name for _ in range(2)] == ["LeakyRelu", "LeakyRelu_1"]
    assert [tf.nn.in_top_k(x, [0, 1], 1).op.name for _ in range(2)] == ["in_top_k/InTopKV2",
                                                                        "in_top_k_1/InTopKV2"]


def test_selu_uses_tf1_constants():
    y = tf.nn.selu(tf.constant([-1.0, 0.0, 2.0], tf.float64))
    want = [SCALE * ALPHA * (np.exp(-1.0) - 1), 0.0, SCALE * 2.0]
    np.testing.assert_allclose(run(y), want, rtol=1e-15)


def test_softplus_is_stable_without_warnings():
    x = tf.constant([-1000.0, -100.0, 0.0, 100.0, 1000.0], tf.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = run(tf.nn.softplus(x))
    np.testing.assert_allclose(got, [0.0, np.exp(-100.0), np.log(2.0), 100.0, 1000.0],
                               rtol=1e-12)
    assert got[0] >= 0.0


def test_elu_large_inputs_do_not_warn():
    x = tf.constant([-1e4, 1e4], tf.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(run(tf.nn.elu(x)), [-1.0, 1e4])


def test_leaky_relu_alpha_and_integer_input():
    y = tf.nn.leaky_relu(tf.constant([-2.0, 3.0]), alpha=0.5)
    np.testing.assert_allclose(run(y), [-1.0, 3.0])
    yi = tf.nn.leaky_relu(tf.constant([-10, 4], tf.int32))
    assert yi.dtype is tf.float32
    np.testing.assert_allclose(run(yi), [-2.0, 4.0])
    assert yi.op.attrs["alpha"] == 0.2


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


def test_bias_add_formats_and_errors():
    v = np.arange(24, dtype=np.float64).reshape(2, 3, 2, 2)
    nhwc = tf.nn.bias_add(tf.constant(v), [10.0, 20.0])
    assert nhwc.op.name == "BiasAdd" and nhwc.dtype is tf.float64
    np.testing.assert_array_equal(run(nhwc), v + [10.0, 20.0])
    nchw = tf.nn.bias_add(tf.constant(v), [1.0, 2.0, 3.0], data_format="NCHW")
    assert nchw.op.attrs["data_format"] == "NCHW"
    np.testing.assert_array_equal(run(nchw), v + np.array([1.0, 2.0, 3.0])[None, :, None, None])
    with pytest.raises(ValueError, match="must be equal"):
        tf.nn.bias_add(tf.constant(v), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="rank 1"):
        tf.nn.bias_add(tf.constant(v), [[1.0, 2.0]])
    with pytest.raises(ValueError, match="data_format"):
        tf.nn.bias_add(tf.constant(v), [1.0, 2.0], data_format="HWCN")
    with pytest.raises(TypeError):
        tf.nn.bias_add(tf.constant(v), tf.constant([1.0, 2.0], tf.float32))


def test_crelu_concatenates_both_halves():
    y = tf.nn.crelu(tf.constant([[1.0, -2.0], [-3.0, 4.0]]))
    assert y.shape.as_list() == [2, 4]
    np.testing.assert_array_equal(run(y), [[1, 0, 0, 2], [0, 4, 3, 0]])


def test_xw_plus_b():
    x = np.array([[1.0, 2.0]], np.float32)
    w = np.array([[1.0, 0.0, 2.0], [3.0, 1.0, 0.0]], np.float32)
    y = tf.nn.xw_plus_b(x, w, np.array([0.5, 0.0, -1.0], np.float32))
    assert y.op.type == "BiasAdd" and y.op.name == "xw_plus_b"
    np.testing.assert_allclose(run(y), [[7.5, 2.0, 1.0]])


# ------------------------------------------------------------------ losses
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


def sigmoid_xent_ref(x, z):
    x, z = np.asarray(x, np.float64), np.asarray(z, np.float64)
    return np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))


def test_sigmoid_xent_values_name_and_stability():
    x = np.array([[-100.0, -1.0, 0.0], [0.5, 3.0, 100.0]], np.float32)
    z = np.array([[0.0, 1.0, 0.5], [1.0, 0.0, 1.0]], np.float32)
    loss = tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x)
    assert loss.op.name == "logistic_loss" and loss.dtype is tf.float32
    got = run(loss)
    np.testing.assert_allclose(got, sigmoid_xent_ref(x, z), rtol=1e-6, atol=1e-6)
    assert np.all(np.isfinite(got))
    # the defining formula, -z*log(sigmoid(x)) - (1-z)*log(1-sigmoid(x)), for moderate x
    moderate = np.abs(x) < 10
    s = 1 / (1 + np.exp(-x[moderate].astype(np.float64)))
    z1 = z[moderate]
    np.testing.assert_allclose(got[moderate], -z1 * np.log(s) - (1 - z1) * np.log(1 - s),
                               rtol=1e-5)
    # huge logits: the loss is |x| where the label disagrees, ~0 where it agrees
    np.testing.assert_allclose(got[~moderate], [0.0, 0.0], atol=1e-30)
    with pytest.raises(ValueError, match="logits and labels must have the same shape"):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=z[:1], logits=x)
    with pytest.raises(ValueError, match="Both labels and logits"):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=z)


def test_weighted_cross_entropy():
    x = np.array([-3.0, -0.5, 0.0, 2.0, 50.0], np.float64)
    z = np.array([1.0, 0.0, 1.0, 0.3, 0.0])
    q = 2.5
    loss = tf.nn.weighted_cross_entropy_with_logits(targets=z, logits=x, pos_weight=q)
    s = 1 / (1 + np.exp(-x[:-1]))
    want = -q * z[:-1] * np.log(s) - (1 - z[:-1]) * np.log(1 - s)
    want = np.append(want, 50.0)  # (1 - z) * x for a huge logit and z = 0
    np.testing.assert_allclose(run(loss), want, rtol=1e-9)
    assert loss.op.name == "logistic_loss"


def test_l2_loss():
    t = tf.constant([[3.0, 4.0], [1.0, -1.0]])
    loss = tf.nn.l2_loss(t)
    assert loss.op.type == "L2Loss" and loss.op.name == "L2Loss"
    assert loss.shape.as_list() == []
    assert run(loss) == pytest.approx(13.5)
    assert tf.nn.l2_loss(t, name="wd").op.name == "wd"


def test_in_top_k_ties_and_names():
    pred = np.array([[0.1, 0.4, 0.4, 0.1], [0.7, 0.1, 0.1, 0.1], [0.3, 0.2, 0.3, 0.2]],
                    np.float32)
    # row 0: target 2 ties with 1 at the top -> in top 1; row 1: target 3 ties with two
    # others below 0.7 -> in top 2; row 2: target 1 has two strictly larger -> not in top 2
    y = tf.nn.in_top_k(pred, [2, 3, 1], 2)
    assert y.op.type == "InTopKV2" and y.op.name == "in_top_k/InTopKV2"
    assert y.dtype is tf.bool and y.shape.as_list() == [3]
    np.testing.assert_array_equal(run(y), [True, True, False])
    np.testing.assert_array_equal(run(tf.nn.in_top_k(pred, [2, 3, 1], 1)), [True, False, False])
    np.testing.assert_array_equal(run(tf.nn.in_top_k(pred, [2, 3, 1], 3)), [True, True, True])
    with pytest.raises(TypeError):
        tf.nn.in_top_k(pred.astype(np.float64), [0, 1, 2], 1)


def test_in_top_k_non_finite_and_out_of_range_are_false():
    pred = np.array([[np.nan, 0.1, 0.9], [np.inf, 0.1, 0.9], [0.2, 0.1, 0.9], [0.2, 0.1, 0.9]],
                    np.float32)
    got = run(tf.nn.in_top_k(pred, tf.constant([2, 2, 3, -1], tf.int64), 3))
    np.testing.assert_array_equal(got, [False, False, False, False])


# ------------------------------------------------------------------ normalization
def test_l2_normalize():
    x = np.array([[3.0, 4.0], [0.0, 0.0], [1.0, 1.0]], np.float32)
    y = tf.nn.l2_normalize(x, axis=1)
    assert y.op.name == "l2_normalize"
    np.testing.assert_allclose(run(y), [[0.6, 0.8], [0.0, 0.0], [0.5 ** 0.5, 0.5 ** 0.5]],
                               rtol=1e-6)
    np.testing.assert_allclose(run(tf.nn.l2_normalize(x, dim=0)),
                               x / np.sqrt((x ** 2).sum(axis=0)), rtol=1e-6)
    np.testing.assert_allclose(run(tf.nn.l2_normalize(x)), x / np.sqrt((x ** 2).sum()),
                               rtol=1e-6)
    with pytest.raises(ValueError, match="Cannot specify both 'dim' and 'axis'"):
        tf.nn.l2_normalize(x, axis=0, dim=0)


def test_moments_values_keep_dims_and_aliases():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((4, 3, 2)).astype(np.float32)
    mean, var = tf.nn.moments(tf.constant(x), axes=[0, 1])
    assert mean.shape.as_list() == [2] and var.shape.as_list() == [2]
    assert mean.name.startswith("moments/") and var.name.startswith("moments/")
    m, v = run([mean, var])
    np.testing.assert_allclose(m, x.mean(axis=(0, 1)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(v, x.var(axis=(0, 1)), rtol=1e-5)
    mk, vk = tf.nn.moments(tf.constant(x), [1], keep_dims=True)
    assert mk.shape.as_list() == [4, 1, 2] and vk.shape.as_list() == [4, 1, 2]
    np.testing.assert_allclose(run(vk), x.var(axis=1, keepdims=True), rtol=1e-5)
    mk2, _ = tf.nn.moments(tf.constant(x), [1], keepdims=True)
    assert mk2.shape.as_list() == [4, 1, 2]
    with pytest.raises(ValueError, match="Cannot specify both 'keep_dims' and 'keepdims'"):
        tf.nn.moments(tf.constant(x), [1], keep_dims=True, keepdims=True)
    m16, v16 = tf.nn.moments(tf.constant(x.astype(np.float16)), [0])
    assert m16.dtype is tf.float16 and v16.dtype is tf.float16
    np.testing.assert_allclose(run(v16), x.astype(np.float16).astype(np.float64).var(axis=0),
                               rtol=5e-3, atol=1e-3)


def test_batch_normalization():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((5, 3)).astype(np.float32)
    mean, var = x.mean(axis=0), x.var(axis=0)
    beta = np.array([0.1, -0.2, 0.3], np.float32)
    gamma = np.array([2.0, 0.5, 1.0], np.float32)
    y = tf.nn.batch_normalization(x, mean, var, beta, gamma, 1e-3)
    assert y.name.startswith("batchnorm/")
    np.testing.assert_allclose(run(y), gamma * (x - mean) / np.sqrt(var + 1e-3) + beta,
                               rtol=1e-5, atol=1e-5)
    plain = tf.nn.batch_normalization(x, mean, var, None, None, 1e-3)
    np.testing.assert_allclose(run(plain), (x - mean) / np.sqrt(var + 1e-3), rtol=1e-5,
                               atol=1e-5)


def test_dropout_argument_rules():
    x = tf.placeholder(tf.float32, [None, 4])
    assert tf.nn.dropout(x, keep_prob=1.0) is x
    assert tf.nn.dropout(x, rate=0.0) is x
    with pytest.raises(ValueError, match="Cannot specify both 'keep_prob' and 'rate'"):
        tf.nn.dropout(x, keep_prob=0.5, rate=0.5)
    with pytest.raises(ValueError, match="You must provide a rate to dropout"):
        tf.nn.dropout(x)
    with pytest.raises(ValueError, match=r"range \[0, 1\)"):
        tf.nn.dropout(x, keep_prob=0.0)
    with pytest.raises(ValueError, match="floating point tensor"):
        tf.nn.dropout(tf.constant([1, 2]), keep_prob=0.5)
    y = tf.nn.dropout(x, keep_prob=0.5)
    assert y.shape.as_list() == [None, 4] and y.name.startswith("dropout")


def test_dropout_statistics_and_scaling():
    x = tf.ones([200, 100])
    y = tf.nn.dropout(x, keep_prob=0.7)
    got = run(y)
    kept = got != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(got[kept], 1 / 0.7, rtol=1e-6)
    got_rate = run(tf.nn.dropout(x, rate=0.25))
    assert abs((got_rate != 0).mean() - 0.75) < 0.02
    np.testing.assert_allclose(got_rate[got_rate != 0], 1 / 0.75, rtol=1e-6)


def test_dropout_keep_prob_tensor_and_noise_shape():
    keep = tf.placeholder(tf.float32, [])
    x = tf.ones([300, 8])
    y = tf.nn.dropout(x, keep_prob=keep, noise_shape=[300, 1])
    got = run(y, {keep: 0.5})
    rows_kept = got[:, 0] != 0
    assert np.all((got != 0) == rows_kept[:, None])  # whole rows kept or dropped
    assert 0.35 < rows_kept.mean() < 0.65
    np.testing.assert_allclose(got[rows_kept], 2.0, rtol=1e-6)
    np.testing.assert_array_equal(run(y, {keep: 1.0}), np.ones((300, 8)))


def test_dropout_reproducible_with_graph_seed():
    def sample(seed):
        graph = tf.Graph()
        with graph.as_default():
            tf.set_random_seed(seed)
            y = tf.nn.dropout(tf.ones([50, 20]), keep_prob=0.5)
        out = []
        for _ in range(2):
            with tf.Session(graph=graph) as sess:
                out.append(sess.run(y))
        return out

    a1, a2 = sample(42)
    b1, _ = sample(42)
    c1, _ = sample(7)
    np.testing.assert_array_equal(a1, a2)
    np.testing.assert_array_equal(a1, b1)
    assert not np.array_equal(a1, c1)


def test_embedding_lookup_single_table():
    table = np.arange(12, dtype=np.float32).reshape(4, 3)
    ids = np.array([[3, 0], [1, 1]], np.int64)
    y = tf.nn.embedding_lookup(table, ids)
    assert y.shape.as_list() == [2, 2, 3]
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert "embedding_lookup" in names
    np.testing.assert_array_equal(run(y), table[ids])
    w = tf.Variable(table)
    z = tf.nn.embedding_lookup([w], tf.constant([2, 0]))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(z), table[[2, 0]])
    with pytest.raises(ValueError, match="Need at least one param"):
        tf.nn.embedding_lookup([], ids)


def test_embedding_lookup_max_norm():
    table = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]], np.float32)
    y = tf.nn.embedding_lookup(table, [0, 1, 2], max_norm=1.0)
    np.testing.assert_allclose(run(y), [[0.6, 0.8], [0.3, 0.4], [0.0, 0.0]], rtol=1e-6)


@pytest.mark.parametrize("strategy", ["mod", "div"])
def test_embedding_lookup_sharded(strategy):
    full = np.arange(14, dtype=np.float32).reshape(7, 2)
    ids = np.array([6, 0, 3, 4, 1], np.int32)
    if strategy == "mod":  # id i lives in shard i % 3 at row i // 3
        shards = [full[p::3] for p in range(3)]
    else:  # contiguous ranges, the first shards one row larger
        shards = [full[0:3], full[3:5], full[5:7]]
    y = tf.nn.embedding_lookup(shards, ids, partition_strategy=strategy)
    np.testing.assert_array_equal(run(y), full[ids])
    with pytest.raises(ValueError, match="partition strategy"):
        tf.nn.embedding_lookup(shards, ids, partition_strategy="hash")


def test_exported_names():
    for name in ["relu", "relu6", "elu", "selu", "softplus", "softsign", "leaky_relu", "softmax",
                 "log_softmax", "bias_add", "crelu", "xw_plus_b",
                 "softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits_v2",
                 "sparse_softmax_cross_entropy_with_logits",
                 "sigmoid_cross_entropy_with_logits", "weighted_cross_entropy_with_logits",
                 "l2_loss", "in_top_k", "l2_normalize", "moments", "batch_normalization",
                 "dropout", "embedding_lookup"]:
        assert callable(getattr(tf.nn, name)), name


# ------------------------------------------------------------------ gradients
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
    from staticgraph.ops.nn_activation import relu_grad
    g = relu_grad(dy, y)
    d_dy, d_y = tf.gradients(g, [dy, y])
    assert d_dy.op.type == "ReluGrad"
    assert d_y is not None      # TF1 gives zeros for the features, not None
    got_dy, got_y = run([d_dy, d_y])
    np.testing.assert_array_equal(got_dy, [[0.0, 1.0], [1.0, 0.0]])
    np.testing.assert_array_equal(got_y, np.zeros((2, 2)))


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


def test_l2_loss_gradient():
    tv = np.array([[1.0, -2.0], [3.0, 0.5]])
    t = tf.constant(tv)
    (g,) = tf.gradients(tf.nn.l2_loss(t), t, grad_ys=tf.constant(3.0, tf.float64))
    np.testing.assert_allclose(run(g), 3.0 * tv)


def test_in_top_k_is_not_differentiable():
    from staticgraph.ops import get_op_def
    assert get_op_def("InTopKV2").differentiable is False
    p = tf.placeholder(tf.float32, [2, 3])
    ok = tf.cast(tf.nn.in_top_k(p, [0, 1], 1), tf.float32)
    assert tf.gradients(ok, p) == [None]     # a bool output carries no gradient (TF1)


def test_composite_gradients_match_finite_differences():
    from ..gradient_check import check_gradients
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 3))
    gamma, beta = rng.standard_normal(3), rng.standard_normal(3)

    def batch_norm_with_batch_moments(x, g, b):
        mean, var = tf.nn.moments(x, axes=[0])
        y = tf.nn.batch_normalization(x, mean, var, b, g, variance_epsilon=1e-3)
        return tf.reduce_sum(y * tf.constant(rng.standard_normal((4, 3))))
    check_gradients(batch_norm_with_batch_moments, [x, gamma, beta], [0, 1, 2])

    def l2_normalize_all(x):
        return tf.reduce_sum(tf.nn.l2_normalize(x) * tf.constant(np.arange(12.0).reshape(4, 3)))
    check_gradients(l2_normalize_all, [x], [0])

    z = rng.random((4, 3))

    def sigmoid_xent(x, z):
        return tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x))
    check_gradients(sigmoid_xent, [x, z], [0, 1])

    def weighted_xent(x, z):
        return tf.reduce_sum(tf.nn.weighted_cross_entropy_with_logits(z, x, 2.5))
    check_gradients(weighted_xent, [x, z], [0, 1])


def test_dropout_gradient_is_the_scaled_mask():
    rng = np.random.default_rng(6)
    xv = rng.random((30, 20)).astype(np.float32) + 0.5     # nonzero: kept iff output != 0
    dyv = rng.standard_normal((30, 20)).astype(np.float32)
    x = tf.placeholder(tf.float32, [30, 20])
    y = tf.nn.dropout(x, keep_prob=0.4)
    (g,) = tf.gradients(y, x, grad_ys=tf.constant(dyv))
    got_y, got_g = run([y, g], {x: xv})
    kept = got_y != 0
    assert 0.2 < kept.mean() < 0.6
    np.testing.assert_allclose(got_g, np.where(kept, dyv / 0.4, 0.0), rtol=1e-6)
    # keep_prob=1: dropout is the identity, and so is its gradient
    (g1,) = tf.gradients(tf.nn.dropout(x, keep_prob=1.0), x, grad_ys=tf.constant(dyv))
    np.testing.assert_array_equal(run(g1, {x: xv}), dyv)
