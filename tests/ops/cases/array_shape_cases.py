"""Cases for the array shape ops: Reshape, Transpose, ExpandDims, Squeeze, Shape, Size,
Rank, Fill, ZerosLike, Range, LinSpace, StopGradient, BroadcastTo, Tile, Pad, PadV2,
MirrorPad, ReverseV2. References are written with plain numpy indexing and loops."""

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


def _tile_ref(x, reps):
    out = np.empty([d * r for d, r in zip(x.shape, reps)], x.dtype)
    for idx in np.ndindex(out.shape):
        out[idx] = x[tuple(i % d for i, d in zip(idx, x.shape))]
    return out


def _pad_ref(x, pads, value):
    out = np.full([d + b + a for d, (b, a) in zip(x.shape, pads)], value, x.dtype)
    for idx in np.ndindex(x.shape):
        out[tuple(i + b for i, (b, _) in zip(idx, pads))] = x[idx]
    return out


def _mirror_index(i, d, symmetric):
    """Index into a dimension of size d for padded position i (may be out of range)."""
    while i < 0 or i >= d:
        if i < 0:
            i = -i - 1 if symmetric else -i
        else:
            i = 2 * d - 1 - i if symmetric else 2 * d - 2 - i
    return i


def _mirror_ref(x, pads, symmetric):
    out = np.empty([d + b + a for d, (b, a) in zip(x.shape, pads)], x.dtype)
    for idx in np.ndindex(out.shape):
        src = tuple(_mirror_index(i - b, d, symmetric)
                    for i, d, (b, _) in zip(idx, x.shape, pads))
        out[idx] = x[src]
    return out


def _flat_reshape(x, shape):
    """Reshape by copying elements in row-major order."""
    flat = [x[idx] for idx in np.ndindex(x.shape)]
    return np.array(flat, x.dtype).reshape(shape)


