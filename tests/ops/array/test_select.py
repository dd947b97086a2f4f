"""TF1 behaviour of boolean_mask, top_k, sequence_mask and unique beyond the generic
cases: names, static shapes, tie-breaking and first-occurrence order."""

import time

import numpy as np
import pytest

import staticgraph as tf
from ...helpers import run, shape


# ------------------------------------------------------------- boolean_mask
def test_boolean_mask_shapes_and_name():
    x = tf.placeholder(tf.float32, [None, 3, 2])
    m = tf.placeholder(tf.bool, [None])
    y = tf.boolean_mask(x, m)
    assert y.op.name == "boolean_mask" and shape(y) == (None, 3, 2)
    assert shape(tf.boolean_mask(x, tf.placeholder(tf.bool, [3, 2]), axis=1)) == (None, None)
    c = tf.boolean_mask(tf.constant([[1, 2], [3, 4], [5, 6]]), [True, False, True])
    assert shape(c) == (2, 2)
    assert run(c).tolist() == [[1, 2], [5, 6]]
    with pytest.raises(ValueError, match="scalar"):
        tf.boolean_mask(x, True)
    with pytest.raises(ValueError, match="incompatible"):
        tf.boolean_mask(x, tf.placeholder(tf.bool, [None, 4]))


# -------------------------------------------------------------------- top_k
def test_top_k_ties_lower_index_first_and_outputs():
    x = tf.constant([1.0, 3.0, 3.0, 2.0, 3.0])
    out = tf.top_k(x, k=2)
    assert out.values.op.type == "TopKV2" and out.values.op.name == "TopKV2"
    assert out.indices.dtype == tf.int32
    values, indices = run(out)
    assert values.tolist() == [3.0, 3.0] and indices.tolist() == [1, 2]
    assert run(tf.top_k([[5, 5, 5, 5]], 3).indices).tolist() == [[0, 1, 2]]


def test_top_k_errors_and_static_shape():
    x = tf.placeholder(tf.float32, [None, 4])
    assert shape(tf.top_k(x, 3).values) == (None, 3)
    assert shape(tf.top_k(x, tf.placeholder(tf.int32, [])).indices) == (None, None)
    with pytest.raises(ValueError, match="k = 5"):
        tf.top_k(x, 5)
    with pytest.raises(ValueError, match="k >= 0"):
        tf.top_k(x, -1)
    k = tf.placeholder(tf.int32, [])
    with pytest.raises(tf.errors.InvalidArgumentError, match="at least k columns"):
        run(tf.top_k(x, k), {x: np.zeros((1, 4), np.float32), k: 6})


def test_top_k_matches_stable_sort_on_large_input_and_is_fast():
    rng = np.random.default_rng(3)
    v = rng.integers(0, 50, (200, 5000)).astype(np.float32)  # many ties
    x = tf.placeholder(tf.float32, [None, None])
    out = tf.top_k(x, 7)
    with tf.Session() as sess:
        sess.run(out, {x: v})
        start = time.perf_counter()
        values, indices = sess.run(out, {x: v})
        elapsed = time.perf_counter() - start
    want = np.argsort(-v, axis=1, kind="stable")[:, :7]
    np.testing.assert_array_equal(indices, want)
    np.testing.assert_array_equal(values, np.take_along_axis(v, want, 1))
    assert elapsed < 0.5, elapsed


def test_top_k_is_exported_under_nn():
    assert tf.nn.top_k is tf.top_k


# ------------------------------------------------------ sequence_mask/unique
def test_sequence_mask_static_shape_and_values():
    n = tf.placeholder(tf.int32, [3])
    assert shape(tf.sequence_mask(n)) == (3, None)
    assert shape(tf.sequence_mask(n, 4)) == (3, 4)
    assert shape(tf.sequence_mask([1, 4])) == (2, 4)
    got = run(tf.sequence_mask(n, 3, dtype=tf.int32), {n: [0, 1, 3]})
    assert got.dtype == np.int32 and got.tolist() == [[0, 0, 0], [1, 0, 0], [1, 1, 1]]
    with pytest.raises(ValueError, match="scalar"):
        tf.sequence_mask(n, [3, 4])


def test_unique_first_occurrence_order_not_sorted():
    y, idx = tf.unique(tf.constant([1, 1, 2, 4, 4, 4, 7, 8, 8]))
    assert y.op.type == "Unique" and y.op.name == "Unique" and idx.dtype == tf.int32
    out = run(tf.unique(tf.constant([9, 3, 9, 1, 3])))
    assert out.y.tolist() == [9, 3, 1] and out.idx.tolist() == [0, 1, 0, 2, 1]
    got_y, got_idx = run([y, idx])
    assert got_y.tolist() == [1, 2, 4, 7, 8]
    assert got_idx.tolist() == [0, 0, 1, 2, 2, 2, 3, 4, 4]
    with pytest.raises(ValueError, match="1D"):
        tf.unique(tf.constant([[1, 2]]))


def test_top_k_on_empty_inputs():
    x = tf.placeholder(tf.float32, [None, None])
    values, indices = run(tf.top_k(x, 2), {x: np.zeros((0, 5), np.float32)})
    assert values.shape == (0, 2) and indices.shape == (0, 2) and indices.dtype == np.int32


# ------------------------------------------------------------- gradients
@pytest.mark.parametrize("axis", [1, -2])
@pytest.mark.parametrize("known_rank", [True, False])
def test_boolean_mask_gradient_with_unknown_shapes(known_rank, axis):
    from .test_gather import grads_unknown
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    m = np.array([[True, False, True, True], [False, False, False, True],
                  [True, True, False, False]])
    (g,), w = grads_unknown(lambda v, k: tf.boolean_mask(v, k, axis=axis), [x, m],
                            known_rank=known_rank)
    want = np.zeros_like(x)
    want[:, m] = w
    np.testing.assert_allclose(g, want)


@pytest.mark.parametrize("known_rank", [True, False])
def test_top_k_gradient_with_unknown_shapes(known_rank):
    from .test_gather import grads_unknown
    x = np.array([[[3., 1., 4., 1.5], [9., 2., 6., 5.]]])
    (g,), w = grads_unknown(lambda v: tf.nn.top_k(v, 2).values, [x], known_rank=known_rank)
    want = np.zeros_like(x)
    want[0, 0, [2, 0]] = w[0, 0]
    want[0, 1, [0, 2]] = w[0, 1]
    np.testing.assert_allclose(g, want)


def test_unique_has_no_gradient_like_tf1():
    x = tf.placeholder(tf.float32, [4])
    y, _ = tf.unique(x)
    with pytest.raises(LookupError, match="Unique"):
        tf.gradients(tf.reduce_sum(y), [x])
