"""TF1 behaviour of gather, gather_nd and one_hot beyond the generic cases: errors,
default axes, static shapes, dtypes and names."""

import numpy as np
import pytest

import staticgraph as tf
from ..helpers import run, shape


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
