"""Cases for the fused softmax cross-entropies: SoftmaxCrossEntropyWithLogits,
SparseSoftmaxCrossEntropyWithLogits (data from ``nn_loss_cases``)."""

import numpy as np

import staticgraph as tf
from staticgraph.ops import apply_op

from . import Case
from .nn_loss_cases import LOGITS, LOGITS3, LOGITS16, PROBS, PROBS3, SPARSE3

BIG = np.array([[1000.0, -1000.0, 0.0], [50.0, 51.0, 52.0]], np.float32)
BIG_LABELS = np.array([[0.0, 1.0, 0.0], [0.2, 0.3, 0.5]], np.float32)
SPARSE = np.array([4, 0, 2, 2], np.int64)


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
    # logits with one class broadcast against the labels' five before the softmax
    Case("SoftmaxCrossEntropyWithLogits",
         lambda x, y: apply_op("SoftmaxCrossEntropyWithLogits", [x, y]), [LOGITS[:, :1], PROBS],
         lambda x, y: ref_xent(np.broadcast_to(x, y.shape), y), id="broadcast_classes",
         grad=False),  # the backprop output's gradient takes softmax of the unbroadcast logits
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
]
