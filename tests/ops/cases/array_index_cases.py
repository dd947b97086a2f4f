"""Cases for the indexing ops: StridedSlice, Slice, GatherV2, GatherNd, OneHot,
BooleanMask, TopKV2, SequenceMask, Unique. References are plain numpy indexing."""

import numpy as np

import staticgraph as tf

from . import Case, rng

R = rng(7)
F34 = R.standard_normal((3, 4)).astype(np.float32)
F345 = R.standard_normal((3, 4, 5)).astype(np.float32)
I234 = R.integers(-9, 9, (2, 3, 4)).astype(np.int32)
V5 = np.arange(5, dtype=np.float64)
B6 = R.integers(0, 2, (6,)).astype(bool)
P53 = R.standard_normal((5, 3)).astype(np.float32)
P234 = R.standard_normal((2, 3, 4)).astype(np.float32)


def _stable_desc(x, k):
    """Reference top-k: stable sort of the negated values (ties: lower index first)."""
    idx = np.argsort(-x, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, idx, axis=-1), idx.astype(np.int32)


def _first_occurrence(x, idx_dtype):
    """Reference unique: walk the values once, in order."""
    slots, y, idx = {}, [], []
    for v in x.tolist():
        if v not in slots:
            slots[v] = len(y)
            y.append(v)
        idx.append(slots[v])
    return np.array(y, x.dtype), np.array(idx, idx_dtype)


def _one_hot(indices, depth, on, off, axis, dtype):
    out = np.full(indices.shape + (depth,), off, dtype)
    for pos in np.ndindex(indices.shape):
        if 0 <= indices[pos] < depth:
            out[pos + (indices[pos],)] = on
    return np.moveaxis(out, -1, axis)


