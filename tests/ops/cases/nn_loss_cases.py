"""Cases for the losses: SoftmaxCrossEntropyWithLogits, SparseSoftmaxCrossEntropyWithLogits,
L2Loss, InTopKV2."""

import numpy as np

import staticgraph as tf
from staticgraph.ops import apply_op

from . import Case, rng

R = rng(11)
LOGITS = R.standard_normal((4, 5)).astype(np.float32) * 3
P = R.random((4, 5)).astype(np.float32)
PROBS = P / P.sum(axis=1, keepdims=True)
LOGITS3 = R.standard_normal((2, 3, 4)) * 2
P3 = R.random((2, 3, 4))
PROBS3 = P3 / P3.sum(axis=-1, keepdims=True)
BIG = np.array([[1000.0, -1000.0, 0.0], [50.0, 51.0, 52.0]], np.float32)
BIG_LABELS = np.array([[0.0, 1.0, 0.0], [0.2, 0.3, 0.5]], np.float32)
SPARSE = np.array([4, 0, 2, 2], np.int64)
SPARSE3 = R.integers(0, 4, (2, 3)).astype(np.int32)
LOGITS16 = R.standard_normal((3, 4)).astype(np.float16)


def ref_log_softmax(x):
    x = x.astype(np.float64)
    m = x.max(axis=-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


def ref_xent(logits, labels):
    loss = -(labels.astype(np.float64) * ref_log_softmax(logits)).sum(axis=-1)
    backprop = np.exp(ref_log_softmax(logits)) - labels
    return [loss.astype(logits.dtype), backprop.astype(logits.dtype)]


def ref_sparse(logits, labels):
    n = logits.shape[-1]
    onehot = (labels[..., None] == np.arange(n)).astype(np.float64)
    return ref_xent(logits, onehot.astype(logits.dtype))


def both(loss):
    """The loss and the op's second output (the backprop)."""
    return [loss, loss.op.outputs[1]]


def xent_v2(labels, logits):
    return both(tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits))


def sparse(labels, logits):
    return both(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))


def xent_loss(labels, logits):
    return tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)


def sparse_loss(labels, logits):
    return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)


def in_top_k_ref(pred, targets, k):
    out = []
    for row, t in zip(pred, targets):
        if not 0 <= t < len(row) or not np.all(np.isfinite(row)):
            out.append(False)
        else:
            out.append(sum(v > row[t] for v in row) < k)
    return np.array(out, bool)


PRED = np.array([[0.1, 0.3, 0.3, 0.2, 0.1],
                 [0.5, 0.1, 0.1, 0.1, 0.2],
                 [0.2, 0.2, 0.2, 0.2, 0.2],
                 [0.0, np.nan, 0.9, 0.1, 0.0],
                 [0.0, 0.1, 0.9, 0.1, 0.0],
                 [0.4, np.inf, 0.9, 0.1, 0.0]], np.float32)
TARGETS = np.array([2, 4, 3, 2, 7, 2], np.int32)

