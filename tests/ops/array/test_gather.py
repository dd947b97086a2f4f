"""TF1 behaviour of gather, gather_nd and one_hot beyond the generic cases: errors,
default axes, static shapes, dtypes and names."""

import numpy as np
import pytest

import staticgraph as tf
from ...helpers import run, shape


# ------------------------------------------------------------------- gather
def test_gather_out_of_range_names_the_index_at_run_time():
    p = tf.placeholder(tf.float32, [5, 2])
    i = tf.placeholder(tf.int32, [None])
    y = tf.gather(p, i)
    assert y.op.type == "GatherV2" and y.op.name == "GatherV2"
    assert shape(y) == (None, 2)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"indices\[1\] = 7 is not in \[0, 5\)"):
        run(y, {p: np.zeros((5, 2), np.float32), i: [0, 7, 1]})
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[0\] = -1 is not in"):
        run(y, {p: np.zeros((5, 2), np.float32), i: [-1]})


def test_gather_axis_defaults_to_batch_dims():
    p = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    idx = np.array([[2, 0], [1, 1]], np.int32)
    y = tf.gather(p, idx, batch_dims=1)
    assert shape(y) == (2, 2, 4)
    want = np.stack([p[0][[2, 0]], p[1][[1, 1]]])
    np.testing.assert_array_equal(run(y), want)
    with pytest.raises(ValueError, match="batch_dims"):
        tf.gather(p, idx, axis=0, batch_dims=1)
    with pytest.raises(ValueError, match="axis"):
        tf.gather(p, idx, axis=3)


def test_gather_static_shape_with_unknown_axis():
    p = tf.placeholder(tf.float32, [2, 3])
    a = tf.placeholder(tf.int32, [])
    assert shape(tf.gather(p, [[0]], axis=a)) == (None, None, None)


def test_gather_nd_errors():
    p = tf.placeholder(tf.float32, [3, 5])
    i = tf.placeholder(tf.int32, [None, 2])
    y = tf.gather_nd(p, i)
    assert y.op.name == "GatherNd" and shape(y) == (None,)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"indices\[1\] = \[1, 7\] does not index into param shape \[3,5\]"):
        run(y, {p: np.zeros((3, 5), np.float32), i: [[0, 0], [1, 7]]})
    with pytest.raises(ValueError, match="must be <= params.rank"):
        tf.gather_nd(p, tf.placeholder(tf.int32, [4, 3]))


# ------------------------------------------------------------------ one_hot
def test_one_hot_dtypes_and_name():
    i = tf.constant([0, 2])
    y = tf.one_hot(i, 3)
    assert y.dtype == tf.float32 and y.op.name == "one_hot" and y.op.type == "OneHot"
    assert tf.one_hot(i, 3, on_value=5).dtype == tf.int32
    assert tf.one_hot(i, 3, off_value=0.5).dtype == tf.float32
    assert tf.one_hot(i, 3, on_value=2.0, dtype=tf.float64).dtype == tf.float64
    assert tf.one_hot(i, 3, dtype=tf.int64).dtype == tf.int64
    with pytest.raises(TypeError, match="does not match"):
        tf.one_hot(i, 3, on_value=1.0, off_value=0)
    with pytest.raises(TypeError, match="does not match dtype parameter"):
        tf.one_hot(i, 3, on_value=tf.constant(1.0), dtype=tf.int32)
    assert run(tf.one_hot(i, 3, on_value=5)).tolist() == [[5, 0, 0], [0, 0, 5]]


def test_one_hot_static_shape_and_out_of_range_rows():
    i = tf.placeholder(tf.int64, [None, 2])
    assert shape(tf.one_hot(i, 4)) == (None, 2, 4)
    assert shape(tf.one_hot(i, 4, axis=1)) == (None, 4, 2)
    assert shape(tf.one_hot(i, tf.placeholder(tf.int32, []))) == (None, 2, None)
    got = run(tf.one_hot(i, 3), {i: [[-1, 3], [1, 2]]})
    assert got.tolist() == [[[0, 0, 0], [0, 0, 0]], [[0, 1, 0], [0, 0, 1]]]


