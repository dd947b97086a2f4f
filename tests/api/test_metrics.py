"""tf.metrics: (value, update_op) pairs streaming over local variables, and their reset."""

import numpy as np
import pytest

import staticgraph as tf


@pytest.fixture
def feeds():
    return tf.placeholder(tf.int64, [None], name="y"), tf.placeholder(tf.int64, [None], name="p")


def test_accuracy_streams_over_updates_and_resets(feeds):
    y, p = feeds
    acc, update = tf.metrics.accuracy(y, p)
    assert (acc.name, update.name) == ("accuracy/value:0", "accuracy/update_op:0")
    local = tf.local_variables()
    assert [v.name for v in local] == ["accuracy/total:0", "accuracy/count:0"]
    assert tf.get_collection("metric_variables") == local
    assert tf.trainable_variables() == [] and tf.global_variables() == []
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run(acc) == 0.0   # no data yet: 0, not nan
        np.testing.assert_allclose(sess.run(update, {y: [1, 0, 1], p: [1, 1, 1]}), 2 / 3,
                                   rtol=1e-6)
        np.testing.assert_allclose(sess.run(update, {y: [0, 2], p: [0, 2]}), 4 / 5, rtol=1e-6)
        np.testing.assert_allclose(sess.run(acc), 0.8, rtol=1e-6)
        sess.run(tf.local_variables_initializer())
        assert sess.run(acc) == 0.0
        np.testing.assert_allclose(sess.run(update, {y: [3], p: [4]}), 0.0)


def test_accuracy_weights_casts_and_squeeze():
    labels = tf.constant([[1], [2], [3], [4]], tf.int32)          # [4, 1] is squeezed
    preds = tf.constant([1, 2, 0, 0], tf.int64)                    # cast to the labels' dtype
    weights = tf.constant([1.0, 3.0, 0.0, 2.0])
    acc, update = tf.metrics.accuracy(labels, preds, weights=weights, name="wacc")
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run(update)
        np.testing.assert_allclose(sess.run([acc, update]), [4 / 6, 8 / 12], rtol=1e-6)


def test_mean_and_errors_streaming():
    x = tf.placeholder(tf.float32, [None])
    t = tf.placeholder(tf.float32, [None])
    w = tf.placeholder(tf.float32, [None, 1])
    mean, mean_up = tf.metrics.mean(x)
    wmean, wmean_up = tf.metrics.mean(x, weights=w)
    mse, mse_up = tf.metrics.mean_squared_error(t, x)
    mae, mae_up = tf.metrics.mean_absolute_error(t, x)
    rmse, rmse_up = tf.metrics.root_mean_squared_error(t, x)
    assert mean.name == "mean/value:0" and wmean.name == "mean_1/value:0"
    batches = [([1.0, 2.0, 3.0], [1.0, 1.0, 1.0], [[1.0], [0.0], [2.0]]),
               ([5.0], [3.0], [[1.0]])]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        for xv, tv, wv in batches:
            sess.run([mean_up, wmean_up, mse_up, mae_up, rmse_up], {x: xv, t: tv, w: wv})
        got = sess.run([mean, wmean, mse, mae, rmse])
    xs = np.array([1, 2, 3, 5.0])
    ts = np.array([1, 1, 1, 3.0])
    ws = np.array([1, 0, 2, 1.0])
    want = [xs.mean(), (xs * ws).sum() / ws.sum(), ((xs - ts) ** 2).mean(),
            np.abs(xs - ts).mean(), np.sqrt(((xs - ts) ** 2).mean())]
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_precision_recall_and_counts():
    y = tf.placeholder(tf.bool, [None])
    p = tf.placeholder(tf.bool, [None])
    prec, prec_up = tf.metrics.precision(y, p)
    rec, rec_up = tf.metrics.recall(y, p)
    tp, tp_up = tf.metrics.true_positives(y, p)
    fn, fn_up = tf.metrics.false_negatives(y, p)
    tn, tn_up = tf.metrics.true_negatives(y, p, weights=[1.0, 2.0, 3.0, 4.0])
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run([prec, rec]) == [0.0, 0.0]   # undefined ratios are 0
        feed = {y: [True, False, True, False], p: [True, True, False, False]}
        sess.run([prec_up, rec_up, tp_up, fn_up, tn_up], feed)
        feed = {y: [True, True, False, False], p: [True, True, True, False]}
        sess.run([prec_up, rec_up, tp_up, fn_up, tn_up], feed)
        got = sess.run([prec, rec, tp, fn, tn])
    # totals: tp = 3, fp = 2, fn = 1, weighted tn = 4 + 4
    np.testing.assert_allclose(got, [3 / 5, 3 / 4, 3, 1, 8], rtol=1e-6)


def test_collections_arguments():
    x = tf.constant([1.0, 3.0])
    value, update = tf.metrics.mean(x, metrics_collections=["m"], updates_collections=["u"])
    assert tf.get_collection("m") == [value] and tf.get_collection("u") == [update]
    a1 = tf.metrics.accuracy([1], [1])
    a2 = tf.metrics.accuracy([1], [0])
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run([update, a1[1], a2[1]])
        assert sess.run([value, a1[0], a2[0]]) == [2.0, 1.0, 0.0]
    assert len(tf.local_variables()) == 6
