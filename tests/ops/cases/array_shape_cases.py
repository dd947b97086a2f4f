"""Cases for the array shape ops: Reshape, Transpose, ExpandDims, Squeeze, Shape, Size,
Rank. References are written with plain numpy indexing and loops.

The inputs below (one seeded generator, drawn in this order) are shared with
``array_fill_cases`` and ``array_transform_cases``."""

import numpy as np

import staticgraph as tf

from . import Case, rng

R = rng(11)
F23 = R.standard_normal((2, 3)).astype(np.float32)
F234 = R.standard_normal((2, 3, 4)).astype(np.float32)
F1315 = R.standard_normal((1, 3, 1, 5)).astype(np.float32)
I23 = R.integers(-9, 9, (2, 3)).astype(np.int32)
I3 = np.array([4, -2, 7], np.int32)
B23 = R.integers(0, 2, (2, 3)).astype(bool)
E03 = np.zeros((0, 3), np.float32)
S = np.float32(2.5)


def i32(v):
    return np.array(v, np.int32)


def f32(v):
    return np.array(v, np.float32)


def _transpose_ref(x, perm):
    out = np.empty([x.shape[p] for p in perm], x.dtype)
    for idx in np.ndindex(x.shape):
        out[tuple(idx[p] for p in perm)] = x[idx]
    return out


def _flat_reshape(x, shape):
    """Reshape by copying elements in row-major order."""
    flat = [x[idx] for idx in np.ndindex(x.shape)]
    return np.array(flat, x.dtype).reshape(shape)