CASES = [
    # ---- StridedSlice (through tensor[...] and strided_slice)
    Case("StridedSlice", lambda x: x[1:, ::-1], [F34], lambda x: x[1:, ::-1], id="getitem"),
    Case("StridedSlice", lambda x: x[2, ::-1], [F34], lambda x: x[2, ::-1], id="shrink",
         bad=[[(2, 4)], [(3,)]]),
    Case("StridedSlice", lambda x: x[-1], [F34], lambda x: x[-1], id="neg_index"),
    Case("StridedSlice", lambda x: x[1, 2], [F34], lambda x: np.asarray(x[1, 2]), id="scalar"),
    Case("StridedSlice", lambda x: x[..., None, -1], [I234], lambda x: x[..., None, -1],
         id="ellipsis_newaxis"),
    Case("StridedSlice", lambda x: x[None, 1, ..., 0:5:2], [F345],
         lambda x: x[None, 1, ..., 0:5:2], id="mixed"),
    Case("StridedSlice", lambda x: x[10:-10:-1], [V5], lambda x: x[10:-10:-1], id="neg_stride"),
    Case("StridedSlice", lambda x: x[-100:100:3], [V5], lambda x: x[-100:100:3], id="clamp"),
    Case("StridedSlice", lambda x: x[3:1], [V5], lambda x: x[3:1], id="empty"),
    Case("StridedSlice", lambda x: x[()], [I234], lambda x: x[()], id="empty_key"),
    Case("StridedSlice", lambda x: x[::2], [B6], lambda x: x[::2], id="bool"),
    Case("StridedSlice",
         lambda x: tf.strided_slice(x, [0, 2], [0, -1], [1, -1], begin_mask=1, end_mask=3),
         [F34], lambda x: x[:, 2::-1], id="masks"),
    Case("StridedSlice",
         lambda x: tf.strided_slice(x, [0, 1, 0, 0], [0, 2, 0, 3], [1, 1, 1, 2],
                                    new_axis_mask=1, shrink_axis_mask=2, ellipsis_mask=4),
         [F345], lambda x: x[None, 1, ..., 0:3:2], id="all_masks"),
    Case("StridedSlice", lambda x: tf.strided_slice(x, [1], [3]), [V5], lambda x: x[1:3],
         id="default_strides"),
    Case("StridedSlice", lambda x, i: x[i, 1:], [F34, np.int32(2)], lambda x, i: x[i, 1:],
         id="tensor_index"),
    Case("StridedSlice", lambda x, n: x[:n], [V5, np.int64(3)], lambda x, n: x[:n],
         id="tensor_stop_int64"),
    # ---- Slice
    Case("Slice", lambda x: tf.slice(x, [1, 0], [2, -1]), [F34], lambda x: x[1:3, 0:],
         bad=[[(2, 4)], [(3,)]]),
    Case("Slice", lambda x: tf.slice(x, np.array([1], np.int64), np.array([3], np.int64)),
         [I234[0, 0]], lambda x: x[1:4], id="int64"),
    Case("Slice", lambda x, b: tf.slice(x, b, [1, 2]), [F34, np.array([2, 1], np.int32)],
         lambda x, b: x[2:3, 1:3], id="tensor_begin"),
    Case("Slice", lambda x: tf.slice(x, [0, 0, 5], [-1, 2, 0]), [F345],
         lambda x: x[:, 0:2, 5:5], id="empty"),
    # ---- GatherV2
    Case("GatherV2", lambda p, i: tf.gather(p, i), [P53, np.array([[4, 0], [2, 2]], np.int32)],
         lambda p, i: p[i], bad_dtypes=[[np.float32, np.float32]]),
    Case("GatherV2", lambda p, i: tf.gather(p, i, axis=-1), [P53, np.array([2, 0], np.int64)],
         lambda p, i: p[:, i], id="axis_neg_int64"),
    Case("GatherV2", lambda p: tf.gather(p, 3), [P53], lambda p: p[3], id="scalar_index"),
    Case("GatherV2", lambda p, i: tf.gather(p, i, batch_dims=1),
         [P234, np.array([[0, 2, 2, 1, 0], [1, 1, 0, 2, 2]], np.int32)],
         lambda p, i: np.stack([p[b][i[b]] for b in range(2)]), id="batch_dims",
         bad=[[(2, 3, 4), (3, 5)]]),
    Case("GatherV2", lambda p, i: tf.gather(p, i, axis=2, batch_dims=1),
         [P234, np.array([[3, 0], [1, 1]], np.int32)],
         lambda p, i: np.stack([p[b][:, i[b]] for b in range(2)]), id="batch_dims_axis2"),
    Case("GatherV2", lambda p, i: tf.gather(p, i), [np.array(["a", "b", "c"], object),
                                                    np.array([2, 0], np.int32)],
         lambda p, i: p[i], id="string"),
    # ---- GatherNd
    Case("GatherNd", lambda p, i: tf.gather_nd(p, i),
         [F34, np.array([[0, 3], [2, 1]], np.int32)], lambda p, i: np.array([p[0, 3], p[2, 1]]),
         bad=[[(3, 4), (2, 3)]], bad_dtypes=[[np.float32, np.float32]]),
    Case("GatherNd", lambda p, i: tf.gather_nd(p, i),
         [P234, np.array([[[1], [0]], [[1], [1]]], np.int64)],
         lambda p, i: np.array([[p[1], p[0]], [p[1], p[1]]]), id="slices"),
    Case("GatherNd", lambda p, i: tf.gather_nd(p, i, batch_dims=1),
         [P234, np.array([[2], [0]], np.int32)], lambda p, i: np.stack([p[0][2], p[1][0]]),
         id="batch_dims"),
    # ---- OneHot
    Case("OneHot", lambda i: tf.one_hot(i, 3), [np.array([0, 2, -1, 5, 1], np.int32)],
         lambda i: _one_hot(i, 3, 1, 0, -1, np.float32), bad_dtypes=[[np.float32]]),
    Case("OneHot", lambda i: tf.one_hot(i, 4, on_value=5, off_value=-1, axis=0),
         [np.array([[0, 3], [1, 4]], np.int32)], lambda i: _one_hot(i, 4, 5, -1, 0, np.int32),
         id="axis0_int"),
    Case("OneHot", lambda i: tf.one_hot(i, 2, axis=1, dtype=tf.float64),
         [np.array([[1, 0, 1]], np.int64)], lambda i: _one_hot(i, 2, 1, 0, 1, np.float64),
         id="axis1_int64"),
    Case("OneHot", lambda i: tf.one_hot(i, 3, on_value=True, off_value=False),
         [np.uint8(2)], lambda i: np.array([False, False, True]), id="scalar_bool"),
    # ---- BooleanMask
    Case("BooleanMask", lambda x, m: tf.boolean_mask(x, m),
         [F34, np.array([True, False, True])], lambda x, m: x[m], bad=[[(3, 4), (4,)]],
         bad_dtypes=[[np.float32, np.int32]]),
    Case("BooleanMask", lambda x, m: tf.boolean_mask(x, m, axis=1),
         [I234, R.integers(0, 2, (3, 4)).astype(bool)], lambda x, m: x[:, m], id="axis1_2d"),
    Case("BooleanMask", lambda x, m: x[m], [V5, np.array([1, 0, 0, 1, 1], bool)],
         lambda x, m: x[m], id="getitem"),
    # ---- TopKV2
    Case("TopKV2", lambda x: list(tf.top_k(x, k=3)),
         [np.array([[1, 5, 5, 2, 5, 0], [3, 3, 3, 3, 3, 3], [0, -1, 7, 7, 2, 9]], np.float32)],
         lambda x: list(_stable_desc(x, 3)), bad=[[(3, 2)]], bad_dtypes=[[np.bool_]]),
    Case("TopKV2", lambda x: list(tf.top_k(x)), [np.array([4, 9, 9, 1], np.int32)],
         lambda x: list(_stable_desc(x, 1)), id="k1_int"),
    Case("TopKV2", lambda x: list(tf.top_k(x, 4)), [R.integers(0, 3, (2, 3, 4)).astype(np.int64)],
         lambda x: list(_stable_desc(x, 4)), id="full_sort"),
    Case("TopKV2", lambda x: list(tf.top_k(x, 0)), [F34], lambda x: list(_stable_desc(x, 0)),
         id="k0"),
    # ---- SequenceMask
    Case("SequenceMask", lambda n: tf.sequence_mask(n, 5), [np.array([0, 2, 5], np.int32)],
         lambda n: np.arange(5)[None, :] < n[:, None], bad_dtypes=[[np.float32]]),
    Case("SequenceMask", lambda n: tf.sequence_mask(n, dtype=tf.float32),
         [np.array([[1, 3], [2, 0]], np.int64)],
         lambda n: (np.arange(3) < n[..., None]).astype(np.float32), id="no_maxlen"),
    # ---- Unique
    Case("Unique", lambda x: list(tf.unique(x)), [np.array([4, 1, 4, 2, 1, 7, 2], np.int32)],
         lambda x: list(_first_occurrence(x, np.int32)), bad=[[(2, 3)]]),
    Case("Unique", lambda x: list(tf.unique(x, out_idx=tf.int64)),
         [R.integers(0, 4, (10,)).astype(np.float64)],
         lambda x: list(_first_occurrence(x, np.int64)), id="float_int64"),
    Case("Unique", lambda x: list(tf.unique(x)), [np.zeros((0,), np.float32)],
         lambda x: [x, np.zeros((0,), np.int32)], id="empty"),
]
