"""Cases for the scatter-adds UnsortedSegmentSum and ScatterNd (the gradients of the
gathers). References are loops over the ids / index tuples."""

import numpy as np

import staticgraph as tf

from . import Case
from .array_slice_cases import I234, P234


def _segment_sum(data, ids, n):
    """Reference unsorted segment sum: a loop over the ids (negative ones dropped)."""
    out = np.zeros((n,) + data.shape[ids.ndim:], data.dtype)
    for pos in np.ndindex(ids.shape):
        if ids[pos] >= 0:
            out[ids[pos]] += data[pos]
    return out


def _scatter(indices, updates, shape):
    """Reference scatter_nd: a loop over the index tuples, adding duplicates."""
    out = np.zeros(shape, updates.dtype)
    for pos in np.ndindex(indices.shape[:-1]):
        out[tuple(indices[pos])] += updates[pos]
    return out


SEG = np.linspace(-2, 2, 5 * 3).reshape(5, 3)


CASES = [
    # ---- UnsortedSegmentSum (the dense gradient of GatherV2)
    Case("UnsortedSegmentSum", lambda d, i: tf.unsorted_segment_sum(d, i, 4),
         [SEG, np.array([3, 0, -1, 3, 0], np.int32)],
         lambda d, i: _segment_sum(d, i, 4), bad=[[(4, 3), (5,)], [(5, 3), (5, 3, 1)]],
         bad_dtypes=[[np.float32, np.float32], [np.bool_, np.int32]], grad2=True),
    Case("UnsortedSegmentSum",
         lambda d, i: tf.unsorted_segment_sum(d, i, np.int64(3)),
         [P234, np.array([[2, 2, 0], [1, 2, 2]], np.int64)],
         lambda d, i: _segment_sum(d, i, 3), id="2d_ids_int64"),
    Case("UnsortedSegmentSum", lambda d, i: tf.unsorted_segment_sum(d, i, 3),
         [I234[0], np.array([0, 0, 2], np.int32)], lambda d, i: _segment_sum(d, i, 3),
         id="int"),
    Case("UnsortedSegmentSum", lambda d, i, n: tf.unsorted_segment_sum(d, i, n),
         [SEG[:, 0], np.array([1, 1, 0, 1, 1], np.int32), np.int32(2)],
         lambda d, i, n: _segment_sum(d, i, int(n)), id="tensor_num_segments"),
    Case("UnsortedSegmentSum", lambda d, i: tf.unsorted_segment_sum(d, i, 2),
         [np.zeros((0, 3), np.float32), np.zeros((0,), np.int32)],
         lambda d, i: np.zeros((2, 3), np.float32), id="empty"),
    # ---- ScatterNd (the gradient of GatherNd)
    Case("ScatterNd", lambda i, u: tf.scatter_nd(i, u, [3, 4]),
         [np.array([[0, 3], [2, 1], [0, 3]], np.int32), SEG[:3, 0]],
         lambda i, u: _scatter(i, u, (3, 4)), bad=[[(3, 2), (4,)], [(3, 3), (3,)]],
         bad_dtypes=[[np.float32, np.float32]], grad2=True),
    Case("ScatterNd", lambda i, u: tf.scatter_nd(i, u, np.array([4, 5], np.int64)),
         [np.array([[[1], [3]], [[1], [0]]], np.int64), np.linspace(0, 1, 20).reshape(2, 2, 5)],
         lambda i, u: _scatter(i, u, (4, 5)), id="slices_int64"),
    Case("ScatterNd", lambda i, u: tf.scatter_nd(i, u, [2, 3]),
         [np.array([[1], [1]], np.int32), I234[0, :2, :3]],
         lambda i, u: _scatter(i, u, (2, 3)), id="int_rows"),
    Case("ScatterNd", lambda i, u, s: tf.scatter_nd(i, u, s),
         [np.array([[2], [0], [2]], np.int64), np.linspace(-1, 1, 6).reshape(3, 2).astype(
             np.float16), np.array([4, 2], np.int64)],
         lambda i, u, s: _scatter(i, u, tuple(s)), id="tensor_shape_float16", rtol=1e-3,
         dynamic=False),  # shape of unknown length: an output of unknown rank
    Case("ScatterNd", lambda i, u: tf.scatter_nd(i, u, [2, 2]),
         [np.zeros((3, 0), np.int32), np.arange(12).reshape(3, 2, 2).astype(np.float32)],
         lambda i, u: u.sum(axis=0), id="empty_tuples", dynamic=False),
    Case("UnsortedSegmentSum", lambda d, i, n: tf.unsorted_segment_sum(d, i, n),
         [np.arange(24).reshape(4, 3, 2).astype(np.int64), np.array([[0, -1, 2], [2, 2, -3],
                                                                    [1, 0, 0], [-1, 1, 2]],
                                                                   np.int64), np.int64(3)],
         lambda d, i, n: _segment_sum(d, i, int(n)), id="tensor_n_negative_ids"),
    Case("UnsortedSegmentSum", lambda d, i: tf.unsorted_segment_sum(d, i, 2),
         [SEG[0], np.int32(1)], lambda d, i: np.stack([np.zeros(3), d]), id="scalar_id"),
    Case("UnsortedSegmentSum", lambda d, i: tf.unsorted_segment_sum(d, i, 3),
         [np.linspace(-1, 1, 8).reshape(4, 2).astype(np.float16), np.array([2, 0, 2, 1],
                                                                           np.int32)],
         lambda d, i: _segment_sum(d, i, 3), id="float16", rtol=1e-3),
]
