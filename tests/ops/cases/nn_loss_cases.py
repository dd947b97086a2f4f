"""Cases for the losses: L2Loss, InTopKV2 (and the composite sigmoid cross-entropy).
The fused softmax cross-entropies are in ``nn_softmax_cross_entropy_cases`` (which uses
this module's data)."""

import numpy as np

import staticgraph as tf

from . import Case, rng

R = rng(11)
LOGITS = R.standard_normal((4, 5)).astype(np.float32) * 3
P = R.random((4, 5)).astype(np.float32)
PROBS = P / P.sum(axis=1, keepdims=True)
LOGITS3 = R.standard_normal((2, 3, 4)) * 2
P3 = R.random((2, 3, 4))
PROBS3 = P3 / P3.sum(axis=-1, keepdims=True)
SPARSE3 = R.integers(0, 4, (2, 3)).astype(np.int32)
LOGITS16 = R.standard_normal((3, 4)).astype(np.float16)


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
    Case("L2Loss", lambda t: tf.nn.l2_loss(t), [LOGITS16],
         lambda t: np.float16((t.astype(np.float32) ** 2).sum() / 2), id="float16", rtol=1e-3,
         atol=1e-3),
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
