"""tf.losses: per-element formulas, weights, reductions, collections and helpers."""

import numpy as np
import pytest

import staticgraph as tf
from tests.helpers import run

R = tf.losses.Reduction
LABELS = np.array([[0.0, 1.0, 2.0], [1.0, -1.0, 0.5]], np.float32)
PREDS = np.array([[0.5, 1.0, 4.0], [0.0, 1.0, 0.5]], np.float32)
LOGITS = np.array([[1.0, 2.0, 0.5], [-1.0, 0.0, 3.0]], np.float32)


def _weighted_mean(losses, weights):
    """TF1's default SUM_BY_NONZERO_WEIGHTS reduction, by hand."""
    w = np.broadcast_to(np.asarray(weights, np.float64), losses.shape)
    present = (w != 0).sum()
    return (losses * w).sum() / present if present else 0.0


def _log_softmax(z):
    z = z - z.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


@pytest.mark.parametrize("weights", [1.0, 2.0, [[1.0], [0.0]], [[1.0, 0.0, 2.0], [0.5, 1.0, 0.0]]])
def test_regression_losses_default_reduction(weights):
    err = PREDS.astype(np.float64) - LABELS
    ae = np.abs(err)
    huber = np.where(ae <= 1.5, 0.5 * err ** 2, 0.5 * 1.5 ** 2 + 1.5 * (ae - 1.5))
    got = run([tf.losses.mean_squared_error(LABELS, PREDS, weights=weights),
               tf.losses.absolute_difference(LABELS, PREDS, weights=weights),
               tf.losses.huber_loss(LABELS, PREDS, weights=weights, delta=1.5)])
    want = [_weighted_mean(err ** 2, weights), _weighted_mean(ae, weights),
            _weighted_mean(huber, weights)]
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_compute_weighted_loss_reductions():
    losses = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    w = np.array([[2.0], [0.0]], np.float32)
    weighted = losses * w
    cases = {R.NONE: weighted, R.SUM: weighted.sum(), R.MEAN: weighted.sum() / 4.0,
             R.SUM_OVER_BATCH_SIZE: weighted.sum() / 4, R.SUM_BY_NONZERO_WEIGHTS: 6.0 / 2,
             R.SUM_OVER_NONZERO_WEIGHTS: 6.0 / 2}
    for reduction, want in cases.items():
        got = run(tf.losses.compute_weighted_loss(losses, w, reduction=reduction))
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=reduction)
    # All-zero weights: every reduction divides safely to 0.
    for reduction in (R.MEAN, R.SUM_BY_NONZERO_WEIGHTS):
        assert run(tf.losses.compute_weighted_loss(losses, 0.0, reduction=reduction)) == 0.0
    assert R.SUM_BY_NONZERO_WEIGHTS == "weighted_sum_by_nonzero_weights"
    with pytest.raises(ValueError, match="Invalid Reduction Key bogus."):
        tf.losses.compute_weighted_loss(losses, reduction="bogus")


def test_reduction_none_keeps_shape_and_dtype_round_trips():
    out = tf.losses.mean_squared_error(LABELS, PREDS, reduction=R.NONE)
    assert out.shape.as_list() == [2, 3]
    cwl = tf.losses.compute_weighted_loss(np.ones((2, 2), np.float64), 0.5)
    assert cwl.dtype is tf.float64 and run(cwl) == 0.5
    with pytest.raises(ValueError, match="weights can not be broadcast to values"):
        tf.losses.compute_weighted_loss(np.ones((2, 3), np.float32), [[1.0, 2.0]])
    with pytest.raises(ValueError, match="weights can not be broadcast to values"):
        tf.losses.compute_weighted_loss(np.ones((2, 3), np.float32), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="incompatible"):
        tf.losses.mean_squared_error(np.ones((2, 3)), np.ones((3, 2)))