# ------------------------------------------------------------- gradients
def grads_unknown(build, inputs, wrt=(0,), known_rank=True, extra=None, seed=0):
    """``d sum(w * build(...)) / d inputs[wrt]`` declared on placeholders of unknown
    dimensions (or rank), so gradient rules take their dynamic-shape paths.

    Returns the gradients and the random weights ``w`` (for hand-written references).
    """
    phs = [tf.placeholder(tf.as_dtype(v.dtype), [None] * v.ndim if known_rank else None)
           for v in inputs]
    y = build(*phs)
    feed = dict(zip(phs, inputs))
    feed.update(extra or {})
    with tf.Session() as sess:
        w = np.random.default_rng(seed).standard_normal(sess.run(y, feed).shape)
    wp = tf.placeholder(y.dtype, None)
    grads = tf.gradients(tf.reduce_sum(y * wp), [phs[i] for i in wrt])
    assert all(g is not None for g in grads)
    feed[wp] = w.astype(y.dtype.np_dtype)
    with tf.Session() as sess:
        return sess.run(grads, feed), w


P = np.arange(24, dtype=np.float64).reshape(2, 3, 4)


def test_gather_gradient_is_a_dense_scatter_add_of_duplicates():
    params = tf.placeholder(tf.float32, [5, 2])
    ids = tf.constant([[1, 3, 1], [1, 0, 0]])
    (g,) = tf.gradients(tf.reduce_sum(tf.gather(params, ids)), [params])
    assert g.op.type == "UnsortedSegmentSum" and shape(g) == (5, 2)
    got = run(g, {params: np.zeros((5, 2), np.float32)})
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got[:, 0], [2, 3, 0, 1, 0])
    np.testing.assert_array_equal(got[:, 1], got[:, 0])


@pytest.mark.parametrize("known_rank", [True, False])
def test_gather_gradient_with_unknown_shapes(known_rank):
    ids = np.array([[2, 0], [2, 2]], np.int32)
    (g,), w = grads_unknown(lambda p, i: tf.gather(p, i, axis=2), [P, ids],
                            known_rank=known_rank)
    want = np.zeros_like(P)
    for j in np.ndindex(ids.shape):  # w is [2, 3] + ids.shape
        want[:, :, ids[j]] += w[(slice(None), slice(None)) + j]
    np.testing.assert_allclose(g, want)


def test_gather_gradient_with_batch_dims_and_unknown_shapes():
    ids = np.array([[0, 2, 2], [1, 1, 0]], np.int64)
    (g,), w = grads_unknown(lambda p, i: tf.gather(p, i, axis=1, batch_dims=-1), [P, ids])
    want = np.zeros_like(P)
    for b in range(2):
        for j in range(3):
            want[b, ids[b, j]] += w[b, j]
    np.testing.assert_allclose(g, want)


def test_gather_gradient_with_axis_known_only_at_run_time():
    ids = np.array([2, 0, 2], np.int32)
    a = tf.placeholder(tf.int32, [])
    for axis in (1, -1):
        (g,), w = grads_unknown(lambda p, i: tf.gather(p, i, axis=a), [P, ids],
                                extra={a: axis})
        want = np.zeros_like(P)
        for j in range(3):
            if axis == 1:
                want[:, ids[j]] += w[:, j]
            else:
                want[:, :, ids[j]] += w[:, :, j]
        np.testing.assert_allclose(g, want)


def test_gather_nd_gradient_with_batch_dims_and_unknown_shapes():
    ids = np.array([[[2, 1], [0, 3], [2, 1]], [[1, 1], [1, 0], [0, 0]]], np.int32)
    (g,), w = grads_unknown(lambda p, i: tf.gather_nd(p, i, batch_dims=1), [P, ids])
    want = np.zeros_like(P)
    for b in range(2):
        for j in range(3):
            want[(b,) + tuple(ids[b, j])] += w[b, j]
    np.testing.assert_allclose(g, want)
    ids = np.array([[1, 2], [0, 1], [1, 2]], np.int32)
    (g,), w = grads_unknown(lambda p, i: tf.gather_nd(p, i), [P, ids], known_rank=False)
    want = np.zeros_like(P)
    for j in range(3):
        want[tuple(ids[j])] += w[j]
    np.testing.assert_allclose(g, want)


def test_one_hot_gives_no_gradient_like_tf1():
    on = tf.placeholder(tf.float32, [])
    y = tf.one_hot([0, 2], 3, on_value=on, off_value=0.0)
    assert tf.gradients(tf.reduce_sum(y), [on]) == [None]
