"""TF1 behaviour of ``tf.unsorted_segment_sum`` and ``tf.scatter_nd`` beyond the per-op
cases: errors, negative ids, gradients, speed on embedding gradients."""

import numpy as np
import pytest

import staticgraph as tf
from ...helpers import run, shape
from .test_gather import grads_unknown


# ------------------------------------------------ unsorted_segment_sum / scatter_nd
def test_unsorted_segment_sum_tf1_behaviour():
    y = tf.unsorted_segment_sum([[1., 2.], [3., 4.], [5., 6.]], [2, -1, 2], 4)
    assert y.op.type == "UnsortedSegmentSum" and y.op.name == "UnsortedSegmentSum"
    assert shape(y) == (4, 2) and y.dtype == tf.float32
    assert run(y).tolist() == [[0, 0], [0, 0], [6, 8], [0, 0]]
    ids = tf.placeholder(tf.int32, [None])
    z = tf.unsorted_segment_sum(tf.constant([1, 2, 3]), ids, tf.placeholder(tf.int32, []))
    assert shape(z) == (None,) and z.dtype == tf.int32
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"segment_ids\[1\] = 5 is out of range \[0, 3\)"):
        run(tf.unsorted_segment_sum([1., 2.], ids, 3), {ids: [0, 5]})
    with pytest.raises(ValueError, match="does not start with segment_ids.shape"):
        tf.unsorted_segment_sum(tf.zeros([3, 2]), tf.zeros([2], tf.int32), 4)
    with pytest.raises(ValueError, match="rank 0"):
        tf.unsorted_segment_sum([1., 2.], [0, 1], [2])


def test_unsorted_segment_sum_gradient_drops_negative_ids():
    ids = np.array([1, -1, 0, 1], np.int32)
    data = np.ones((4, 2))
    (g,), w = grads_unknown(lambda d, i: tf.unsorted_segment_sum(d, i, 3), [data, ids])
    want = w[np.maximum(ids, 0)] * (ids >= 0)[:, None]
    np.testing.assert_allclose(g, want)


def test_unsorted_segment_sum_is_fast_for_embedding_gradients():
    import time
    rng = np.random.default_rng(0)
    data = rng.standard_normal((128 * 20, 128)).astype(np.float32)
    ids = rng.integers(0, 10000, 128 * 20).astype(np.int32)
    y = tf.unsorted_segment_sum(data, ids, 10000)
    want = np.zeros((10000, 128), np.float64)
    np.add.at(want, ids, data.astype(np.float64))
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(y), want, rtol=1e-5, atol=1e-5)
        start = time.perf_counter()
        for _ in range(5):
            sess.run(y)
        assert (time.perf_counter() - start) / 5 < 0.05


def test_scatter_nd_tf1_behaviour():
    y = tf.scatter_nd([[4], [3], [1], [7], [4]], [9., 10., 11., 12., 1.], [8])
    assert y.op.type == "ScatterNd" and y.op.name == "ScatterNd" and shape(y) == (8,)
    assert run(y).tolist() == [0, 11, 0, 10, 10, 0, 0, 12]
    rows = tf.scatter_nd([[0], [2]], [[5, 5], [6, 6]], tf.constant([4, 2]))
    assert rows.dtype == tf.int32 and run(rows).tolist() == [[5, 5], [0, 0], [6, 6], [0, 0]]
    i = tf.placeholder(tf.int32, [None, 2])
    z = tf.scatter_nd(i, tf.placeholder(tf.float32, [None]), [3, 3])
    assert shape(z) == (3, 3)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"indices\[1\] = \[2, 3\] does not index into shape \[3,3\]"):
        run(z, {i: [[0, 0], [2, 3]], z.op.inputs[1]: [1., 2.]})
    with pytest.raises(ValueError, match="inner 1 dimensions of output.shape"):
        tf.scatter_nd([[0], [1]], tf.zeros([2, 3]), [4, 2])
    with pytest.raises(TypeError):
        tf.scatter_nd([[0]], [1.], tf.constant([2], tf.int64))


def test_scatter_nd_gradient_is_gather_nd():
    ids = np.array([[0, 1], [1, 2], [0, 1]], np.int64)
    (g,), w = grads_unknown(lambda i, u: tf.scatter_nd(i, u, tf.constant([2, 3], tf.int64)),
                            [ids, np.ones(3)], wrt=(1,))
    np.testing.assert_allclose(g, [w[0, 1], w[1, 2], w[0, 1]])
