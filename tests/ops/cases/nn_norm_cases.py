"""Cases for the composite normalization functions (l2_normalize, moments,
batch_normalization, dropout, embedding_lookup), so the generic checks also run them
with unknown dimensions and unknown rank. nn_norm registers no op types of its own:
each case names the main op its composite builds on."""

import numpy as np

import staticgraph as tf

from . import Case, rng

R = rng(13)
X = R.standard_normal((4, 3)).astype(np.float32)
X3 = R.standard_normal((2, 3, 4))
MEAN = X.mean(axis=0)
VAR = X.var(axis=0)
TABLE = R.standard_normal((5, 2)).astype(np.float32)
IDS = np.array([[4, 0, 1], [2, 2, 3]], np.int32)


def ref_l2_normalize(x, axis):
    x = x.astype(np.float64)
    return x / np.sqrt(np.maximum((x ** 2).sum(axis=axis, keepdims=True), 1e-12))


def check_dropout(outputs, inputs):
    (x,) = inputs
    out = np.asarray(outputs)
    kept = out != 0
    assert 0.3 < kept.mean() < 0.7, kept.mean()
    np.testing.assert_allclose(out[kept], x[kept] * 2.0, rtol=1e-6)


CASES = [
    Case("Rsqrt", lambda x: tf.nn.l2_normalize(x, axis=1), [X],
         lambda x: ref_l2_normalize(x, 1).astype(np.float32), id="l2_normalize",
         grad2=True),
    Case("Rsqrt", lambda x: tf.nn.l2_normalize(x, dim=[0, 2]), [X3],
         lambda x: ref_l2_normalize(x, (0, 2)), id="l2_normalize_axes", rtol=1e-12),
    Case("Mean", lambda x: list(tf.nn.moments(x, axes=[0])), [X],
         lambda x: [x.mean(axis=0), x.var(axis=0)], id="moments"),
    # (no grad2 for moments: as in TF1 the variance sees stop_gradient(mean), which is
    # exact for first derivatives only)
    Case("Mean", lambda x: list(tf.nn.moments(x, axes=[0, 2], keep_dims=True)), [X3],
         lambda x: [x.mean(axis=(0, 2), keepdims=True), x.var(axis=(0, 2), keepdims=True)],
         id="moments_keep_dims", rtol=1e-12),
    Case("Rsqrt",
         lambda x, m, v, b, g: tf.nn.batch_normalization(x, m, v, b, g, variance_epsilon=1e-3),
         [X, MEAN, VAR, np.float32([0.5, 0.0, -1.0]), np.float32([1.0, 2.0, 0.5])],
         lambda x, m, v, b, g: ((x - m) / np.sqrt(v + 1e-3) * g + b).astype(np.float32),
         id="batch_normalization", rtol=1e-5, atol=1e-5, grad2=True),
    Case("RandomUniform", lambda x: tf.nn.dropout(x, keep_prob=0.5),
         [R.random((40, 30)).astype(np.float32) + 0.5], check=check_dropout, id="dropout",
         grad=False),  # a random mask: checked by running in test_nn.py
    Case("GatherV2", lambda t, i: tf.nn.embedding_lookup(t, i), [TABLE, IDS],
         lambda t, i: t[i], id="embedding_lookup"),
]