CASES = [
    # SoftmaxCrossEntropyWithLogits (labels first, like the keyword order in TF1)
    Case("SoftmaxCrossEntropyWithLogits", xent_v2, [PROBS, LOGITS],
         lambda y, x: ref_xent(x, y),
         bad=[[(4, 5), (4, 6)], [(), ()]], bad_dtypes=[[np.int32, np.int32]], grad2=True),
    Case("SoftmaxCrossEntropyWithLogits", xent_v2, [PROBS3, LOGITS3],
         lambda y, x: ref_xent(x, y), id="rank3_float64", rtol=1e-12),
    # only the loss: the hot path (no gradient arrives at the backprop output)
    Case("SoftmaxCrossEntropyWithLogits", xent_loss, [PROBS3, LOGITS3],
         lambda y, x: ref_xent(x, y)[0], id="loss_only", grad2=True),
    Case("SoftmaxCrossEntropyWithLogits", xent_v2, [PROBS[0], LOGITS[0]],
         lambda y, x: ref_xent(x, y), id="vector"),
    Case("SoftmaxCrossEntropyWithLogits", xent_v2, [BIG_LABELS, BIG],
         lambda y, x: ref_xent(x, y), id="large", rtol=1e-5, atol=1e-4),
    Case("SoftmaxCrossEntropyWithLogits",
         lambda x, y: apply_op("SoftmaxCrossEntropyWithLogits", [x, y]), [LOGITS, PROBS[:1]],
         lambda x, y: ref_xent(x, np.broadcast_to(y, x.shape)), id="broadcast", grad2=True),
    Case("SoftmaxCrossEntropyWithLogits",
         lambda x, y: apply_op("SoftmaxCrossEntropyWithLogits", [x, y])[0],
         [LOGITS[:1, :3], PROBS[:, :3] / PROBS[:, :3].sum(axis=1, keepdims=True)],
         lambda x, y: ref_xent(np.broadcast_to(x, y.shape), y)[0], id="broadcast_logits"),
    Case("SoftmaxCrossEntropyWithLogits", xent_v2,
         [np.zeros((0, 5), np.float32), np.zeros((0, 5), np.float32)],
         lambda y, x: [np.zeros((0,), np.float32), np.zeros((0, 5), np.float32)], id="empty"),
    Case("SoftmaxCrossEntropyWithLogits", xent_v2,
         [np.full((3, 4), 0.25, np.float16), LOGITS16], lambda y, x: ref_xent(x, y),
         id="float16", rtol=3e-3, atol=3e-3),
    # SparseSoftmaxCrossEntropyWithLogits
    Case("SparseSoftmaxCrossEntropyWithLogits", sparse, [SPARSE, LOGITS],
         lambda y, x: ref_sparse(x, y),
         bad=[[(3,), (4, 5)], [(4, 1), (4, 5)], [(), ()]],
         bad_dtypes=[[np.float32, np.float32], [np.int64, np.int32]], grad2=True),
    Case("SparseSoftmaxCrossEntropyWithLogits", sparse_loss, [SPARSE3, LOGITS3],
         lambda y, x: ref_sparse(x, y)[0], id="loss_only", grad2=True),
    Case("SparseSoftmaxCrossEntropyWithLogits", sparse, [SPARSE.astype(np.int32), LOGITS],
         lambda y, x: ref_sparse(x, y), id="int32"),
    Case("SparseSoftmaxCrossEntropyWithLogits", sparse, [SPARSE3, LOGITS3],
         lambda y, x: ref_sparse(x, y), id="rank3_float64", rtol=1e-12),
    Case("SparseSoftmaxCrossEntropyWithLogits", sparse, [np.array(3, np.int64), LOGITS[1]],
         lambda y, x: ref_sparse(x, y), id="vector"),
    Case("SparseSoftmaxCrossEntropyWithLogits", sparse, [np.array([0, 2], np.int32), BIG],
         lambda y, x: ref_sparse(x, y), id="large", rtol=1e-5, atol=1e-4),
    Case("SparseSoftmaxCrossEntropyWithLogits", sparse,
         [np.zeros((0,), np.int64), np.zeros((0, 5), np.float32)],
         lambda y, x: [np.zeros((0,), np.float32), np.zeros((0, 5), np.float32)], id="empty"),
    Case("SparseSoftmaxCrossEntropyWithLogits", sparse,
         [np.array([0, 3, 1], np.int32), LOGITS16], lambda y, x: ref_sparse(x, y),
         id="float16", rtol=3e-3, atol=3e-3),
    # L2Loss
    Case("L2Loss", lambda t: tf.nn.l2_loss(t), [LOGITS],
         lambda t: np.float32(sum(float(v) ** 2 for v in t.ravel()) / 2),
         bad_dtypes=[[np.int32]]),
    Case("L2Loss", lambda t: tf.nn.l2_loss(t), [LOGITS3],
         lambda t: np.float64(sum(v ** 2 for v in t.ravel()) / 2), id="float64", rtol=1e-12,
         grad2=True),
    Case("L2Loss", lambda t: tf.nn.l2_loss(t), [np.array(3.0, np.float32)],
         lambda t: np.float32(4.5), id="scalar"),
    Case("L2Loss", lambda t: tf.nn.l2_loss(t), [np.zeros((0, 3), np.float32)],
         lambda t: np.float32(0.0), id="empty"),
    # sigmoid_cross_entropy_with_logits is a composite; run it through the generic checks
    Case("Log1p", lambda z, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
         [PROBS, LOGITS * 20],
         lambda z, x: (np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x.astype(np.float64)))))
         .astype(np.float32), id="sigmoid_xent", grad2=True),
    Case("Log1p", lambda z, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
         [PROBS3, LOGITS3],
         lambda z, x: np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x))),
         id="sigmoid_xent_float64", grad2=True),
    # InTopKV2
    Case("InTopKV2", lambda p, t: tf.nn.in_top_k(p, t, 2), [PRED, TARGETS],
         lambda p, t: in_top_k_ref(p, t, 2),
         bad=[[(6, 5), (5,)], [(6,), (6,)], [(6, 5), (6, 1)]],
         bad_dtypes=[[np.float64, np.int32], [np.float32, np.float32]]),
    Case("InTopKV2", lambda p, t: tf.nn.in_top_k(p, t, 1), [PRED, TARGETS.astype(np.int64)],
         lambda p, t: in_top_k_ref(p, t, 1), id="k1_int64"),
    Case("InTopKV2", lambda p, t, k: tf.nn.in_top_k(p, t, k),
         [PRED, TARGETS, np.array(4, np.int32)], lambda p, t, k: in_top_k_ref(p, t, 4),
         bad=[[(6, 5), (6,), (1,)]], id="k_tensor"),
    Case("InTopKV2", lambda p, t: tf.nn.in_top_k(p, t, 0), [PRED, TARGETS],
         lambda p, t: np.zeros(6, bool), id="k0"),
]