CASES = [
    # Reshape
    Case("Reshape", lambda x: tf.reshape(x, [3, -1]), [F234],
         lambda x: _flat_reshape(x, (3, 8)), bad=[[(5, 5)], [(2, 2, 2)]]),
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
    # Transpose
    Case("Transpose", lambda x: tf.transpose(x, [2, 0, 1]), [F234],
         lambda x: _transpose_ref(x, (2, 0, 1)), bad=[[(2, 3)]]),
    Case("Transpose", lambda x: tf.transpose(x), [I23], lambda x: _transpose_ref(x, (1, 0)),
         id="default_perm"),
    Case("Transpose", lambda x: tf.transpose(x), [F234],
         lambda x: _transpose_ref(x, (2, 1, 0)), id="default_perm3"),
    Case("Transpose", lambda x, p: tf.transpose(x, p), [F234, i32([1, 2, 0])],
         lambda x, p: _transpose_ref(x, (1, 2, 0)), bad_dtypes=[[np.float32, np.float32]],
         id="perm_tensor"),
    # ExpandDims / Squeeze
    Case("ExpandDims", lambda x: tf.expand_dims(x, 1), [F23],
         lambda x: x.reshape(2, 1, 3), id="middle"),
    Case("ExpandDims", lambda x: tf.expand_dims(x, -1), [I23],
         lambda x: x.reshape(2, 3, 1), id="negative"),
    Case("ExpandDims", lambda x: tf.expand_dims(x, 2), [F23],
         lambda x: x.reshape(2, 3, 1), bad=[[(3,)]], id="last"),
    Case("ExpandDims", lambda x: tf.expand_dims(x, dim=0), [S],
         lambda x: np.array([x]), id="scalar_dim_alias"),
    Case("Squeeze", lambda x: tf.squeeze(x), [F1315], lambda x: x.reshape(3, 5)),
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
    # Fill / ZerosLike
    Case("Fill", lambda d, v: tf.fill(d, v), [i32([2, 3]), S],
         lambda d, v: np.array([[v] * 3] * 2, np.float32),
         bad=[[(2,), (2,)], [(2, 1), ()]], bad_dtypes=[[np.float32, np.float32]]),
    Case("Fill", lambda v: tf.fill([3, 1], v), [np.int32(-4)],
         lambda v: np.array([[-4], [-4], [-4]], np.int32), id="const_dims"),
    Case("Fill", lambda x: tf.zeros(tf.shape(x), tf.int32), [F23],
         lambda x: np.zeros((2, 3), np.int32), id="zeros_of_shape"),
    Case("Fill", lambda x: tf.ones_like(x, optimize=False), [I23],
         lambda x: np.ones((2, 3), np.int32), id="ones_like"),
    Case("ZerosLike", lambda x: tf.zeros_like(x, optimize=False), [F23],
         lambda x: np.zeros((2, 3), np.float32)),
    Case("ZerosLike", lambda x: tf.zeros_like(x, optimize=False), [B23],
         lambda x: np.zeros((2, 3), bool), id="bool"),
    # Range / LinSpace
    Case("Range", lambda s, l, d: tf.range(s, l, d), [np.int32(3), np.int32(18), np.int32(4)],
         lambda s, l, d: i32([3, 7, 11, 15]), bad=[[(2,), (), ()]]),
    Case("Range", lambda s, l, d: tf.range(s, l, d), [np.int64(5), np.int64(-2), np.int64(-3)],
         lambda s, l, d: np.array([5, 2, -1], np.int64), id="negative_delta"),
    Case("Range", lambda s, l, d: tf.range(s, l, d), [f32(1.0), f32(2.25), f32(0.5)],
         lambda s, l, d: f32([1.0, 1.5, 2.0]), id="float"),
    Case("Range", lambda s: tf.range(s), [np.int32(0)], lambda s: np.zeros((0,), np.int32),
         id="empty"),
    Case("Range", lambda x: tf.range(4) + x, [I3[:1]], lambda x: i32([0, 1, 2, 3]) + x,
         id="const"),
    Case("LinSpace", lambda a, b, n: tf.lin_space(a, b, n), [f32(10.0), f32(12.0), np.int32(5)],
         lambda a, b, n: f32([10.0, 10.5, 11.0, 11.5, 12.0]), bad=[[(), (2,), ()]],
         bad_dtypes=[[np.int32, np.int32, np.int32]]),
    Case("LinSpace", lambda a, b, n: tf.linspace(a, b, n),
         [np.float64(1.0), np.float64(-1.0), np.int64(1)],
         lambda a, b, n: np.array([1.0]), id="one_float64"),
    # StopGradient
    Case("StopGradient", lambda x: tf.stop_gradient(x), [F23], lambda x: x),
    Case("StopGradient", lambda x: tf.stop_gradient(x) * 2, [I23], lambda x: x * 2, id="int"),
    # BroadcastTo
    Case("BroadcastTo", lambda x: tf.broadcast_to(x, [4, 2, 3]), [F23],
         lambda x: np.array([x, x, x, x]), bad=[[(3, 3)], [(1, 2, 2, 3)]]),
    Case("BroadcastTo", lambda x: tf.broadcast_to(x, [3, 3]), [I3.reshape(3, 1)],
         lambda x: np.array([[4, 4, 4], [-2, -2, -2], [7, 7, 7]], np.int32), id="column"),
    Case("BroadcastTo", lambda x, s: tf.broadcast_to(x, s), [I3, i32([2, 3])],
         lambda x, s: np.array([x, x]), id="shape_tensor"),
    # Tile
    Case("Tile", lambda x: tf.tile(x, [2, 3]), [F23], lambda x: _tile_ref(x, (2, 3)),
         bad=[[(2, 3, 4)]]),
    Case("Tile", lambda x, m: tf.tile(x, m), [I23, i32([1, 0])],
         lambda x, m: np.zeros((2, 0), np.int32), bad_dtypes=[[np.int32, np.float32]],
         id="zero_multiple"),
    Case("Tile", lambda x: tf.tile(x, [3]), [B23[0]], lambda x: _tile_ref(x, (3,)), id="bool"),
    # Pad / PadV2 / MirrorPad
    Case("Pad", lambda x: tf.pad(x, [[1, 0], [2, 1]]), [F23],
         lambda x: _pad_ref(x, [(1, 0), (2, 1)], 0), bad=[[(2,)], [(2, 3, 4)]]),
    Case("Pad", lambda x, p: tf.pad(x, p), [I23, i32([[0, 1], [1, 1]])],
         lambda x, p: _pad_ref(x, [(0, 1), (1, 1)], 0), bad=[[(2, 3), (3, 2)]],
         bad_dtypes=[[np.int32, np.float32]], id="paddings_tensor"),
    Case("Pad", lambda x: tf.pad(x, np.zeros((0, 2), np.int32)), [S], lambda x: np.float32(x),
         id="scalar"),
    Case("PadV2", lambda x: tf.pad(x, [[1, 1], [0, 2]], constant_values=-1), [I23],
         lambda x: _pad_ref(x, [(1, 1), (0, 2)], -1), bad=[[(3,)]]),
    Case("PadV2", lambda x, c: tf.pad(x, [[2, 0], [0, 0]], constant_values=c), [F23, S],
         lambda x, c: _pad_ref(x, [(2, 0), (0, 0)], c), bad=[[(2, 3), (2,)]],
         bad_dtypes=[[np.float32, np.int32]], id="value_tensor"),
    Case("MirrorPad", lambda x: tf.pad(x, [[1, 1], [2, 2]], "REFLECT"), [F23],
         lambda x: _mirror_ref(x, [(1, 1), (2, 2)], False), bad=[[(2, 2)], [(1, 3)]]),
    Case("MirrorPad", lambda x: tf.pad(x, [[1, 2], [3, 0]], mode="symmetric"), [I23],
         lambda x: _mirror_ref(x, [(1, 2), (3, 0)], True), bad=[[(2, 2)]], id="symmetric"),
    # ReverseV2
    Case("ReverseV2", lambda x: tf.reverse(x, [1]), [F23], lambda x: x[:, ::-1],
         bad=[[(3,)]]),
    Case("ReverseV2", lambda x: tf.reverse_v2(x, [0, -1]), [F234], lambda x: x[::-1, :, ::-1],
         id="two_axes"),
    Case("ReverseV2", lambda x: tf.reverse(x, []), [I3], lambda x: x, id="no_axes"),
    Case("ReverseV2", lambda x, a: tf.reverse(x, a), [B23, np.array([0], np.int64)],
         lambda x, a: x[::-1], bad_dtypes=[[bool, np.float32]], id="axis_tensor"),
]