def test_softmax_cross_entropy_with_smoothing_and_weights():
    onehot = np.array([[0, 1, 0], [0, 0, 1]], np.float32)
    logp = _log_softmax(LOGITS.astype(np.float64))
    plain = -(onehot * logp).sum(-1)
    smooth = onehot * 0.8 + 0.2 / 3
    smoothed = -(smooth * logp).sum(-1)
    got = run([tf.losses.softmax_cross_entropy(onehot, LOGITS),
               tf.losses.softmax_cross_entropy(onehot, LOGITS, label_smoothing=0.2),
               tf.losses.softmax_cross_entropy(onehot, LOGITS, weights=[3.0, 0.0])])
    np.testing.assert_allclose(got, [plain.mean(), smoothed.mean(), 3 * plain[0]], rtol=1e-5)


def test_sparse_softmax_cross_entropy_squeezes_labels_and_weights():
    ids = np.array([1, 2], np.int64)
    logp = _log_softmax(LOGITS.astype(np.float64))
    per = -logp[np.arange(2), ids]
    got = run([tf.losses.sparse_softmax_cross_entropy(ids, LOGITS),
               tf.losses.sparse_softmax_cross_entropy(ids[:, None], LOGITS,
                                                      weights=[[2.0], [1.0]])])
    np.testing.assert_allclose(got, [per.mean(), (2 * per[0] + per[1]) / 2], rtol=1e-5)


def test_sigmoid_hinge_log_cosine():
    y = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]], np.float32)
    z = LOGITS.astype(np.float64)
    ys = y * 0.9 + 0.05
    sig = np.maximum(z, 0) - z * ys + np.log1p(np.exp(-np.abs(z)))
    hinge = np.maximum(0, 1 - (2 * y - 1) * z)
    p = np.array([[0.1, 0.8, 0.6], [0.9, 0.3, 0.5]], np.float32)
    logl = -y * np.log(p + 1e-7) - (1 - y) * np.log(1 - p + 1e-7)
    a = np.array([[0.6, 0.8], [1.0, 0.0]], np.float32)
    b = np.array([[0.8, 0.6], [0.0, 1.0]], np.float32)
    cos = 1 - (a * b).sum(1)
    got = run([tf.losses.sigmoid_cross_entropy(y, LOGITS, label_smoothing=0.1),
               tf.losses.hinge_loss(y, LOGITS), tf.losses.log_loss(y, p),
               tf.losses.cosine_distance(a, b, axis=1),
               tf.losses.cosine_distance(a, b, dim=1, reduction=R.NONE)])
    np.testing.assert_allclose(got[:4], [sig.mean(), hinge.mean(), logl.mean(), cos.mean()],
                               rtol=1e-5)
    np.testing.assert_allclose(got[4], cos[:, None], rtol=1e-6)
    with pytest.raises(ValueError, match="You must specify 'axis'."):
        tf.losses.cosine_distance(a, b)
    with pytest.raises(ValueError, match="labels must not be None"):
        tf.losses.mean_squared_error(None, p)


def test_collections_names_and_totals():
    mse = tf.losses.mean_squared_error(LABELS, PREDS)
    assert mse.name == "mean_squared_error/value:0"
    hidden = tf.losses.absolute_difference(LABELS, PREDS, loss_collection=None)
    assert hidden not in tf.losses.get_losses()
    with tf.name_scope("tower"):
        tl = tf.losses.huber_loss(LABELS, PREDS, scope="h")
    assert tl.name.startswith("tower/h/")
    assert tf.losses.get_losses() == [mse, tl]
    assert tf.losses.get_losses(scope="tower") == [tl]
    assert run(tf.losses.get_regularization_loss()) == 0.0
    tf.add_to_collection(tf.GraphKeys.REGULARIZATION_LOSSES, tf.constant(0.25))
    tf.add_to_collection(tf.GraphKeys.REGULARIZATION_LOSSES, tf.constant(0.5))
    reg = tf.losses.get_regularization_loss()
    assert reg.name == "total_regularization_loss:0" and run(reg) == 0.75
    total, no_reg = tf.losses.get_total_loss(), tf.losses.get_total_loss(False, name="t2")
    assert total.name == "total_loss:0"
    m, t = run([mse, tl])
    np.testing.assert_allclose(run([total, no_reg]), [m + t + 0.75, m + t], rtol=1e-6)
    tf.losses.add_loss(tf.constant(1.0, name="extra"))
    assert tf.losses.get_losses()[-1].name == "extra:0"


def test_total_loss_without_losses_raises():
    with pytest.raises(ValueError):
        tf.losses.get_total_loss()
