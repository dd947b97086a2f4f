"""Cases for the selection ops: BooleanMask, TopKV2, SequenceMask, Unique.
References are plain numpy indexing and loops."""

import numpy as np

import staticgraph as tf

from . import Case
from .array_slice_cases import F34, F345, I234, R, V5


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


CASES = [
    # ---- BooleanMask
    Case("BooleanMask", lambda x, m: tf.boolean_mask(x, m),
         [F34, np.array([True, False, True])], lambda x, m: x[m], bad=[[(3, 4), (4,)]],
         bad_dtypes=[[np.float32, np.int32]]),
    Case("BooleanMask", lambda x, m: tf.boolean_mask(x, m, axis=1),
         [I234, R.integers(0, 2, (3, 4)).astype(bool)], lambda x, m: x[:, m], id="axis1_2d"),
    Case("BooleanMask", lambda x, m: x[m], [V5, np.array([1, 0, 0, 1, 1], bool)],
         lambda x, m: x[m], id="getitem"),
    Case("BooleanMask", lambda x, m: tf.boolean_mask(x, m, axis=-3),
         [F345, np.array([[True, False, True, True], [False, True, False, True],
                              [False, False, False, False]])],
         lambda x, m: x[m], id="float_2d_neg_axis", grad2=True),
    Case("BooleanMask", lambda x, m: tf.boolean_mask(x, m, axis=1),
         [F34, np.array([False, True, True, False])], lambda x, m: x[:, m], id="float_axis1"),
    Case("BooleanMask", lambda x, m: tf.boolean_mask(x, m, axis=-1),
         [np.array([["a", "b", "c"], ["d", "e", "f"]], object), np.array([True, False, True])],
         lambda x, m: x[:, m], id="string_neg_axis"),
    Case("BooleanMask", lambda x, m: tf.boolean_mask(x, m, axis=1),
         [I234.reshape(2, 3, 2, 2).astype(np.int16),
          np.array([[True, False], [False, False], [True, True]])],
         lambda x, m: x[:, m], id="int16_2d_axis1"),
    # ---- TopKV2
    Case("TopKV2", lambda x: list(tf.top_k(x, k=3)),
         [np.array([[1, 5, 5, 2, 5, 0], [3, 3, 3, 3, 3, 3], [0, -1, 7, 7, 2, 9]], np.float32)],
         lambda x: list(_stable_desc(x, 3)), bad=[[(3, 2)]], bad_dtypes=[[np.bool_]],
         grad=False),  # ties at the k-th value: no derivative there
    Case("TopKV2", lambda x: list(tf.top_k(x, k=2)), [F345[0, :, :4]],
         lambda x: list(_stable_desc(x, 2)), id="distinct", grad2=True),
    Case("TopKV2", lambda x: list(tf.top_k(x)), [np.array([4, 9, 9, 1], np.int32)],
         lambda x: list(_stable_desc(x, 1)), id="k1_int"),
    Case("TopKV2", lambda x: list(tf.top_k(x, 4)), [R.integers(0, 3, (2, 3, 4)).astype(np.int64)],
         lambda x: list(_stable_desc(x, 4)), id="full_sort"),
    Case("TopKV2", lambda x: list(tf.top_k(x, 0)), [F34], lambda x: list(_stable_desc(x, 0)),
         id="k0"),
    Case("TopKV2", lambda x, k: list(tf.top_k(x, k)),
         [np.array([[3, -1, 3, 7], [0, 0, 0, 1]], np.int8), np.int32(3)],
         lambda x, k: list(_stable_desc(x, int(k))), id="tensor_k_int8"),
    Case("TopKV2", lambda x: list(tf.top_k(x, 2)),
         [np.array([0.5, -2, 0.5, 9, 0.25], np.float16)],
         lambda x: list(_stable_desc(x, 2)), id="float16", grad=False),
    Case("TopKV2", lambda x: list(tf.top_k(x, 3, sorted=False)),
         [np.array([[4, 200, 7, 200], [1, 2, 3, 4]], np.uint8)],
         lambda x: list(_stable_desc(x, 3)), id="uint8_unsorted"),
    # ---- SequenceMask
    Case("SequenceMask", lambda n: tf.sequence_mask(n, 5), [np.array([0, 2, 5], np.int32)],
         lambda n: np.arange(5)[None, :] < n[:, None], bad_dtypes=[[np.float32]]),
    Case("SequenceMask", lambda n: tf.sequence_mask(n, dtype=tf.float32),
         [np.array([[1, 3], [2, 0]], np.int64)],
         lambda n: (np.arange(3) < n[..., None]).astype(np.float32), id="no_maxlen"),
    Case("SequenceMask", lambda n, m: tf.sequence_mask(n, m, dtype=tf.int32),
         [np.array([[2, 0], [4, 1]], np.int8), np.int32(3)],
         lambda n, m: (np.arange(3) < n[..., None]).astype(np.int32), id="int8_tensor_maxlen"),
    Case("SequenceMask", lambda n: tf.sequence_mask(n), [np.zeros((0,), np.int32)],
         lambda n: np.zeros((0, 0), bool), id="empty"),
    # ---- Unique
    Case("Unique", lambda x: list(tf.unique(x)), [np.array([4, 1, 4, 2, 1, 7, 2], np.int32)],
         lambda x: list(_first_occurrence(x, np.int32)), bad=[[(2, 3)]]),
    Case("Unique", lambda x: list(tf.unique(x, out_idx=tf.int64)),
         [R.integers(0, 4, (10,)).astype(np.float64)],
         lambda x: list(_first_occurrence(x, np.int64)), id="float_int64"),
    Case("Unique", lambda x: list(tf.unique(x)), [np.zeros((0,), np.float32)],
         lambda x: [x, np.zeros((0,), np.int32)], id="empty"),
    Case("Unique", lambda x: list(tf.unique(x)), [np.array([3, -3, 3, 0, -3], np.int16)],
         lambda x: list(_first_occurrence(x, np.int32)), id="int16"),
    Case("Unique", lambda x: list(tf.unique(x, out_idx=tf.int64)),
         [np.array([False, False, True, False])],
         lambda x: list(_first_occurrence(x, np.int64)), id="bool"),
    Case("Unique", lambda x: list(tf.unique(x)), [np.array(["b", "a", "b", "c"], object)],
         lambda x: list(_first_occurrence(x, np.int32)), id="string"),
]
