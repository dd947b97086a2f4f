"""TF1 behaviour of ``tf.nn`` (activations, losses, normalization) beyond the per-op cases:
keywords and aliases, default op names, error messages, composite functions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import staticgraph as tf
from ...helpers import run

ALPHA = 1.6732632423543772848170429916717
SCALE = 1.0507009873554804934193349852946


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
def test_l2_loss_gradient():
    tv = np.array([[1.0, -2.0], [3.0, 0.5]])
    t = tf.constant(tv)
    (g,) = tf.gradients(tf.nn.l2_loss(t), t, grad_ys=tf.constant(3.0, tf.float64))
    np.testing.assert_allclose(run(g), 3.0 * tv)


def test_in_top_k_is_not_differentiable():
    from staticgraph.graphlib.op_def import get_op_def
    assert get_op_def("InTopKV2").differentiable is False
    p = tf.placeholder(tf.float32, [2, 3])
    ok = tf.cast(tf.nn.in_top_k(p, [0, 1], 1), tf.float32)
    assert tf.gradients(ok, p) == [None]     # a bool output carries no gradient (TF1)


def test_composite_gradients_match_finite_differences():
    from ...gradient_check import check_gradients
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