CASES = [
    # Reshape
    Case("Reshape", lambda x: tf.reshape(x, [3, -1]), [F234],
         lambda x: _flat_reshape(x, (3, 8)), bad=[[(5, 5)], [(2, 2, 2)]], grad2=True),
    Case("Reshape", lambda x: tf.reshape(x, [-1]), [I23], lambda x: _flat_reshape(x, (6,)),
         id="flatten_int"),
    Case("Reshape", lambda x: tf.reshape(x, []), [np.ones((1, 1), np.float32)],
         lambda x: np.float32(x[0, 0]), bad=[[(2, 1)]], id="to_scalar"),
    Case("Reshape", lambda x: tf.reshape(x, [1, 1]), [S], lambda x: np.full((1, 1), x),
         id="from_scalar"),
    Case("Reshape", lambda x: tf.reshape(x, [tf.shape(x)[0], -1]), [F234],
         lambda x: _flat_reshape(x, (2, 12)), id="batch_flatten"),
    Case("Reshape", lambda x, s: tf.reshape(x, s), [F23, i32([3, 2])],
         lambda x, s: _flat_reshape(x, (3, 2)), bad_dtypes=[[np.float32, np.float32]],
         id="shape_tensor"),
    Case("Reshape", lambda x: tf.reshape(x, [-1, 3]), [E03], lambda x: np.zeros((0, 3), x.dtype),
         id="empty"),
    Case("Reshape", lambda x: tf.reshape(x, [0, -1]), [E03], lambda x: np.zeros((0, 3), x.dtype),
         id="empty_minus_one"),
    Case("Reshape", lambda x: tf.reshape(x, [3, 2]), [B23], lambda x: _flat_reshape(x, (3, 2)),
         id="bool"),
    Case("Reshape", lambda x, s: tf.reshape(x, s), [F234, np.array([4, -1], np.int64)],
         lambda x, s: _flat_reshape(x, (4, 6)), id="shape_tensor_minus_one"),
    Case("Reshape", lambda x, s: tf.reshape(x, s), [E03, i32([0, -1])],
         lambda x, s: np.zeros((0, 3), x.dtype), id="shape_tensor_zero_minus_one"),
    # Transpose
    Case("Transpose", lambda x: tf.transpose(x, [2, 0, 1]), [F234],
         lambda x: _transpose_ref(x, (2, 0, 1)), bad=[[(2, 3)]], grad2=True),
    Case("Transpose", lambda x: tf.transpose(x), [I23], lambda x: _transpose_ref(x, (1, 0)),
         id="default_perm"),
    Case("Transpose", lambda x: tf.transpose(x), [F234],
         lambda x: _transpose_ref(x, (2, 1, 0)), id="default_perm3"),
    Case("Transpose", lambda x, p: tf.transpose(x, p), [F234, i32([1, 2, 0])],
         lambda x, p: _transpose_ref(x, (1, 2, 0)), bad_dtypes=[[np.float32, np.float32]],
         id="perm_tensor", grad2=True),
    Case("Transpose", lambda x, p: tf.transpose(x, p), [B23, np.array([1, 0], np.int64)],
         lambda x, p: _transpose_ref(x, (1, 0)), id="bool_perm_tensor"),
    # InvertPermutation
    Case("InvertPermutation", lambda p: tf.invert_permutation(p), [i32([3, 4, 0, 2, 1])],
         lambda p: i32([2, 4, 3, 0, 1]), bad=[[(2, 3)]], bad_dtypes=[[np.float32]]),
    Case("InvertPermutation", lambda p: tf.invert_permutation(p),
         [np.array([1, 2, 0], np.int64)], lambda p: np.array([2, 0, 1], np.int64), id="int64"),
    Case("InvertPermutation", lambda p: tf.invert_permutation(p), [np.zeros(0, np.int32)],
         lambda p: np.zeros(0, np.int32), id="empty"),
    # ExpandDims / Squeeze
    Case("ExpandDims", lambda x: tf.expand_dims(x, 1), [F23],
         lambda x: x.reshape(2, 1, 3), id="middle", grad2=True),
    Case("ExpandDims", lambda x: tf.expand_dims(x, -1), [I23],
         lambda x: x.reshape(2, 3, 1), id="negative"),
    Case("ExpandDims", lambda x: tf.expand_dims(x, 2), [F23],
         lambda x: x.reshape(2, 3, 1), bad=[[(3,)]], id="last"),
    Case("ExpandDims", lambda x: tf.expand_dims(x, dim=0), [S],
         lambda x: np.array([x]), id="scalar_dim_alias"),
    Case("ExpandDims", lambda x, d: tf.expand_dims(x, d), [F23, np.int32(-2)],
         lambda x, d: x.reshape(2, 1, 3), id="dim_tensor"),
    Case("Squeeze", lambda x: tf.squeeze(x), [F1315], lambda x: x.reshape(3, 5), grad2=True),
    Case("Squeeze", lambda x: tf.squeeze(x, [2]), [F1315], lambda x: x.reshape(1, 3, 5),
         bad=[[(1, 3, 2, 5)]], id="axis"),
    Case("Squeeze", lambda x: tf.squeeze(x, axis=-4), [F1315], lambda x: x.reshape(3, 1, 5),
         bad=[[(2, 3, 1, 5)]], id="negative"),
    Case("Squeeze", lambda x: tf.squeeze(x, squeeze_dims=[0, 2]),
         [np.array([[[7]]], np.int32)], lambda x: x.reshape(1), id="int_alias"),
    # Shape / Size / Rank
    Case("Shape", lambda x: tf.shape(x), [F234], lambda x: i32([2, 3, 4])),
    Case("Shape", lambda x: tf.shape(x, out_type=tf.int64), [E03],
         lambda x: np.array([0, 3], np.int64), id="int64_empty"),
    Case("Shape", lambda x: tf.shape(x), [S], lambda x: np.zeros((0,), np.int32), id="scalar"),
    Case("Size", lambda x: tf.size(x), [F234], lambda x: np.int32(24)),
    Case("Size", lambda x: tf.size(x, out_type=tf.int64), [E03], lambda x: np.int64(0),
         id="int64_empty"),
    Case("Rank", lambda x: tf.rank(x), [F234], lambda x: np.int32(3)),
    Case("Rank", lambda x: tf.rank(x), [S], lambda x: np.int32(0), id="scalar"),
]
